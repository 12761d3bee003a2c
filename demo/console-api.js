// The console's API client: tokens in sessionStorage, one refresh on 401 token_expired, errors as ApiError.

import { readSseData } from "./sse.js";

const prefix = document.body.dataset.apiPrefix || "/api";
const KEY = "lore.console.session";

/**
 * @typedef {{ access: string, refresh: string, user: { id: string, email: string, firstName: string, lastName: string } }} Session
 * @typedef {{ error: string, message: string, details: Record<string, unknown> }} ErrorBody
 */

/** An API error body, kept whole so forms can show `details.fields` beside their inputs. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {ErrorBody} body
   */
  constructor(status, body) {
    super(body.message);
    this.name = "ApiError";
    this.status = status;
    this.code = body.error;
    this.details = body.details ?? {};
  }

  /** @returns {Record<string, string[]>} */
  get fields() {
    const fields = this.details.fields;
    return fields && typeof fields === "object" ? /** @type {Record<string, string[]>} */ (fields) : {};
  }
}

/** @returns {Session | null} */
export function loadSession() {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

/** @param {Session | null} session */
export function saveSession(session) {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}

/** @type {(() => void) | null} */
let onSignedOut = null;
/** Called when the session cannot be refreshed any more (the console shows the login form). */
export function setSignedOutHandler(/** @type {() => void} */ handler) {
  onSignedOut = handler;
}

/** @type {Promise<boolean> | null} */
let refreshing = null;

/** Trades the refresh token for a new access token; concurrent callers share one request. */
async function refreshTokens() {
  refreshing ??= (async () => {
    const session = loadSession();
    if (!session) return false;
    const res = await fetch(`${prefix}/auth/token/refresh/`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ refresh: session.refresh }),
    });
    if (!res.ok) return false;
    const body = await res.json();
    saveSession({ ...session, access: body.access, refresh: body.refresh ?? session.refresh });
    return true;
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/**
 * @param {Response} res
 * @returns {Promise<ApiError>}
 */
async function toError(res) {
  let body;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (!body || typeof body.error !== "string") {
    body = {
      error: "http_error",
      message: `The server answered ${res.status} ${res.statusText}`,
      details: {},
    };
  }
  return new ApiError(res.status, body);
}

/**
 * Sends one request to the API. `body` objects go as JSON, FormData as multipart.
 * Returns the raw Response when `raw` is set (for streams), else the parsed JSON (null for 204).
 * @param {string} method
 * @param {string} path relative to the API prefix, e.g. "/agents/"
 * @param {{ body?: unknown, headers?: Record<string, string>, signal?: AbortSignal, raw?: boolean, auth?: boolean }} [options]
 * @returns {Promise<any>}
 */
export async function api(method, path, options = {}) {
  const send = () => {
    /** @type {Record<string, string>} */
    const headers = { Accept: "application/json", ...options.headers };
    const session = loadSession();
    if (options.auth !== false && session) headers.Authorization = `Bearer ${session.access}`;
    /** @type {BodyInit | undefined} */
    let body;
    if (options.body instanceof FormData) body = options.body;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["Content-Type"] = "application/json";
    }
    return fetch(`${prefix}${path}`, { method, headers, body, signal: options.signal });
  };
  let res = await send();
  if (res.status === 401 && options.auth !== false) {
    const error = await toError(res);
    if (error.code === "token_expired" && (await refreshTokens())) res = await send();
    else {
      if (error.code === "token_expired" || error.code === "invalid_token") {
        saveSession(null);
        onSignedOut?.();
      }
      throw error;
    }
    if (res.status === 401) {
      saveSession(null);
      onSignedOut?.();
    }
  }
  if (!res.ok) throw await toError(res);
  if (options.raw) return res;
  if (res.status === 204) return null;
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

/** Every page of a paginated list. */
export async function listAll(/** @type {string} */ path) {
  /** @type {any[]} */
  const all = [];
  for (let page = 1; page <= 50; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const body = await api("GET", `${path}${sep}page=${page}&page_size=100`);
    all.push(...body.results);
    if (!body.next) break;
  }
  return all;
}

/**
 * Yields the JSON events of a server-sent event stream read from a fetch body.
 * @param {ReadableStream<Uint8Array>} stream
 */
export async function* readEvents(stream) {
  for await (const data of readSseData(stream)) yield JSON.parse(data);
}
