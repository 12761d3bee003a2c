import type { ChatModelOption, ModelsResponse } from "@lore/shared";
import OpenAI from "openai";
import type { Config } from "../config.ts";
import type { ModelProviderService } from "../workspaces/model-provider-service.ts";

const LISTED_FOR_MS = 60_000;
const RETRY_AFTER_MS = 10_000;
const LIST_TIMEOUT_MS = 5_000;
const MAX_LISTED = 200;
// Model servers list every model they hold; these kinds cannot answer a chat.
const NOT_CHAT = /embed|rerank|whisper|tts|dall-e|moderation|transcribe/i;

export interface ModelCatalog {
  /** What agents may answer and search with; the model server is asked at most once a minute. */
  list(): Promise<CatalogModels>;
}

/** The models of `LORE_CHAT_MODEL`, `LORE_EMBEDDING_MODEL` and the OpenAI-compatible server's `GET /models`. */
export function createModelCatalog(
  config: Pick<Config, "chatModel" | "embeddingModel" | "openai">,
  now: () => number = Date.now,
): ModelCatalog {
  const baseURL = config.openai.baseUrl;
  const client = baseURL
    ? new OpenAI({
        baseURL,
        apiKey: config.openai.apiKey || "not-needed",
        maxRetries: 0,
        timeout: Math.min(LIST_TIMEOUT_MS, config.openai.timeoutMs),
      })
    : null;
  const embeddingId = config.embeddingModel.startsWith("openai:")
    ? config.embeddingModel.slice("openai:".length)
    : null;
  let cached: { at: number; ttl: number; listed: string[] | null } | null = null;
  let pending: Promise<string[] | null> | null = null;

  const listServer = async (): Promise<string[] | null> => {
    if (!client) return null;
    if (cached && now() - cached.at < cached.ttl) return cached.listed;
    pending ??= client.models
      .list()
      .then((page) =>
        page.data
          .map((m) => m.id)
          .filter((id) => id !== embeddingId && !NOT_CHAT.test(id))
          .sort()
          .slice(0, MAX_LISTED),
      )
      .catch(() => null)
      .then((listed) => {
        cached = { at: now(), ttl: listed ? LISTED_FOR_MS : RETRY_AFTER_MS, listed };
        return listed;
      })
      .finally(() => {
        pending = null;
      });
    return pending;
  };

  return {
    async list() {
      const listed = await listServer();
      const ids = ["extractive", config.chatModel, ...(listed ?? []).map((id) => `openai:${id}`)];
      const chat: ChatModelOption[] = [...new Set(ids)].map((id) => ({
        id,
        provider: id === "extractive" ? "builtin" : "openai",
      }));
      return {
        defaultModel: config.chatModel,
        chat,
        modelServer: !client ? "none" : listed ? "listed" : "unreachable",
        embeddings: {
          available: config.embeddingModel !== "",
          model: config.embeddingModel || null,
        },
      };
    },
  };
}

/** What the catalog knows of `GET /models/`: all of it but the translation dictionaries (answers' own). */
export type CatalogModels = Omit<ModelsResponse, "translation">;

/** The list with a workspace's own model server's chat models (the environment names none). */
export async function withProviderModels(
  listed: CatalogModels,
  providers: Pick<ModelProviderService, "get" | "listModels">,
  workspaceId: string,
): Promise<CatalogModels> {
  if (providers.get(workspaceId).kind === "none") return listed;
  const found = await providers.listModels(workspaceId).catch(() => null);
  const ids = [...listed.chat.map((m) => m.id), ...(found?.models ?? []).map((id) => `openai:${id}`)];
  return {
    ...listed,
    chat: [...new Set(ids)].map((id) => ({ id, provider: id === "extractive" ? "builtin" : "openai" })),
    modelServer: found ? "listed" : "unreachable",
  };
}
