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
  checkJsonShape(text);
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

/** Nesting and members per object or array that a body may have: no route's schema needs more. */
export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_MEMBERS = 20_000;

/**
 * Bounds a body's shape before JSON.parse builds it (issue #49: 600,000 keys held the event loop
 * 1.3 s before validation refused them): one pass over the text outside strings counts the depth
 * and the members of each open object or array; 400 past MAX_JSON_DEPTH or MAX_JSON_MEMBERS.
 */
export function checkJsonShape(text: string): void {
  const members: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (members.length >= MAX_JSON_DEPTH) throw shapeError(`nested deeper than ${MAX_JSON_DEPTH} levels`);
      members.push(1);
    } else if (c === 0x7d || c === 0x5d) members.pop();
    else if (c === 0x2c && members.length > 0) {
      const top = members.length - 1;
      const count = (members[top] ?? 0) + 1;
      if (count > MAX_JSON_MEMBERS)
        throw shapeError(`more than ${MAX_JSON_MEMBERS} members in one object or array`);
      members[top] = count;
    }
  }
}

const shapeError = (problem: string) =>
  new AppError("validation_error", "The body's JSON is too large in shape", { fields: { body: [problem] } });

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
