import type { Context } from "hono";
import type { z } from "zod";
import { AppError, parseWith } from "../errors.ts";

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** Reads a JSON body (415 for another content type, 400 for malformed JSON) and validates it. */
export async function readJson<S extends z.ZodTypeAny>(c: Context, schema: S): Promise<z.infer<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new AppError("unsupported_media_type", "Send the body as application/json", {
      received: type || null,
      supported: ["application/json"],
    });
  }
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("validation_error", "The request body could not be read", {
      fields: { body: ["unreadable"] },
    });
  }
  let text: string;
  try {
    // Fatal decoding: invalid UTF-8 is refused, not silently turned into U+FFFD (found by hostile-input tests).
    text = utf8.decode(bytes);
  } catch {
    throw new AppError("validation_error", "The body is not valid UTF-8", {
      fields: { body: ["invalid UTF-8"] },
    });
  }
  let data: unknown;
  try {
    data = text.trim() === "" ? {} : JSON.parse(text, rejectPollution);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("validation_error", "The body is not valid JSON", {
      fields: { body: ["malformed JSON"] },
    });
  }
  return parseWith(schema, data);
}

export function parseQuery<S extends z.ZodTypeAny>(c: Context, schema: S): z.infer<S> {
  return parseWith(schema, c.req.query(), "The query parameters are invalid");
}

// Keys that could reach Object.prototype are refused outright rather than silently dropped.
function rejectPollution(key: string, value: unknown): unknown {
  if (FORBIDDEN_KEYS.has(key)) {
    throw new AppError("validation_error", "The body contains a forbidden key", {
      fields: { [key]: ["forbidden key"] },
    });
  }
  // NUL characters are refused too: no text Lore stores or indexes needs them, and downstream tools choke on them.
  if ((typeof value === "string" && value.includes("\u0000")) || key.includes("\u0000")) {
    throw new AppError("validation_error", "The body contains a NUL character", {
      fields: { [key.replaceAll("\u0000", "\\u0000") || "body"]: ["must not contain NUL characters"] },
    });
  }
  return value;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path id that is not a UUID names nothing: 404 naming the resource. */
export function pathId(c: Context, name: string, resource: string): string {
  const id = c.req.param(name) ?? "";
  if (!UUID.test(id)) throw new AppError("not_found", `${resource} not found`, { resource, id });
  return id.toLowerCase();
}
