/** A small typed HTTP client for Lore's REST API, used by every benchmark. */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type {
  Agent,
  Citation,
  DataSource,
  LoginResponse,
  QueryResponse,
  RetrievalMode,
  SearchResponse,
} from "@lore/shared";
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD } from "./server.ts";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what} → ${status}: ${body.slice(0, 500)}`);
  }
}

export interface TextEntry {
  title: string;
  content: string;
}

export interface DocumentInfo {
  id: string;
  title: string;
  status: string;
  chunkCount: number;
  pageCount: number | null;
}

interface Page<T> {
  results: T[];
  next: string | null;
}

export class LoreClient {
  private token = "";

  constructor(readonly api: string) {}

  /** Logs in as the bench admin and keeps the access token for later calls. */
  async login(email = BENCH_ADMIN_EMAIL, password = BENCH_ADMIN_PASSWORD): Promise<void> {
    const res = await this.json<LoginResponse>("POST", "/auth/login/", { email, password }, false);
    this.token = res.access;
  }

  get accessToken(): string {
    return this.token;
  }

  async json<T>(method: string, path: string, body?: unknown, auth = true): Promise<T> {
    const headers: Record<string, string> = {};
    if (auth) headers.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(path.startsWith("http") ? path : `${this.api}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new ApiError(res.status, text, `${method} ${path}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  createAgent(name: string, extra: Record<string, unknown> = {}): Promise<Agent> {
    return this.json<Agent>("POST", "/agents/", { name, ...extra });
  }

  attach(agentId: string, dataSourceIds: string[]): Promise<Agent> {
    return this.json<Agent>("PATCH", `/agents/${agentId}/`, { dataSourceIds });
  }

  createTextSource(name: string, entries: TextEntry[]): Promise<DataSource> {
    return this.json<DataSource>("POST", "/data-sources/", { name, type: "text", config: { entries } });
  }

  createWebSource(name: string, config: Record<string, unknown>): Promise<DataSource> {
    return this.json<DataSource>("POST", "/data-sources/", { name, type: "web", config });
  }

  /** Creates a `file` source with a multipart upload of the given paths. */
  async createFileSource(name: string, paths: string[], mime = "application/pdf"): Promise<DataSource> {
    const form = new FormData();
    form.set("name", name);
    form.set("type", "file");
    for (const path of paths) {
      form.append("files", new Blob([readFileSync(path)], { type: mime }), basename(path));
    }
    const res = await fetch(`${this.api}/data-sources/`, {
      method: "POST",
      headers: { Authorization: `Bearer ${this.token}` },
      body: form,
    });
    const text = await res.text();
    if (!res.ok) throw new ApiError(res.status, text, "POST /data-sources/ (multipart)");
    return JSON.parse(text) as DataSource;
  }

  getSource(id: string): Promise<DataSource> {
    return this.json<DataSource>("GET", `/data-sources/${id}/`);
  }

  /** Polls a source until `ready` (throws on `failed` or timeout). */
  async waitReady(id: string, timeoutMs = 30 * 60_000, pollMs = 250): Promise<DataSource> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const source = await this.getSource(id);
      if (source.status === "ready") return source;
      if (source.status === "failed") throw new Error(`source ${id} failed: ${source.lastError ?? "?"}`);
      if (Date.now() > deadline)
        throw new Error(`source ${id} not ready after ${timeoutMs} ms (${source.status})`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  /** Every item of a paginated list, following `next` from the first page. */
  async all<T>(path: string): Promise<T[]> {
    const out: T[] = [];
    let next: string | null = path;
    while (next) {
      const page: Page<T> = await this.json<Page<T>>("GET", next);
      out.push(...page.results);
      next = page.next;
    }
    return out;
  }

  documents(sourceId: string): Promise<DocumentInfo[]> {
    return this.all<DocumentInfo>(`/data-sources/${sourceId}/documents/?page_size=100`);
  }

  dataSources(): Promise<DataSource[]> {
    return this.all<DataSource>("/data-sources/?page_size=100");
  }

  search(agentId: string, query: string, topK: number, mode?: RetrievalMode): Promise<SearchResponse> {
    return this.json<SearchResponse>("POST", `/agents/${agentId}/search/`, {
      query,
      topK,
      ...(mode ? { mode } : {}),
    });
  }

  query(agentId: string, message: string, conversationId?: string): Promise<QueryResponse> {
    return this.json<QueryResponse>("POST", `/agents/${agentId}/query/`, {
      message,
      ...(conversationId ? { conversationId } : {}),
    });
  }
}

export type { Citation };
