import { z } from "@hono/zod-openapi";

/** A chat model an agent's `model` setting may name. */
export const chatModelOptionSchema = z
  .object({
    id: z
      .string()
      .openapi({ description: "the value for an agent's `model`: `extractive` or `openai:<model>`" }),
    provider: z.enum(["builtin", "openai"]).openapi({
      description:
        "`builtin`: the extractive answerer in Lore itself; `openai`: the OpenAI-compatible model server",
    }),
  })
  .openapi("ChatModelOption");
export type ChatModelOption = z.infer<typeof chatModelOptionSchema>;

/** `GET /models/`: what this server can answer and search with. */
export const modelsResponseSchema = z
  .object({
    defaultModel: z.string().openapi({ description: "the model new agents get (`LORE_CHAT_MODEL`)" }),
    chat: z.array(chatModelOptionSchema).openapi({
      description:
        "`extractive` first, then `LORE_CHAT_MODEL` and the model server's chat models (embedding models left out)",
    }),
    modelServer: z.enum(["none", "listed", "unreachable"]).openapi({
      description:
        "`none`: no `LORE_OPENAI_BASE_URL`; `listed`: its `GET /models` answered; `unreachable`: it did not (the list then holds only the configured models)",
    }),
    embeddings: z
      .object({
        available: z.boolean(),
        model: z.string().nullable().openapi({ description: "`LORE_EMBEDDING_MODEL`; null when unset" }),
      })
      .openapi({
        description:
          "without an embedding model every retrieval mode runs as `keyword` (an agent's `effectiveRetrievalMode`)",
      }),
  })
  .openapi("Models");
export type ModelsResponse = z.infer<typeof modelsResponseSchema>;
