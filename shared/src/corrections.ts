import { z } from "@hono/zod-openapi";
import { idSchema } from "./common.ts";
import { MAX_MESSAGE_LENGTH } from "./limits.ts";

/** The `dataSourceType` of the citation answers from a correction carried before they read as the agent's own. */
export const CORRECTION_SOURCE_TYPE = "correction";

const question = z
  .string()
  .max(MAX_MESSAGE_LENGTH)
  .refine((m) => m.trim().length > 0, "must not be blank");
const answer = z
  .string()
  .max(20_000)
  .refine((m) => m.trim().length > 0, "must not be blank")
  .openapi({ description: "markdown" });

/** A question/answer pair the owner wrote; questions meaning the same are answered with it. */
export const correctionSchema = z
  .object({
    id: idSchema,
    agentId: idSchema,
    question: z.string(),
    answer: z.string().openapi({ description: "markdown" }),
    messageId: idSchema.nullable().openapi({ description: "the assistant message it corrects, if any" }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Correction");
export type Correction = z.infer<typeof correctionSchema>;

export const createCorrectionRequestSchema = z
  .object({ question, answer })
  .strict()
  .openapi("CreateCorrection");
export type CreateCorrectionRequest = z.infer<typeof createCorrectionRequestSchema>;

export const correctMessageRequestSchema = z
  .object({
    answer,
    question: question
      .optional()
      .openapi({ description: "default: the visitor question that produced the message" }),
  })
  .strict()
  .openapi("CorrectMessage");
export type CorrectMessageRequest = z.infer<typeof correctMessageRequestSchema>;

export const updateCorrectionRequestSchema = z
  .object({ question, answer })
  .partial()
  .strict()
  .openapi("UpdateCorrection");
export type UpdateCorrectionRequest = z.infer<typeof updateCorrectionRequestSchema>;

export const correctionMatchesQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(50)
    .default(10)
    .openapi({ description: "questions listed at most per list (1–50)" }),
});

/** A visitor question, scored against a correction's question. */
export const correctionMatchSchema = z
  .object({
    question: z.string().openapi({ description: "the visitor's question as asked (the latest asking)" }),
    conversationId: idSchema,
    messageId: idSchema.openapi({ description: "the visitor's message" }),
    askedAt: z.string(),
    times: z.number().int().min(1).openapi({ description: "how often the question was asked like this" }),
    score: z.number().min(0).max(1).openapi({
      description:
        "how closely it matches: the word overlap (0..1), or with a semantic embedding model the higher of it and the cosine",
    }),
  })
  .openapi("CorrectionMatch");
export type CorrectionMatch = z.infer<typeof correctionMatchSchema>;

/** `GET /agents/{agentId}/corrections/{correctionId}/matches/`: what the correction would and would not answer. */
export const correctionMatchesSchema = z
  .object({
    correctionId: idSchema,
    scanned: z.number().int().nonnegative().openapi({
      description: "distinct recent visitor questions compared (Try it questions left out)",
    }),
    wouldAnswer: z.array(correctionMatchSchema).openapi({
      description: "questions matching counts as the correction's question, best match first",
    }),
    wouldNotAnswer: z.array(correctionMatchSchema).openapi({
      description:
        "questions sharing a content word (or a synonym) with the correction's question that stay below the match, closest first",
    }),
  })
  .openapi("CorrectionMatches");
export type CorrectionMatches = z.infer<typeof correctionMatchesSchema>;
