import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";
import { composeExtractiveAnswer, createExtractiveModel } from "../generation/extractive-model.ts";
import { createOpenAIChatModel } from "../generation/openai-model.ts";
import type { ChatModel } from "../generation/types.ts";

/** The chat model for an agent's `model` setting, built once per name. */
export function createModelRegistry(config: Pick<Config, "openai">): (name: string) => ChatModel {
  const models = new Map<string, ChatModel>();
  return (name: string): ChatModel => {
    const cached = models.get(name);
    if (cached) return cached;
    let model: ChatModel;
    if (name === "extractive") {
      model = createDefaultAnswerer();
    } else if (name.startsWith("openai:") && config.openai.baseUrl) {
      model = createOpenAIChatModel({
        baseURL: config.openai.baseUrl,
        apiKey: config.openai.apiKey,
        model: name.slice("openai:".length),
        timeoutMs: config.openai.timeoutMs,
      });
    } else {
      throw new AppError(
        "upstream_error",
        `The model ${name} is not configured on this server (set LORE_OPENAI_BASE_URL)`,
      );
    }
    models.set(name, model);
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
