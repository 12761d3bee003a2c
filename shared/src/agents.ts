import { z } from "@hono/zod-openapi";
import { idSchema, pageQuerySchema } from "./common.ts";
import { handoffSettingSchema } from "./handoffs.ts";
import { normaliseOrigin, ORIGIN_HINT } from "./origins.ts";

export const retrievalModeSchema = z.enum(["hybrid", "semantic", "keyword"]);
export type RetrievalMode = z.infer<typeof retrievalModeSchema>;

export const retrievalSettingsSchema = z.object({
  topK: z.number().int().min(1).max(50),
  mode: retrievalModeSchema,
  minScore: z.number().min(0).max(1),
});

const colorSchema = z.string().regex(/^#[0-9a-fA-F]{3,8}$/, "must be a hex colour like #2563eb");

export const themeSchema = z
  .object({
    primaryColor: colorSchema,
    position: z.enum(["bottom-right", "bottom-left"]),
    title: z.string().max(80),
    avatarUrl: z.string().url().max(2000).nullable(),
    colorScheme: z.enum(["light", "dark", "auto"]),
    radius: z.number().int().min(0).max(32),
    zIndex: z.number().int().min(0).max(2147483647),
    launcherLabel: z
      .string()
      .max(40)
      .openapi({ description: "text beside the launcher's icon; empty: the icon alone" }),
    greeting: z.string().max(200).openapi({
      description:
        "a short line shown beside the launcher once per visit until opened or dismissed; empty: none",
    }),
  })
  .openapi("Theme");
export type Theme = z.infer<typeof themeSchema>;

export const agentStatusSchema = z.enum(["ready", "processing"]);

/** `extractive` (embedded default) or `openai:<model name>` for any OpenAI-compatible server. */
export const modelNameSchema = z
  .string()
  .regex(/^(extractive|openai:[\w.:/@-]{1,120})$/, "must be 'extractive' or 'openai:<model>'");

/** Languages Lore detects and answers in (ISO 639-1). */
export const answerLanguages = [
  "en",
  "es",
  "de",
  "fr",
  "pt",
  "it",
  "nl",
  "pl",
  "tr",
  "ru",
  "uk",
  "ar",
  "hi",
  "zh",
  "ja",
  "ko",
] as const;
export const answerLanguageSchema = z.enum(answerLanguages);

/**
 * When an agent states an answer, offers it with a doubt, or sends its fallback message: each level is
 * a pair of confidence thresholds (docs/operations.md has the trade-off table).
 */
export const answerPolicies = ["strict", "balanced", "lenient", "always"] as const;
export const answerPolicySchema = z.enum(answerPolicies).openapi({
  description:
    'two confidence thresholds: at or above `answer` the answer is stated (`answered`), at or above `doubt` it is offered with a doubt (`uncertain`), below it the fallback message is sent. `strict`: answer only when sure; `balanced` (default); `lenient`: state more answers, more of them wrong; `always`: always try, never the fallback while any source matches (docs/operations.md, "Answers", has the thresholds and their trade-off)',
});
export type AnswerPolicy = z.infer<typeof answerPolicySchema>;

/** An origin, a bare host (`example.com`, `127.0.0.1:8823`) or `*`; stored as the origin it means. */
export const originInputSchema = z
  .string()
  .max(300)
  .refine((value) => normaliseOrigin(value) !== null, ORIGIN_HINT)
  .openapi({
    description:
      "`https://example.com`, a bare host (`example.com` → https, `127.0.0.1:8823` or `localhost:3000` → http) or `*`",
  });

export const agentSchema = z
  .object({
    id: idSchema,
    workspaceId: idSchema,
    name: z.string(),
    description: z.string(),
    instructions: z.string(),
    model: z.string(),
    temperature: z.number(),
    maxTokens: z.number().int(),
    retrieval: retrievalSettingsSchema,
    effectiveRetrievalMode: retrievalModeSchema.openapi({
      description:
        "read-only: the mode searches actually run in; `keyword` whatever `retrieval.mode` says when the server has no embedding model",
    }),
    welcomeMessage: z.string(),
    suggestedQuestions: z.array(z.string()),
    fallbackMessage: z.string(),
    handoff: handoffSettingSchema.openapi({
      description:
        "the visitor's way out, offered with fallback and uncertain answers, after a thumbs-down and in the widget's menu",
    }),
    answerPolicy: answerPolicySchema,
    language: answerLanguageSchema.nullable().openapi({
      description:
        "the language of the fallback message and other server-written text; null: each question's detected language",
    }),
    dataSourceIds: z.array(idSchema),
    widgetId: z.string(),
    allowedOrigins: z.array(z.string()),
    theme: themeSchema,
    status: agentStatusSchema,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Agent");
export type Agent = z.infer<typeof agentSchema>;

const agentFields = {
  workspaceId: idSchema,
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000),
  instructions: z.string().max(20_000),
  model: modelNameSchema,
  temperature: z.number().min(0).max(2),
  maxTokens: z.number().int().min(16).max(32_000),
  retrieval: retrievalSettingsSchema.partial(),
  welcomeMessage: z.string().max(2000),
  suggestedQuestions: z.array(z.string().trim().min(1).max(300)).max(10),
  fallbackMessage: z.string().trim().min(1).max(2000),
  handoff: handoffSettingSchema,
  answerPolicy: answerPolicySchema,
  language: answerLanguageSchema.nullable(),
  dataSourceIds: z.array(idSchema).max(200),
  allowedOrigins: z.array(originInputSchema).max(50),
  theme: themeSchema.partial().strict(),
};

export const createAgentRequestSchema = z
  .object(agentFields)
  .partial()
  .required({ name: true })
  .strict()
  .openapi("CreateAgent");
export type CreateAgentRequest = z.infer<typeof createAgentRequestSchema>;

const { workspaceId: _workspaceId, ...updatableFields } = agentFields;
export const updateAgentRequestSchema = z.object(updatableFields).partial().strict().openapi("UpdateAgent");
export type UpdateAgentRequest = z.infer<typeof updateAgentRequestSchema>;

export const apiKeySchema = z
  .object({
    id: idSchema,
    agentId: idSchema,
    name: z.string(),
    prefix: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .openapi("ApiKey");
export type ApiKey = z.infer<typeof apiKeySchema>;
// Strict like every other body: an unknown field is 400, not silently dropped (found by test/clients).
export const createApiKeyRequestSchema = z
  .object({
    name: z.string().trim().min(1).max(100).default("API key"),
  })
  .strict();
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string() }).openapi("CreatedApiKey");

/** `GET /agents/` filters. */
export const listAgentsQuerySchema = pageQuerySchema.extend({
  workspace_id: idSchema
    .optional()
    .openapi({ description: "only this workspace's agents (404 if not a member)" }),
});
