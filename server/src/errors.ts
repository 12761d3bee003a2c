import type { ErrorBody, ErrorCode, OpenAIErrorBody } from "@lore/shared";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { type StorageState, storageStateOf } from "./store/storage-health.ts";

export const statusByCode = {
  validation_error: 400,
  not_authenticated: 401,
  invalid_token: 401,
  token_expired: 401,
  invalid_api_key: 401,
  invalid_credentials: 401,
  permission_denied: 403,
  https_required: 403,
  origin_not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  upstream_error: 502,
  agent_processing: 503,
  service_unavailable: 503,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

/** A presented credential that is bad (RFC 6750's `invalid_token`), as opposed to none at all. */
const badTokenCodes = new Set<ErrorCode>(["invalid_token", "token_expired", "invalid_api_key"]);

/** The challenge every 401 carries (RFC 9110 §11.6.1), in RFC 6750's Bearer form. */
export function bearerChallenge(code: ErrorCode): string {
  return badTokenCodes.has(code) ? 'Bearer realm="lore", error="invalid_token"' : 'Bearer realm="lore"';
}

/** A failure a client can act on: rendered as `{error, message, details}` with the code's status. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
    this.headers =
      statusByCode[code] === 401 ? { "WWW-Authenticate": bearerChallenge(code), ...headers } : headers;
  }

  get status(): ContentfulStatusCode {
    return statusByCode[this.code];
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, details: this.details };
  }

  /** The body on the OpenAI-compatible routes: `{error: {message, type, code, param}}`, as the SDKs read it. */
  toOpenAiBody(): OpenAIErrorBody {
    const fields = this.details.fields;
    const param =
      this.code === "validation_error" && typeof fields === "object" && fields !== null
        ? (Object.keys(fields)[0] ?? null)
        : null;
    return {
      error: {
        message: this.message,
        type: openAiErrorType(this.status),
        code: this.code,
        param,
        details: this.details,
      },
    };
  }
}

/** OpenAI's error type for a status, as its SDKs and docs pair them. */
function openAiErrorType(status: number): OpenAIErrorBody["error"]["type"] {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function notFound(resource: string, id: string): AppError {
  return new AppError("not_found", `${resource} not found`, { resource, id });
}

/** A zod issue list as `details.fields`: `{ "retrieval.topK": ["must be ≤ 50"] }`. */
export function validationError(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; keys?: readonly string[] }>,
  message = "The request is invalid",
): AppError {
  const fields: Record<string, string[]> = {};
  const add = (key: string, text: string) => {
    // Own keys only: a field named "toString" must not find Object.prototype's (found by fuzzing).
    const list = Object.hasOwn(fields, key) ? (fields[key] ?? []) : [];
    list.push(text);
    fields[key] = list;
  };
  for (const issue of issues) {
    const at = issue.path.map(String);
    // An unknown field (strict objects) is named itself, not reported against its parent.
    if (issue.keys && issue.keys.length > 0)
      for (const k of issue.keys) add([...at, k].join("."), "unknown field");
    else add(at.join(".") || "body", issue.message);
  }
  return new AppError("validation_error", message, { fields });
}

const STORAGE_WORDS: Record<StorageState, string> = {
  ok: "cannot be written right now",
  full: "cannot be written right now: the disk is full",
  "read-only": "cannot be written right now: the disk is read-only",
  missing: "cannot be written right now: the data directory is missing",
};

/** 503 for a write refused while the data directory's disk is full, read-only or gone (`details.state` says which). */
export function storageUnavailable(state: StorageState): AppError {
  return new AppError(
    "service_unavailable",
    `The data store ${STORAGE_WORDS[state]}. Reads still work; try the write again later.`,
    { reason: "storage_unavailable", state },
    { "Retry-After": "30" },
  );
}

/** A write the disk refused (full, read-only, over quota) as 503 `service_unavailable`; null for anything else. */
export function storageFailure(error: unknown): AppError | null {
  const state = storageStateOf(error);
  return state ? storageUnavailable(state) : null;
}

/**
 * A message for clients with this machine's file paths taken out (a LanceDB error names
 * `/usr/local/cargo/...` and data files); URLs stay as they are.
 */
export function withoutPaths(message: string): string {
  return message.replace(/(?<![\w:/.])(?:\/[\w.@+~-]+){2,}\/?/g, "<path>");
}

/** Parses `data` with `schema`, or throws the contract's `validation_error` naming each bad field. */
export function parseWith<S extends z.ZodTypeAny>(schema: S, data: unknown, message?: string): z.infer<S> {
  const result = schema.safeParse(data);
  if (!result.success) throw validationError(result.error.issues, message);
  return result.data;
}
