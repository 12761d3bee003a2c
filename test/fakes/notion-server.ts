import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A block of a fake page; `children` nest (toggles, list items); child pages/databases reference ids. */
export interface FakeBlock {
  type: string;
  text?: string;
  checked?: boolean;
  language?: string;
  /** table rows (the first is the column header). */
  rows?: string[][];
  children?: FakeBlock[];
  /** For child_page / child_database blocks. */
  ref?: string;
}

export interface FakePage {
  id: string;
  title: string;
  /** Set for rows of a fake database. */
  databaseId?: string;
  /** Extra database properties: name → text (rendered as rich_text). */
  properties?: Record<string, string>;
  blocks: FakeBlock[];
  archived?: boolean;
}

export interface FakeDatabase {
  id: string;
  title: string;
}

export interface FakeNotion {
  url: string;
  token: string;
  /** Request log: "GET /v1/pages/…" etc. */
  requests: string[];
  setPage(page: FakePage): void;
  removePage(id: string): void;
  close(): Promise<void>;
}

export interface FakeNotionOptions {
  token?: string;
  databases?: FakeDatabase[];
  /** Results per page of every list endpoint (small, so pagination is exercised). Default 2. */
  pageSize?: number;
  /** Path prefixes whose first request is answered 429 with Retry-After: 1 (default: database query). */
  rateLimitOnce?: string[];
}

const norm = (id: string) => id.replace(/-/g, "").toLowerCase();
const richText = (text: string) => [
  {
    type: "text",
    text: { content: text, link: null },
    annotations: { bold: false, italic: false, code: false },
    plain_text: text,
    href: null,
  },
];

/**
 * A protocol-faithful local Notion API (the 2022-06-28 subset Lore uses): pages, block children with
 * cursor pagination, database queries, Notion's error bodies, bearer-token checks, a one-time 429.
 */
export async function startFakeNotion(
  pages: FakePage[],
  options: FakeNotionOptions = {},
): Promise<FakeNotion> {
  const token = options.token ?? "secret_fake_token";
  const pageSize = options.pageSize ?? 2;
  const workspace = new Map(pages.map((p) => [norm(p.id), p]));
  const databases = new Map((options.databases ?? []).map((d) => [norm(d.id), d]));
  const blockIndex = new Map<string, FakeBlock[]>();
  const blockIds = new WeakMap<FakeBlock, string>();
  const limited = new Set(options.rateLimitOnce ?? ["/v1/databases/"]);
  const requests: string[] = [];
  let origin = "";

  const blockId = (block: FakeBlock): string => {
    let id = blockIds.get(block);
    if (!id) {
      id = block.ref ?? randomUUID();
      blockIds.set(block, id);
    }
    if (block.children) blockIndex.set(norm(id), block.children);
    if (block.type === "table")
      blockIndex.set(
        norm(id),
        (block.rows ?? []).map((r) => ({ type: "table_row", rows: [r] })),
      );
    return id;
  };

  const blockJson = (block: FakeBlock) => {
    const id = blockId(block);
    const base = {
      object: "block",
      id,
      type: block.type,
      has_children: (block.children?.length ?? 0) > 0 || block.type === "table",
      archived: false,
      in_trash: false,
    };
    switch (block.type) {
      case "child_page":
        return {
          ...base,
          has_children: true,
          child_page: { title: workspace.get(norm(block.ref ?? ""))?.title ?? "" },
        };
      case "child_database":
        return {
          ...base,
          has_children: false,
          child_database: { title: databases.get(norm(block.ref ?? ""))?.title ?? "" },
        };
      case "table":
        return {
          ...base,
          table: {
            table_width: block.rows?.[0]?.length ?? 0,
            has_column_header: true,
            has_row_header: false,
          },
        };
      case "table_row":
        return { ...base, table_row: { cells: (block.rows?.[0] ?? []).map((c) => richText(c)) } };
      case "code":
        return {
          ...base,
          code: {
            rich_text: richText(block.text ?? ""),
            language: block.language ?? "plain text",
            caption: [],
          },
        };
      case "to_do":
        return {
          ...base,
          to_do: { rich_text: richText(block.text ?? ""), checked: block.checked ?? false, color: "default" },
        };
      case "divider":
        return { ...base, divider: {} };
      default:
        return { ...base, [block.type]: { rich_text: richText(block.text ?? ""), color: "default" } };
    }
  };

  const pageJson = (page: FakePage) => {
    const properties: Record<string, unknown> = {
      [page.databaseId ? "Name" : "title"]: { id: "title", type: "title", title: richText(page.title) },
    };
    for (const [name, value] of Object.entries(page.properties ?? {}))
      properties[name] = { id: name, type: "rich_text", rich_text: richText(value) };
    return {
      object: "page",
      id: page.id,
      created_time: "2024-01-01T00:00:00.000Z",
      last_edited_time: "2024-01-01T00:00:00.000Z",
      archived: page.archived ?? false,
      in_trash: page.archived ?? false,
      parent: page.databaseId
        ? { type: "database_id", database_id: page.databaseId }
        : { type: "workspace", workspace: true },
      properties,
      url: `https://www.notion.so/${page.title.replace(/\W+/g, "-")}-${norm(page.id)}`,
    };
  };

  const list = (items: unknown[], cursor: string | null) => {
    const start = cursor ? Number(cursor) : 0;
    const slice = items.slice(start, start + pageSize);
    const more = start + pageSize < items.length;
    return {
      object: "list",
      results: slice,
      next_cursor: more ? String(start + pageSize) : null,
      has_more: more,
      type: "block",
      block: {},
    };
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const error = (
    res: ServerResponse,
    status: number,
    code: string,
    message: string,
    headers: Record<string, string> = {},
  ) => send(res, status, { object: "error", status, code, message }, headers);

  const readBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    if (req.headers.authorization !== `Bearer ${token}`)
      return error(res, 401, "unauthorized", "API token is invalid.");
    if (!req.headers["notion-version"])
      return error(res, 400, "missing_version", "Notion-Version header failed validation.");
    const prefix = [...limited].find((p) => url.pathname.startsWith(p));
    if (prefix) {
      limited.delete(prefix);
      return error(
        res,
        429,
        "rate_limited",
        "You have been rate limited. Please try again in a few minutes.",
        { "retry-after": "1" },
      );
    }
    let m = /^\/v1\/pages\/([^/]+)$/.exec(url.pathname);
    if (m && req.method === "GET") {
      const page = workspace.get(norm(m[1] ?? ""));
      if (!page) return error(res, 404, "object_not_found", `Could not find page with ID: ${m[1]}.`);
      return send(res, 200, pageJson(page));
    }
    m = /^\/v1\/blocks\/([^/]+)\/children$/.exec(url.pathname);
    if (m && req.method === "GET") {
      const id = norm(m[1] ?? "");
      const blocks = workspace.get(id)?.blocks ?? blockIndex.get(id);
      if (!blocks) return error(res, 404, "object_not_found", `Could not find block with ID: ${m[1]}.`);
      const requested = Number(url.searchParams.get("page_size") ?? 100);
      if (!Number.isInteger(requested) || requested < 1 || requested > 100)
        return error(res, 400, "validation_error", "page_size should be ≤ 100.");
      return send(res, 200, list(blocks.map(blockJson), url.searchParams.get("start_cursor")));
    }
    m = /^\/v1\/databases\/([^/]+)\/query$/.exec(url.pathname);
    if (m && req.method === "POST") {
      const id = norm(m[1] ?? "");
      if (!databases.has(id))
        return error(res, 404, "object_not_found", `Could not find database with ID: ${m[1]}.`);
      const body = await readBody(req);
      const rows = [...workspace.values()]
        .filter((p) => p.databaseId && norm(p.databaseId) === id && !p.archived)
        .map(pageJson);
      return send(res, 200, {
        ...list(rows, typeof body.start_cursor === "string" ? body.start_cursor : null),
        type: "page_or_database",
        page_or_database: {},
      });
    }
    return error(res, 400, "invalid_request_url", "Invalid request URL.");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    token,
    requests,
    setPage: (page) => void workspace.set(norm(page.id), page),
    removePage: (id) => void workspace.delete(norm(id)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
