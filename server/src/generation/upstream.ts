import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { AppError } from "../errors.ts";

/** Why a call to a model endpoint failed, in words an owner can act on. */
export type UpstreamFailure =
  | { kind: "status"; status: number; retryAfterMs: number | null; message: string }
  | { kind: "unreachable"; message: string }
  | { kind: "timeout"; phase: "first_token" | "total" }
  | { kind: "broken"; message: string };

/** Classifies an error thrown by the openai SDK (or by fetch underneath it). */
export function classifyUpstreamError(
  error: unknown,
  timedOut: "first_token" | "total" | null,
): UpstreamFailure {
  if (timedOut) return { kind: "timeout", phase: timedOut };
  if (error instanceof APIUserAbortError) return { kind: "broken", message: "the request was aborted" };
  if (error instanceof APIConnectionError) return { kind: "unreachable", message: error.message };
  if (error instanceof APIError && typeof error.status === "number") {
    return {
      kind: "status",
      status: error.status,
      retryAfterMs: retryAfterMs(error.headers),
      message: error.message,
    };
  }
  return { kind: "broken", message: error instanceof Error ? error.message : String(error) };
}

/** Connection failures, timeouts, 408/409/429 and 5xx are worth another try; 4xx are not. */
export function isRetryable(failure: UpstreamFailure): boolean {
  switch (failure.kind) {
    case "status":
      return (
        failure.status === 408 || failure.status === 409 || failure.status === 429 || failure.status >= 500
      );
    case "unreachable":
      return true;
    case "timeout":
      return failure.phase === "first_token";
    case "broken":
      return false;
    default:
      return failure satisfies never;
  }
}

/** `Retry-After` (seconds or HTTP date) or `retry-after-ms`, in milliseconds. */
export function retryAfterMs(headers: Headers | undefined): number | null {
  if (!headers) return null;
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.has("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/** Exponential backoff with a little jitter, or the server's Retry-After, capped. */
export function retryDelayMs(failure: UpstreamFailure, attempt: number, capMs: number): number {
  const asked = failure.kind === "status" ? failure.retryAfterMs : null;
  if (asked !== null) return Math.min(asked, capMs);
  const base = 250 * 2 ** attempt;
  return Math.min(capMs, base * (0.8 + Math.random() * 0.4));
}

/** Resolves after `ms`, or early (without throwing) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** The 502 a client sees; the upstream status and reason go to `details`, never a secret. */
export function toUpstreamError(failure: UpstreamFailure, what: string): AppError {
  switch (failure.kind) {
    case "status":
      return new AppError("upstream_error", `${what} answered with status ${failure.status}`, {
        reason: "status",
        status: failure.status,
      });
    case "unreachable":
      return new AppError("upstream_error", `${what} could not be reached`, { reason: "unreachable" });
    case "timeout":
      return new AppError(
        "upstream_error",
        failure.phase === "first_token" ? `${what} sent nothing in time` : `${what} did not finish in time`,
        { reason: failure.phase === "first_token" ? "first_token_timeout" : "timeout" },
      );
    case "broken":
      return new AppError("upstream_error", `${what} failed: ${failure.message}`, { reason: "broken" });
    default:
      return failure satisfies never;
  }
}
