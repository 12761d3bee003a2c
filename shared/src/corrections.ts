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

/** Other wordings a correction answers: bounded, like the question itself. */
export const MAX_ALSO_ANSWERS = 20;
export const MAX_ALSO_ANSWER_LENGTH = 500;
const alsoAnswers = z
  .array(
    z
      .string()
      .max(MAX_ALSO_ANSWER_LENGTH)
      .refine((m) => m.trim().length > 0, "must not be blank"),
  )
  .max(MAX_ALSO_ANSWERS)
  .openapi({
    description: `other wordings of the question it answers (matched like the question itself), at most ${MAX_ALSO_ANSWERS} of ${MAX_ALSO_ANSWER_LENGTH} characters`,
  });

/** The document whose change made a correction stale. */
export const staleSourceSchema = z
  .object({
    documentId: idSchema,
    dataSourceId: idSchema,
    title: z.string(),
    change: z.enum(["changed", "deleted"]),
  })
  .openapi("CorrectionStaleSource");

/** A question/answer pair the owner wrote; questions meaning the same are answered with it. */
export const correctionSchema = z
  .object({
    id: idSchema,
    agentId: idSchema,
    question: z.string(),
    alsoAnswers: z.array(z.string()).openapi({
      description: "other wordings of the question it answers; [] for none",
    }),
    answer: z.string().openapi({ description: "markdown" }),
    messageId: idSchema.nullable().openapi({ description: "the assistant message it corrects, if any" }),
    stale: z.boolean().openapi({
      description:
        "a passage the corrected answer cited has changed or gone in a later sync: review it (editing clears it); always false for a correction added by hand",
    }),
    staleSince: z.string().nullable().openapi({ description: "when it became stale; null when not stale" }),
    staleSource: staleSourceSchema.nullable().openapi({
      description: "the changed or deleted document it came from; null when not stale",
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Correction");
export type Correction = z.infer<typeof correctionSchema>;

export const createCorrectionRequestSchema = z
  .object({ question, answer, alsoAnswers: alsoAnswers.optional() })
  .strict()
  .openapi("CreateCorrection");
export type CreateCorrectionRequest = z.infer<typeof createCorrectionRequestSchema>;

export const correctMessageRequestSchema = z
  .object({
    answer,
    question: question
      .optional()
      .openapi({ description: "default: the visitor question that produced the message" }),
    alsoAnswers: alsoAnswers.optional(),
  })
  .strict()
  .openapi("CorrectMessage");
export type CorrectMessageRequest = z.infer<typeof correctMessageRequestSchema>;

export const updateCorrectionRequestSchema = z
  .object({ question, answer, alsoAnswers })
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
        "how closely it matches the correction's best wording (0..1; 0 for another kind of question), or with a semantic embedding model the higher of it and the cosine",
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
      description:
        "questions it now catches: asked again, they get this correction's answer (best match first)",
    }),
    wouldNotAnswer: z.array(correctionMatchSchema).openapi({
      description:
        "questions it misses: they share a content word (or a synonym) with one of its wordings but stay below the match or another correction answers them; closest first. Adding one to `alsoAnswers` makes it caught",
    }),
  })
  .openapi("CorrectionMatches");
export type CorrectionMatches = z.infer<typeof correctionMatchesSchema>;
