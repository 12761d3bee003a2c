// The console's API client: the access token in memory only (the refresh token is an HttpOnly
// cookie no script reads, shared by every tab: docs/api.md, "Browser sessions"), one refresh on 401
// token_expired, errors as ApiError. Answer streams are read with the widget's SSE reader (@lore/shared/sse).
import type { AnswerEvent, Page, SessionResponse } from "@lore/shared";
import { readAnswerEvents } from "@lore/shared/sse";

export const apiPrefix = (() => {
  const value = document.body.dataset.apiPrefix ?? "";
  // The raw template (vite's dev server) still holds the placeholder.
  return value && !value.startsWith("{{") ? value : "/api";
})();
export type Session = SessionResponse;

/** An API error body, kept whole so forms can show `details.fields` beside their inputs. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** The request's path, for sentences that name what the form edits. */
    readonly path = "",
  ) {
    super(message);
    this.name = "ApiError";
  }

  get fields(): Record<string, string[]> {
    const fields = this.details.fields;
    return fields && typeof fields === "object" ? (fields as Record<string, string[]>) : {};
  }
}

let current: Session | null = null;

export function loadSession(): Session | null {
  return current;
}

export function saveSession(session: Session | null): void {
  current = session;
}

let onSignedOut: (() => void) | null = null;
/** Called when the session cannot be refreshed any more (the console shows the login form). */
export function setSignedOutHandler(handler: () => void): void {
  onSignedOut = handler;
}

let refreshing: Promise<Session | null> | null = null;

/**
 * A new access token from the session cookie (a new tab, a reload, an expired token); null when
 * there is no session. Concurrent callers share one request.
 */
export function refreshSession(): Promise<Session | null> {
  refreshing ??= (async () => {
    const res = await fetch(`${apiPrefix}/auth/session/refresh/`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: "{}",
    });
    if (res.status === 401) return null;
    if (!res.ok) throw await toError(res);
    current = (await res.json()) as Session;
    return current;
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

async function toError(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as {
    error?: unknown;
    message?: unknown;
    details?: Record<string, unknown>;
  } | null;
  if (typeof body?.error !== "string") {
    return new ApiError(res.status, "http_error", `The server answered ${res.status} ${res.statusText}`);
  }
  const path = res.url ? new URL(res.url).pathname : "";
  return new ApiError(res.status, body.error, String(body.message ?? body.error), body.details ?? {}, path);
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  auth?: boolean;
}

/** Sends one request; `body` objects go as JSON, FormData as multipart. Throws ApiError unless 2xx. */
export async function request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const send = () => {
    const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
    const session = loadSession();
    if (options.auth !== false && session) headers.Authorization = `Bearer ${session.access}`;
    let body: BodyInit | undefined;
    if (options.body instanceof FormData) body = options.body;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["Content-Type"] = "application/json";
    }
    return fetch(`${apiPrefix}${path}`, { method, headers, body, signal: options.signal });
  };
  let res = await send();
  if (res.status === 401 && options.auth !== false) {
    const first = await toError(res);
    const renewed = first.code === "token_expired" && (await refreshSession().catch(() => null)) !== null;
    if (renewed) res = await send();
    if (!renewed || res.status === 401) {
      const error = renewed ? await toError(res) : first;
      if (renewed || error.code === "token_expired" || error.code === "invalid_token") {
        saveSession(null);
        onSignedOut?.();
      }
      throw error;
    }
  }
  if (!res.ok) throw await toError(res);
  return res;
}

/** A JSON request; null for 204. */
export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const res = await request(method, path, options);
  if (res.status === 204) return null as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : null) as T;
}

/** Every page of a paginated list (at most 50 pages of 100). */
export async function listAll<T>(path: string): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; page <= 50; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const body = await api<Page<T>>("GET", `${path}${sep}page=${page}&page_size=100`);
    all.push(...body.results);
    if (!body.next) break;
  }
  return all;
}

/** Asks an agent with a streamed answer; resolves once the stream starts. */
export async function streamAnswer(
  agentId: string,
  body: { message: string; conversationId?: string },
  signal: AbortSignal,
): Promise<AsyncGenerator<AnswerEvent>> {
  const res = await request("POST", `/agents/${agentId}/query/`, {
    // The owner's own test question: left out of the review queue and analytics by default.
    body: { ...body, channel: "console" },
    headers: { Accept: "text/event-stream" },
    signal,
  });
  if (!res.body) throw new ApiError(502, "no_stream", "The server sent no answer stream");
  return readAnswerEvents(res.body);
}

/** The message of any thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
