import type { NotionConfig } from "@lore/shared";
import type { RawDocument } from "../documents.ts";
import { sleep } from "./sleep.ts";

export const NOTION_VERSION = "2022-06-28";
export const DEFAULT_NOTION_BASE_URL = "https://api.notion.com";
const MAX_ATTEMPTS = 5;
const MAX_RETRY_AFTER_MS = 60_000;

/** A Notion API failure that ends the sync (bad token, lost access), with Notion's status and code. */
export class NotionError extends Error {
  override readonly name = "NotionError";
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
  }
}

export interface NotionContext {
  baseUrl?: string;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  log?: (message: string, data?: Record<string, unknown>) => void;
  /** Cap on documents yielded (pages, database rows, child pages). */
  maxPages?: number;
}

interface RichText {
  plain_text?: string;
  href?: string | null;
}
type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** Rich text → plain text, links kept as "text (url)" only when the URL adds information. */
export function richTextToPlain(value: unknown): string {
  return asArray(value)
    .map((t) => {
      const rt = (isObject(t) ? t : {}) as RichText;
      const text = rt.plain_text ?? "";
      return rt.href && !text.includes(rt.href) && /^https?:/.test(rt.href) ? `${text} (${rt.href})` : text;
    })
    .join("");
}

function normaliseId(id: string): string {
  return id.replace(/-/g, "").toLowerCase();
}

/** Property values of a database row as "Name: value" lines (the title property excluded). */
function renderProperties(properties: Json): string[] {
  const lines: string[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    if (!isObject(raw)) continue;
    const type = str(raw.type);
    const v = raw[type];
    let value = "";
    switch (type) {
      case "title":
        continue;
      case "rich_text":
        value = richTextToPlain(v);
        break;
      case "number":
        value = typeof v === "number" ? String(v) : "";
        break;
      case "select":
      case "status":
        value = isObject(v) ? str(v.name) : "";
        break;
      case "multi_select":
        value = asArray(v)
          .map((o) => (isObject(o) ? str(o.name) : ""))
          .filter(Boolean)
          .join(", ");
        break;
      case "date":
        value = isObject(v) ? [str(v.start), str(v.end)].filter(Boolean).join(" → ") : "";
        break;
      case "checkbox":
        value = v === true ? "Yes" : "No";
        break;
      case "url":
      case "email":
      case "phone_number":
        value = str(v);
        break;
      case "people":
        value = asArray(v)
          .map((p) => (isObject(p) ? str(p.name) : ""))
          .filter(Boolean)
          .join(", ");
        break;
      default:
        continue;
    }
    if (value) lines.push(`${name}: ${value}`);
  }
  return lines;
}

function pageTitle(page: Json): string {
  const properties = isObject(page.properties) ? page.properties : {};
  for (const prop of Object.values(properties)) {
    if (isObject(prop) && prop.type === "title") return richTextToPlain(prop.title).trim();
  }
  return "";
}

/**
 * Reads a Notion workspace through the official REST API: the configured root pages (with their
 * nested blocks, child pages and child databases) and databases (every row page). Blocks are
 * rendered as markdown (headings, lists, to-dos, code, quotes, tables) for the markdown parser.
 * 429 honours Retry-After; 5xx is retried with backoff; 401/403 end the read with a NotionError.
 */
export async function* readNotion(config: NotionConfig, ctx: NotionContext = {}): AsyncIterable<RawDocument> {
  const baseUrl = (ctx.baseUrl ?? DEFAULT_NOTION_BASE_URL).replace(/\/+$/, "");
  const doFetch = ctx.fetch ?? fetch;
  const log = ctx.log ?? (() => undefined);
  const maxPages = ctx.maxPages ?? 10_000;

  const api = async (method: "GET" | "POST", path: string, body?: Json): Promise<Json | null> => {
    for (let attempt = 1; ; attempt++) {
      ctx.signal?.throwIfAborted();
      const res = await doFetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${config.token}`,
          "notion-version": NOTION_VERSION,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
        signal: ctx.signal,
      });
      if (res.ok) return (await res.json()) as Json;
      const payload = (await res.json().catch(() => ({}))) as Json;
      const code = str(payload.code) || `http_${res.status}`;
      const message = str(payload.message) || res.statusText;
      if ((res.status === 429 || res.status >= 500) && attempt < MAX_ATTEMPTS) {
        const retryAfter = Number(res.headers.get("retry-after"));
        const wait =
          Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : 500 * 2 ** (attempt - 1);
        log("notion: retrying", { path, status: res.status, waitMs: wait });
        await sleep(Math.min(wait, MAX_RETRY_AFTER_MS), ctx.signal);
        continue;
      }
      // A page or database the integration cannot see is skipped, like a page that was removed.
      if (res.status === 404) {
        log("notion: not found or not shared with the integration", { path, code });
        return null;
      }
      throw new NotionError(
        `Notion API ${method} ${path} failed: ${res.status} ${code}: ${message}`,
        res.status,
        code,
      );
    }
  };

  async function* paginate(method: "GET" | "POST", path: string): AsyncIterable<Json> {
    let cursor: string | null = null;
    do {
      const sep = path.includes("?") ? "&" : "?";
      const result: Json | null =
        method === "GET"
          ? await api(
              "GET",
              `${path}${sep}page_size=100${cursor ? `&start_cursor=${encodeURIComponent(cursor)}` : ""}`,
            )
          : await api("POST", path, { page_size: 100, ...(cursor ? { start_cursor: cursor } : {}) });
      if (!result) return;
      for (const item of asArray(result.results)) if (isObject(item)) yield item;
      cursor = result.has_more === true && typeof result.next_cursor === "string" ? result.next_cursor : null;
    } while (cursor);
  }

  const pageQueue: string[] = [...config.rootPageIds];
  const databaseQueue: string[] = [...config.databaseIds];
  const seenPages = new Set<string>();
  const seenDatabases = new Set<string>();

  /** Renders a block list (and children, recursively) to markdown lines. */
  const renderBlocks = async (blockId: string, depth: number, out: string[]): Promise<void> => {
    const indent = "  ".repeat(depth);
    let numbered = 0;
    for await (const block of paginate("GET", `/v1/blocks/${blockId}/children`)) {
      const type = str(block.type);
      const data = isObject(block[type]) ? (block[type] as Json) : {};
      const text = richTextToPlain(data.rich_text);
      numbered = type === "numbered_list_item" ? numbered + 1 : 0;
      let childDepth = depth;
      switch (type) {
        case "paragraph":
          out.push(text ? `${indent}${text}` : "");
          break;
        case "heading_1":
        case "heading_2":
        case "heading_3":
          out.push("", `${"#".repeat(Number(type.slice(-1)))} ${text}`, "");
          break;
        case "bulleted_list_item":
        case "toggle":
          out.push(`${indent}- ${text}`);
          childDepth = depth + 1;
          break;
        case "numbered_list_item":
          out.push(`${indent}${numbered}. ${text}`);
          childDepth = depth + 1;
          break;
        case "to_do":
          out.push(`${indent}- [${data.checked === true ? "x" : " "}] ${text}`);
          childDepth = depth + 1;
          break;
        case "quote":
        case "callout":
          out.push(`${indent}> ${text}`);
          break;
        case "code":
          out.push("", `\`\`\`${str(data.language)}`, richTextToPlain(data.rich_text), "```", "");
          break;
        case "equation":
          out.push(`${indent}${str(data.expression)}`);
          break;
        case "bookmark":
        case "embed":
        case "link_preview":
          if (str(data.url))
            out.push(`${indent}${richTextToPlain(data.caption) || str(data.url)} (${str(data.url)})`);
          break;
        case "image":
        case "video":
        case "file":
        case "pdf": {
          const caption = richTextToPlain(data.caption);
          if (caption) out.push(`${indent}${caption}`);
          break;
        }
        case "table": {
          const rows: string[][] = [];
          for await (const row of paginate("GET", `/v1/blocks/${str(block.id)}/children`)) {
            const cells = isObject(row.table_row) ? asArray(row.table_row.cells) : [];
            rows.push(cells.map((c) => richTextToPlain(c).replace(/\|/g, "\\|").replace(/\n/g, " ")));
          }
          const [head, ...rest] = rows;
          if (head) {
            // Without a column header the first row is still used as one: rows must stay self-describing.
            out.push(
              "",
              `| ${head.join(" | ")} |`,
              `|${head.map(() => "---").join("|")}|`,
              ...rest.map((r) => `| ${r.join(" | ")} |`),
              "",
            );
          }
          continue;
        }
        case "child_page":
          pageQueue.push(str(block.id));
          continue;
        case "child_database":
          databaseQueue.push(str(block.id));
          continue;
        case "divider":
          out.push("");
          break;
        default:
          if (text) out.push(`${indent}${text}`);
      }
      if (block.has_children === true && type !== "child_page" && type !== "child_database") {
        await renderBlocks(str(block.id), childDepth, out);
      }
      if (type === "paragraph" || type === "quote" || type === "callout") out.push("");
    }
  };

  let yielded = 0;
  const pageDocument = async (page: Json, fromDatabase: boolean): Promise<RawDocument | null> => {
    if (page.archived === true || page.in_trash === true) return null;
    const id = str(page.id);
    const lines: string[] = [];
    if (fromDatabase && isObject(page.properties)) {
      const props = renderProperties(page.properties);
      if (props.length > 0) lines.push(...props, "");
    }
    await renderBlocks(id, 0, lines);
    const title = pageTitle(page) || "Untitled";
    return {
      externalId: id,
      title,
      sourceUrl: str(page.url) || null,
      kind: "notion",
      mediaType: "text/markdown",
      body: lines
        .join("\n")
        .replace(/\n{3,}/g, "\n\n")
        .trim(),
    };
  };

  while ((pageQueue.length > 0 || databaseQueue.length > 0) && yielded < maxPages) {
    const pageId = pageQueue.shift();
    if (pageId !== undefined) {
      if (seenPages.has(normaliseId(pageId))) continue;
      seenPages.add(normaliseId(pageId));
      const page = await api("GET", `/v1/pages/${pageId}`);
      if (!page) continue;
      const doc = await pageDocument(page, isObject(page.parent) && page.parent.type === "database_id");
      // A page with nothing but child pages (a hub) has no text of its own to index.
      if (doc && doc.body.length > 0) {
        yielded++;
        yield doc;
      }
      continue;
    }
    const databaseId = databaseQueue.shift();
    if (databaseId === undefined || seenDatabases.has(normaliseId(databaseId))) continue;
    seenDatabases.add(normaliseId(databaseId));
    for await (const row of paginate("POST", `/v1/databases/${databaseId}/query`)) {
      if (yielded >= maxPages) break;
      const id = str(row.id);
      if (seenPages.has(normaliseId(id))) continue;
      seenPages.add(normaliseId(id));
      const doc = await pageDocument(row, true);
      if (doc && doc.body.length > 0) {
        yielded++;
        yield doc;
      }
    }
  }
}
