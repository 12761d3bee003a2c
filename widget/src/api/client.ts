import type {
  AnswerEvent,
  FeedbackReason,
  VisitorTranscript,
  WidgetConfig,
  WidgetFirstHandoffRequest,
  WidgetFirstHandoffResponse,
  WidgetQueryRequest,
} from "@lore/shared";
import { readAnswerEvents } from "./sse.ts";

/** An error response of the widget API: its status, machine code and the Retry-After seconds. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter: number | null,
    /** A 400's `details.fields`: the messages per field. */
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export type FetchFn = (input: string, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  server: string;
  widgetId: string;
  fetch: FetchFn;
  /** Base path of the API on the server; the server's LORE_API_PREFIX. */
  apiPrefix?: string;
  /** The config the loader already requested, used once instead of a new request. */
  prefetchedConfig?: Promise<PrefetchedConfig>;
}

/** A config response the loader read (it needed the theme before this bundle loaded), and its body. */
export interface PrefetchedConfig {
  response: Response;
  body: unknown;
}

export interface WidgetClient {
  getConfig(signal?: AbortSignal): Promise<WidgetConfig>;
  /** Posts a question; resolves once the stream starts, then yields its events. */
  query(body: WidgetQueryRequest, signal: AbortSignal): Promise<AsyncGenerator<AnswerEvent>>;
  sendFeedback(
    messageId: string,
    body: { rating: "up" | "down"; comment?: string; reason?: FeedbackReason; visitorToken?: string },
  ): Promise<void>;
  /**
   * The visitor's contact request on their conversation, or, with none yet, one that starts it (the
   * response then names it and carries the visitor token).
   */
  sendHandoff(
    conversationId: string | null,
    body: WidgetFirstHandoffRequest,
  ): Promise<WidgetFirstHandoffResponse>;
  /** The visitor's own conversation as the server stored it. */
  getConversation(conversationId: string, visitorToken: string): Promise<VisitorTranscript>;
}

export function createClient(options: ClientOptions): WidgetClient {
  const prefix = (options.apiPrefix ?? "/api").replace(/\/+$/, "");
  const base = `${options.server.replace(/\/+$/, "")}${prefix}/widget/${encodeURIComponent(options.widgetId)}`;
  let prefetched = options.prefetchedConfig;
  const json = { "Content-Type": "application/json" };
  // The widget never sends cookies: it holds no session, only the visitor token in the body.
  const call = (path: string, init: RequestInit) =>
    options.fetch(`${base}${path}`, { credentials: "omit", ...init });

  return {
    async getConfig(signal) {
      const early = prefetched;
      prefetched = undefined;
      if (early) {
        const { response, body } = await early;
        if (response.ok && body) return body as WidgetConfig;
        throw apiError(response.status, "", body, response.headers.get("Retry-After"));
      }
      const response = await call("/config/", { signal, headers: { Accept: "application/json" } });
      await throwIfError(response);
      return (await response.json()) as WidgetConfig;
    },
    async query(body, signal) {
      const response = await call("/query/", {
        method: "POST",
        signal,
        headers: { ...json, Accept: "text/event-stream" },
        body: JSON.stringify(body),
      });
      await throwIfError(response);
      if (!response.body) throw new ApiError(response.status, "internal_error", "Empty response", null);
      return readAnswerEvents(response.body);
    },
    async sendFeedback(messageId, body) {
      const response = await call(`/messages/${encodeURIComponent(messageId)}/feedback/`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(body),
      });
      await throwIfError(response);
    },
    async sendHandoff(conversationId, body) {
      const at = conversationId ? `/conversations/${encodeURIComponent(conversationId)}` : "";
      const response = await call(`${at}/handoff/`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(body),
      });
      await throwIfError(response);
      return response.json();
    },
    async getConversation(conversationId, visitorToken) {
      const response = await call(`/conversations/${encodeURIComponent(conversationId)}/`, {
        method: "POST",
        headers: { ...json, Accept: "application/json" },
        body: JSON.stringify({ visitorToken }),
      });
      await throwIfError(response);
      return (await response.json()) as VisitorTranscript;
    },
  };
}

async function throwIfError(response: Response): Promise<void> {
  if (response.ok) return;
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's error page): the status alone decides.
  }
  throw apiError(response.status, response.statusText, body, response.headers.get("Retry-After"));
}

/** An ApiError from a status and an error body `{error, message}`, whatever the body turned out to be. */
function apiError(status: number, statusText: string, body: unknown, retryAfter: string | null): ApiError {
  let code = status === 429 ? "rate_limited" : status >= 500 || status === 0 ? "internal_error" : "unknown";
  let message = statusText;
  let fields: Record<string, string[]> = {};
  if (typeof body === "object" && body !== null) {
    if ("error" in body && typeof body.error === "string") code = body.error;
    if ("message" in body && typeof body.message === "string") message = body.message;
    const details = "details" in body ? (body.details as { fields?: unknown } | null) : null;
    if (details && typeof details.fields === "object" && details.fields)
      fields = details.fields as Record<string, string[]>;
  }
  return new ApiError(status, code, message, parseRetryAfter(retryAfter), fields);
}

/** Retry-After as seconds; the header may hold seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}
