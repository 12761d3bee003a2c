/**
 * Helpers for ingestion and answer tests: create sources and agents over HTTP, wait for syncs,
 * and read an SSE answer stream event by event with arrival times.
 */
import {
  type Agent,
  type AnswerEvent,
  answerEventSchema,
  type DataSource,
  type Page,
  type SearchResponse,
  type SourceDocument,
  type SyncRun,
} from "@lore/shared";
import { expect } from "vitest";
import { httpRequest, type TestResponse } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";

/** Anything with an API base URL: an in-process TestServer or a ServerProcess. */
export interface ApiTarget {
  api: string;
}

export interface Entry {
  title: string;
  content: string;
}

export function call<T = unknown>(
  target: ApiTarget,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<TestResponse<T>> {
  return httpRequest<T>(target.api, method, path, { token, body, headers });
}

export async function createTextSource(
  target: ApiTarget,
  token: string,
  name: string,
  entries: Entry[],
  extra: Record<string, unknown> = {},
): Promise<DataSource> {
  const res = await call<DataSource>(target, "POST", "/data-sources/", token, {
    name,
    type: "text",
    config: { entries },
    ...extra,
  });
  if (res.status !== 201) throw new Error(`create source failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Multipart upload of a new file source. */
export async function createFileSource(
  target: ApiTarget,
  token: string,
  name: string,
  files: Array<{ name: string; bytes: Uint8Array | string; type?: string }>,
): Promise<TestResponse<DataSource>> {
  const form = new FormData();
  form.set("name", name);
  form.set("type", "file");
  for (const f of files)
    form.append(
      "files",
      new Blob([typeof f.bytes === "string" ? f.bytes : new Uint8Array(f.bytes)], { type: f.type ?? "" }),
      f.name,
    );
  return httpRequest<DataSource>(target.api, "POST", "/data-sources/", { token, body: form });
}

export async function getSource(target: ApiTarget, token: string, id: string): Promise<DataSource> {
  const res = await call<DataSource>(target, "GET", `/data-sources/${id}/`, token);
  if (res.status !== 200) throw new Error(`get source failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function syncRuns(target: ApiTarget, token: string, id: string): Promise<SyncRun[]> {
  const res = await call<Page<SyncRun>>(target, "GET", `/data-sources/${id}/syncs/?page_size=100`, token);
  if (res.status !== 200) throw new Error(`syncs failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.results;
}

/** Every document of a source, page by page. */
export async function documents(target: ApiTarget, token: string, id: string): Promise<SourceDocument[]> {
  const out: SourceDocument[] = [];
  for (let page = 1; ; page++) {
    const res = await call<Page<SourceDocument>>(
      target,
      "GET",
      `/data-sources/${id}/documents/?page=${page}&page_size=100`,
      token,
    );
    if (res.status !== 200) throw new Error(`documents failed: ${res.status} ${JSON.stringify(res.body)}`);
    out.push(...res.body.results);
    if (!res.body.next) return out;
  }
}

/** Polls until no sync of the source is queued or running, then returns the source. */
export async function waitForSettled(
  target: ApiTarget,
  token: string,
  id: string,
  timeoutMs = 30_000,
): Promise<DataSource> {
  let last: unknown;
  return until(
    async () => {
      const runs = await syncRuns(target, token, id);
      const source = await getSource(target, token, id);
      last = { status: source.status, progress: source.progress, runs };
      const active = runs.some((r) => r.status === "queued" || r.status === "running");
      return !active && (source.status === "ready" || source.status === "failed") && source;
    },
    { timeout: timeoutMs, interval: 40, what: () => `source ${id} to settle: ${JSON.stringify(last)}` },
  );
}

/** Creates a text source and waits for it to be ready. */
export async function readyTextSource(
  target: ApiTarget,
  token: string,
  name: string,
  entries: Entry[],
): Promise<DataSource> {
  const created = await createTextSource(target, token, name, entries);
  const source = await waitForSettled(target, token, created.id);
  expect(source.status).toBe("ready");
  return source;
}

export async function createAgent(
  target: ApiTarget,
  token: string,
  body: Record<string, unknown>,
): Promise<Agent> {
  const res = await call<Agent>(target, "POST", "/agents/", token, { name: "Test agent", ...body });
  if (res.status !== 201) throw new Error(`create agent failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function search(
  target: ApiTarget,
  token: string,
  agentId: string,
  query: string,
  extra: Record<string, unknown> = {},
): Promise<SearchResponse> {
  const res = await call<SearchResponse>(target, "POST", `/agents/${agentId}/search/`, token, {
    query,
    topK: 100,
    ...extra,
  });
  if (res.status !== 200) throw new Error(`search failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface TimedEvent {
  event: AnswerEvent;
  /** ms since the request was sent. */
  at: number;
}

export interface SseResult {
  response: Response;
  events: TimedEvent[];
  /** Raw `data:` payloads and comments, in order. */
  raw: string[];
}

/** Reads a whole SSE body, parsing every `data:` line as an AnswerEvent (validated). */
export async function readSse(
  response: Response,
  started: number,
  onEvent?: (e: TimedEvent) => boolean | undefined,
): Promise<SseResult> {
  const events: TimedEvent[] = [];
  const raw: string[] = [];
  const reader = response.body?.getReader();
  if (!reader) throw new Error("no body");
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf("\n\n");
      for (const line of block.split("\n")) {
        raw.push(line);
        if (!line.startsWith("data: ")) continue;
        const payload = line.slice(6);
        if (payload === "[DONE]") continue;
        const parsed = answerEventSchema.safeParse(JSON.parse(payload));
        if (!parsed.success) throw new Error(`invalid SSE event ${payload}: ${parsed.error.message}`);
        const timed = { event: parsed.data, at: performance.now() - started };
        events.push(timed);
        if (onEvent?.(timed) === true) {
          await reader.cancel();
          return { response, events, raw };
        }
      }
    }
  }
  return { response, events, raw };
}

/** POSTs a query asking for SSE and reads the stream. */
export async function streamQuery(
  url: string,
  token: string | null,
  body: unknown,
  options: {
    headers?: Record<string, string>;
    signal?: AbortSignal;
    onEvent?: (e: TimedEvent) => boolean | undefined;
  } = {},
): Promise<SseResult> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "text/event-stream",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify(body),
    signal: options.signal,
  });
  if (response.status !== 200) return { response, events: [], raw: [await response.text()] };
  return readSse(response, started, options.onEvent);
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? Number.NaN;
}
