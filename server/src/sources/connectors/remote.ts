import type { Config } from "../../config.ts";
import { AppError } from "../../errors.ts";
import type { RawDocument } from "../documents.ts";

/** Web crawling through the outbound guard. */
export function createWebLister(_config: Config) {
  return async function* (_c: Record<string, unknown>, _signal: AbortSignal): AsyncIterable<RawDocument> {
    throw new AppError("service_unavailable", "Web sources are not wired yet");
  };
}

/** Notion through its official API. */
export function createNotionLister(_config: Config) {
  return async function* (_c: Record<string, unknown>, _signal: AbortSignal): AsyncIterable<RawDocument> {
    throw new AppError("service_unavailable", "Notion sources are not wired yet");
  };
}
