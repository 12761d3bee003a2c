import { z } from "@hono/zod-openapi";
import { answerLanguageSchema, retrievalModeSchema } from "./agents.ts";
import { idSchema, pageQuerySchema } from "./common.ts";
import { handoffSchema } from "./handoffs.ts";
import { MAX_MESSAGE_LENGTH } from "./limits.ts";

/** Why a visitor rated an answer down. */
export const feedbackReasonSchema = z.enum(["wrong", "unanswered", "outdated", "other"]);
export type FeedbackReason = z.infer<typeof feedbackReasonSchema>;

export const queryRequestSchema = z
  .object({
    message: z
      .string()
      .max(MAX_MESSAGE_LENGTH)
      .refine((m) => m.trim().length > 0, "must not be blank"),
    conversationId: idSchema.optional(),
    dataSourceIds: z.array(idSchema).max(200).optional(),
    stream: z.boolean().optional().openapi({
      description: "`true` streams like `Accept: text/event-stream`; `false` leaves it to that header",
    }),
    channel: z.literal("console").optional().openapi({
      description:
        "`console`: the owner's own test question (the console's Try it), kept out of the review queue and analytics by default; only with a user's login token (an API key gets 400); it tags a new conversation",
    }),
  })
  // Unknown fields are refused: a silently dropped `topK` or typo looks like it worked.
  .strict()
  .openapi("QueryRequest");
export type QueryRequest = z.infer<typeof queryRequestSchema>;

export const citationSchema = z
  .object({
    rank: z.number().int().min(1),
    documentId: z.string(),
    chunkId: z.string(),
    title: z.string(),
    dataSourceName: z.string(),
    dataSourceType: z.string(),
    sourceUrl: z.string(),
    content: z.string(),
    score: z.number().min(0).max(1),
    displayMode: z.literal("expandable"),
    // Lore extras: the data source and where in the document the chunk sits.
    dataSourceId: z.string().optional(),
    page: z.number().int().nullable().optional(),
    headingPath: z.array(z.string()).optional(),
  })
  .openapi("Source");
export type Citation = z.infer<typeof citationSchema>;

export const answerMetadataSchema = z.object({
  /** promptTokens + completionTokens. */
  tokensUsed: z.number().int(),
  // Lore extras: the split behind tokensUsed (the model's own count when it reports one).
  promptTokens: z.number().int().optional(),
  completionTokens: z.number().int().optional(),
  retrievalTime: z.number(),
  generationTime: z.number(),
});

/** How sure the answer is: stated from the sources, offered with a doubt, or the agent's fallback. */
export const answerOutcomeSchema = z.enum(["answered", "uncertain", "fallback"]).openapi({
  description:
    "`answered`: the response states what the sources say, cited; `uncertain`: it says, in the visitor's language, that it is not sure, quotes the closest passage and `sources` lists up to three distinct documents that may help (a chat model's answer comes first, the note after it); `fallback`: the agent's fallback message, no sources (also when a chat model declines)",
});
export type AnswerOutcome = z.infer<typeof answerOutcomeSchema>;

/** Calibrated: of the answers given confidence ≈ c, a share ≈ c hold what was asked. */
export const answerConfidenceSchema = z.number().min(0).max(1).openapi({
  description:
    "0..1, calibrated: of the answers given confidence ≈ c, a share ≈ c contain what the visitor needed (fitted on the help-center tuning half; read from the passage's coverage of the question, retrieval scores and agreement, and words the knowledge base never mentions). 0 when nothing was retrieved; 1 for an owner's correction",
});

export const queryResponseSchema = z
  .object({
    response: z.string(),
    outcome: answerOutcomeSchema,
    confidence: answerConfidenceSchema,
    conversationId: idSchema,
    messageId: idSchema,
    sources: z.array(citationSchema),
    correctionId: idSchema.nullable().openapi({
      description:
        "the owner's correction that gave this answer (its text, as the agent's own answer: `sources` is then empty); null otherwise",
    }),
    latency: z.number().int(),
    model: z.string(),
    retrievedChunks: z.number().int(),
    metadata: answerMetadataSchema,
    language: answerLanguageSchema.nullable().optional().openapi({
      description:
        "the visitor's language as the answer was written for it: the agent's `language` when set, else the question's detected language; null when it cannot tell. The widget shows the way out under the answer (\"Contact us\") in it",
    }),
  })
  .openapi("QueryResponse");
export type QueryResponse = z.infer<typeof queryResponseSchema>;

export const doneEventSchema = queryResponseSchema.omit({ response: true });

/** The SSE events, in order: start, token*, sources, then done or error. */
export const answerEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("start"),
    query_id: z.string(),
    conversationId: idSchema,
    messageId: idSchema,
    visitorToken: z.string().optional(),
  }),
  z.object({ type: z.literal("token"), token: z.string() }),
  z.object({ type: z.literal("sources"), sources: z.array(citationSchema) }),
  doneEventSchema.extend({ type: z.literal("done") }),
  z.object({ type: z.literal("error"), error: z.string(), message: z.string() }),
]);
export type AnswerEvent = z.infer<typeof answerEventSchema>;

export const searchRequestSchema = z
  .object({
    query: z
      .string()
      .max(MAX_MESSAGE_LENGTH)
      .refine((m) => m.trim().length > 0, "must not be blank"),
    dataSourceIds: z.array(idSchema).max(200).optional(),
    topK: z.number().int().min(1).max(100).optional(),
    mode: retrievalModeSchema.optional(),
  })
  .openapi("SearchRequest");
export type SearchRequest = z.infer<typeof searchRequestSchema>;
export const searchResponseSchema = z
  .object({
    results: z.array(citationSchema),
    retrievalTime: z.number(),
    mode: retrievalModeSchema.openapi({
      description:
        "the mode the search ran in: `keyword` whatever was asked when the server has no embedding model",
    }),
  })
  .openapi("SearchResponse");
export type SearchResponse = z.infer<typeof searchResponseSchema>;

/** Whether a conversation still needs a reviewer: set from the console, and `resolved` by a correction. */
export const conversationStatusSchema = z.enum(["open", "resolved"]).openapi("ConversationStatus");
export type ConversationStatus = z.infer<typeof conversationStatusSchema>;

/**
 * Where a conversation came from, set by the server from the route and the caller, never by the
 * request body: `widget` (the widget's public routes), `api` (an API key, chat completions, MCP) or
 * `console` (an owner's login session: the console's "Try it").
 */
export const conversationChannelSchema = z.enum(["widget", "api", "console"]).openapi("ConversationChannel");
export type ConversationChannel = z.infer<typeof conversationChannelSchema>;

/** A coarse device class the widget reads from the viewport width and the pointer (no user agent). */
export const deviceClassSchema = z.enum(["mobile", "tablet", "desktop"]).openapi("DeviceClass");
export type DeviceClass = z.infer<typeof deviceClassSchema>;

export const MAX_PAGE_URL_LENGTH = 2048;
/** The page the widget was asked on: an http(s) URL without its fragment. */
export const pageUrlSchema = z
  .string()
  .max(MAX_PAGE_URL_LENGTH)
  .refine(
    (s) => /^https?:\/\/[^#]*$/i.test(s) && URL.canParse(s),
    "must be an http(s) URL without a fragment",
  );

/** `includeConsole=true` also counts the owner's own "Try it" questions (channel `console`). */
export const includeConsoleSchema = z
  .enum(["true", "false"])
  .transform((v) => v === "true")
  .optional()
  .openapi({
    description:
      "`true`: include the conversations asked from the console's Try it (channel `console`), left out by default",
  });

export const conversationSchema = z
  .object({
    id: idSchema,
    title: z.string(),
    messageCount: z.number().int(),
    channel: conversationChannelSchema,
    pageUrl: z.string().nullable().openapi({
      description: "the page a widget conversation began on (sent by the widget); null otherwise",
    }),
    device: deviceClassSchema.nullable().openapi({
      description: "the widget's coarse device class when the conversation began; null otherwise",
    }),
    status: conversationStatusSchema.openapi({
      description: "`open` until resolved; a new visitor question opens it again",
    }),
    resolvedAt: z.string().nullable().openapi({ description: "when it was resolved; null while open" }),
    // Why a row is in a review queue: its rated and fallback answers.
    upvotes: z.number().int().nonnegative(),
    downvotes: z.number().int().nonnegative(),
    unanswered: z.number().int().nonnegative().openapi({ description: "answers that were the fallback" }),
    uncertain: z
      .number()
      .int()
      .nonnegative()
      .openapi({ description: "answers given with a doubt (outcome `uncertain`)" }),
    handoffs: z.number().int().nonnegative().openapi({ description: "contact requests the visitor sent" }),
    openHandoffs: z
      .number()
      .int()
      .nonnegative()
      .openapi({ description: "of those, the ones not resolved yet" }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Conversation");
export type Conversation = z.infer<typeof conversationSchema>;

export const messageSchema = z
  .object({
    id: idSchema,
    conversationId: idSchema,
    role: z.enum(["user", "assistant"]),
    content: z.string(),
    sources: z.array(citationSchema),
    model: z.string().nullable(),
    latency: z.number().int().nullable(),
    tokensUsed: z.number().int().nullable(),
    retrievalTime: z.number().nullable(),
    generationTime: z.number().nullable(),
    status: z.enum(["complete", "stopped", "failed"]),
    feedback: z.enum(["up", "down"]).nullable(),
    /** The comment given with the latest rating, if any. */
    feedbackComment: z.string().nullable(),
    /** What was wrong, as the visitor chose it with a thumbs-down. */
    feedbackReason: feedbackReasonSchema.nullable(),
    /** The answer was the agent's "I don't know" fallback. */
    fallback: z.boolean(),
    outcome: answerOutcomeSchema.nullable().openapi({
      description:
        "the answer's outcome; null for the visitor's messages and answers stored before outcomes existed",
    }),
    confidence: answerConfidenceSchema.nullable().openapi({
      description:
        "the answer's confidence; null for the visitor's messages and answers stored before it existed",
    }),
    /** The correction this answer was given from, if any. */
    correctionId: idSchema.nullable(),
    createdAt: z.string(),
  })
  .openapi("Message");
export type Message = z.infer<typeof messageSchema>;
export const conversationDetailSchema = conversationSchema
  .extend({
    messages: z.array(messageSchema),
    handoffRequests: z
      .array(handoffSchema)
      .openapi({ description: "the visitor's contact requests, oldest first" }),
  })
  .openapi("ConversationDetail");
export type ConversationDetail = z.infer<typeof conversationDetailSchema>;

/** `GET /agents/{agentId}/conversations/` filters; they combine (all must hold). */
export const conversationListQuerySchema = pageQuerySchema.extend({
  feedback: z
    .enum(["up", "down"])
    .optional()
    .openapi({ description: "conversations with at least one answer rated so" }),
  unanswered: z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .openapi({ description: "`true`: conversations with at least one fallback answer" }),
  outcome: z.enum(["answered", "uncertain", "fallback"]).optional().openapi({
    description:
      "`uncertain` / `fallback`: conversations with at least one answer of that outcome; `answered`: none of either",
  }),
  handoff: z.enum(["open", "resolved", "any"]).optional().openapi({
    description:
      "`open`: conversations with an unresolved contact request; `resolved`: with requests, all resolved; `any`: with any. Independent of the conversation's own status",
  }),
  q: z.string().max(200).optional().openapi({ description: "case-insensitive text in any message" }),
  status: conversationStatusSchema.optional().openapi({ description: "conversations with this status" }),
  includeConsole: includeConsoleSchema,
});
export type ConversationListQuery = z.infer<typeof conversationListQuerySchema>;

/** `PATCH /agents/{agentId}/conversations/{conversationId}/`: resolve a conversation or open it again. */
export const updateConversationRequestSchema = z
  .object({ status: conversationStatusSchema })
  .strict()
  .openapi("UpdateConversation");
export type UpdateConversationRequest = z.infer<typeof updateConversationRequestSchema>;

/** One suggested question run through the answer path by `POST …/suggested-questions/check/`. */
export const suggestedQuestionCheckSchema = z.object({
  question: z.string(),
  response: z.string(),
  fallback: z.boolean(),
  score: z.number().min(0).max(1).openapi({
    description: "the best source's score; 0 without sources, 1 for an answer from a correction",
  }),
  weak: z.boolean().openapi({
    description:
      "answered with a doubt (outcome `uncertain`); from servers without outcomes, a weakly matching best source",
  }),
  outcome: z
    .enum(["answered", "uncertain", "fallback"])
    .nullable()
    .openapi({ description: "the answer's outcome, as a visitor would get it" }),
  confidence: z.number().min(0).max(1).nullable().openapi({ description: "the answer's confidence" }),
  sources: z.array(citationSchema),
  correctionId: idSchema
    .nullable()
    .openapi({ description: "the owner's correction that answered it (no sources then); null otherwise" }),
});
export type SuggestedQuestionCheck = z.infer<typeof suggestedQuestionCheckSchema>;
export const suggestedQuestionsCheckSchema = z
  .object({ results: z.array(suggestedQuestionCheckSchema) })
  .openapi("SuggestedQuestionsCheck");
export type SuggestedQuestionsCheck = z.infer<typeof suggestedQuestionsCheckSchema>;

/** `POST /widget/{widgetId}/conversations/{conversationId}/`: the visitor token that owns the conversation. */
export const visitorTranscriptRequestSchema = z
  .object({
    visitorToken: z.string().min(1).max(4000).openapi({ description: "from the widget's query response" }),
  })
  .strict()
  .openapi("VisitorTranscriptRequest");
export type VisitorTranscriptRequest = z.infer<typeof visitorTranscriptRequestSchema>;

/** A message as its visitor may see it again: no timings, models or owner's notes. */
export const visitorMessageSchema = messageSchema
  .pick({
    id: true,
    role: true,
    content: true,
    sources: true,
    status: true,
    feedback: true,
    outcome: true,
    createdAt: true,
  })
  .openapi("VisitorMessage");
export type VisitorMessage = z.infer<typeof visitorMessageSchema>;

export const visitorTranscriptSchema = z
  .object({ conversationId: idSchema, messages: z.array(visitorMessageSchema) })
  .openapi("VisitorTranscript");
export type VisitorTranscript = z.infer<typeof visitorTranscriptSchema>;

export const feedbackRequestSchema = z
  .object({
    rating: z.enum(["up", "down"]),
    comment: z.string().max(2000).optional(),
    reason: feedbackReasonSchema.optional().openapi({ description: "with `down`: what was wrong" }),
  })
  .openapi("FeedbackRequest");
export type FeedbackRequest = z.infer<typeof feedbackRequestSchema>;
