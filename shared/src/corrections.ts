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
