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

/** `GET /models/?workspace_id=`: with the workspace's own model server when the environment names none. */
export const modelsQuerySchema = z.object({
  workspace_id: z.string().uuid().optional().openapi({
    description:
      "also list the models of this workspace's model server (when `LORE_OPENAI_BASE_URL` is unset)",
  }),
});

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
    translation: z
      .object({
        dictionaries: z.array(z.string()).openapi({
          description:
            "languages (ISO 639-1) with a compiled dictionary (`LORE_DICTIONARIES_DIR`): their questions are translated into the documents' English for retrieval without a chat model",
        }),
        missing: z.array(z.string()).openapi({
          description:
            "languages visitors asked in since the server started that have no dictionary: those questions were searched as written",
        }),
      })
      .openapi({ description: "questions in another language than the documents' (docs/operations.md)" }),
  })
  .openapi("Models");
export type ModelsResponse = z.infer<typeof modelsResponseSchema>;

/** Who answers a workspace's `openai:<model>` agents when the server's environment names no model server. */
export const modelProviderKindSchema = z.enum(["none", "openai", "compatible"]);
export type ModelProviderKind = z.infer<typeof modelProviderKindSchema>;

/** `GET /workspaces/{workspaceId}/model-provider/`: the workspace's model server, its key masked. */
export const modelProviderSchema = z
  .object({
    kind: modelProviderKindSchema.openapi({
      description:
        "`none`: no model server; `openai`: api.openai.com; `compatible`: any OpenAI-compatible `baseUrl`",
    }),
    baseUrl: z.string().nullable().openapi({ description: "the server's API base including `/v1`" }),
    apiKey: z.string().nullable().openapi({ description: "masked (`sk-proj…abcd`); stored encrypted" }),
    environment: z.boolean().openapi({
      description:
        "`LORE_OPENAI_BASE_URL` is set: the server's own model server answers and this setting waits",
    }),
    updatedAt: z.string().nullable(),
  })
  .openapi("ModelProvider");
export type ModelProvider = z.infer<typeof modelProviderSchema>;

/** `PUT /workspaces/{workspaceId}/model-provider/`; an omitted `apiKey` keeps the stored one. */
export const updateModelProviderRequestSchema = z
  .object({
    kind: modelProviderKindSchema,
    baseUrl: z.string().trim().max(2000).optional().openapi({ description: "`compatible` only (required)" }),
    apiKey: z.string().trim().max(1000).optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.kind === "compatible" && !value.baseUrl)
      ctx.addIssue({ code: "custom", path: ["baseUrl"], message: "required for a compatible server" });
  })
  .openapi("UpdateModelProvider");
export type UpdateModelProviderRequest = z.infer<typeof updateModelProviderRequestSchema>;

/** `GET /workspaces/{workspaceId}/model-provider/models/`: the chat models the provider lists now. */
export const providerModelsSchema = z
  .object({ models: z.array(z.string()).openapi({ description: "model names, for `openai:<name>`" }) })
  .openapi("ProviderModels");
export type ProviderModels = z.infer<typeof providerModelsSchema>;

/** `POST /workspaces/{workspaceId}/model-provider/test/`: one question, straight to the model. */
export const testModelRequestSchema = z
  .object({
    model: z.string().trim().min(1).max(120),
    question: z.string().trim().min(1).max(500).default("Say hello in five words."),
  })
  .strict()
  .openapi("TestModel");
export type TestModelRequest = z.input<typeof testModelRequestSchema>;

export const testModelResponseSchema = z
  .object({ model: z.string(), answer: z.string(), latencyMs: z.number().int().nonnegative() })
  .openapi("TestModelResult");
export type TestModelResponse = z.infer<typeof testModelResponseSchema>;
