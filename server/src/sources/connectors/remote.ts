import { notionConfigSchema, webConfigSchema } from "@lore/shared";
import type { Config } from "../../config.ts";
import { createGuardedFetch } from "../../net/outbound.ts";
import type { RawDocument } from "../documents.ts";
import { readNotion } from "./notion.ts";
import { crawlWeb } from "./web.ts";

/** Web crawling; every fetch passes the outbound guard (checked after DNS and on each redirect). */
export function createWebLister(config: Config) {
  const fetch = createGuardedFetch({ allowlist: config.outboundAllowlist });
  return (raw: Record<string, unknown>, signal: AbortSignal): AsyncIterable<RawDocument> =>
    crawlWeb(webConfigSchema.parse(raw), { fetch, signal, delayMs: config.webDelayMs });
}

/** Notion through its official API (a fixed third-party host, configurable for tests). */
export function createNotionLister(config: Config) {
  return (raw: Record<string, unknown>, signal: AbortSignal): AsyncIterable<RawDocument> =>
    readNotion(notionConfigSchema.parse(raw), { baseUrl: config.notionBaseUrl, signal });
}
