import type { Context } from "hono";
import { AppError } from "../errors.ts";

export interface UploadedPart {
  name: string;
  type: string;
  bytes: Uint8Array;
}

export function isMultipart(c: Context): boolean {
  return (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
}

/** Reads a multipart form: its text fields and every `files` part (at least one). */
export async function readMultipart(
  c: Context,
): Promise<{ fields: Record<string, string>; files: UploadedPart[] }> {
  let form: Record<string, string | File | (string | File)[]>;
  try {
    form = await c.req.parseBody({ all: true });
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("validation_error", "The multipart body could not be read", {
      fields: { body: ["malformed multipart"] },
    });
  }
  const fields: Record<string, string> = {};
  const files: UploadedPart[] = [];
  for (const [key, value] of Object.entries(form)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === "string") fields[key] = item;
      else if (key === "files" || key === "file" || key === "files[]") {
        files.push({
          name: item.name || "upload",
          type: item.type,
          bytes: new Uint8Array(await item.arrayBuffer()),
        });
      }
    }
  }
  if (files.length === 0) {
    throw new AppError("validation_error", "Attach at least one file as a 'files' part", {
      fields: { files: ["required"] },
    });
  }
  return { fields, files };
}
