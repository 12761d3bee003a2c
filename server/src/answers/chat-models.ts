import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";
import { composeExtractiveAnswer, createExtractiveModel } from "../generation/extractive-model.ts";
import { createOpenAIChatModel } from "../generation/openai-model.ts";
import type { ChatModel } from "../generation/types.ts";
import type { ProviderConnection } from "../workspaces/model-provider-service.ts";

/** Where a workspace's `openai:` models are answered (the environment's server first), or null. */
export type ConnectionFor = (workspaceId: string) => ProviderConnection | null;

/**
 * The chat model for an agent's `model` setting in its workspace, built once per name and model
 * server: `LORE_OPENAI_BASE_URL` when set, else the workspace's own provider (set in the console).
 */
export function createModelRegistry(
  config: Pick<Config, "openai">,
  connectionFor: ConnectionFor = () =>
    config.openai.baseUrl
      ? { baseURL: config.openai.baseUrl, apiKey: config.openai.apiKey, version: "environment" }
      : null,
): (name: string, workspaceId: string) => ChatModel {
  const models = new Map<string, ChatModel>();
  const extractive = createDefaultAnswerer();
  return (name: string, workspaceId: string): ChatModel => {
    if (name === "extractive") return extractive;
    const connection = name.startsWith("openai:") ? connectionFor(workspaceId) : null;
    if (!connection)
      throw new AppError(
        "upstream_error",
        `The model ${name} has no model server: connect one in the console (Model) or set LORE_OPENAI_BASE_URL`,
      );
    const key = `${connection.version}|${name}`;
    const cached = models.get(key);
    if (cached) return cached;
    const model = createOpenAIChatModel({
      baseURL: connection.baseURL,
      apiKey: connection.apiKey,
      model: name.slice("openai:".length),
      timeoutMs: config.openai.timeoutMs,
    });
    models.set(key, model);
    return model;
  };
}

/** The extractive answerer as answers use it: with its closest passage for answers given with a doubt. */
export function createDefaultAnswerer(): ChatModel {
  return {
    ...createExtractiveModel(),
    closestPassage: (question, chunks) =>
      composeExtractiveAnswer(question, chunks, "", { relevanceFloor: 0 }).answer,
  };
}
