import { z } from "@hono/zod-openapi";

/** Every machine-readable error code the API can answer with; statuses live in server/src/errors.ts. */
export const errorCodes = [
  "validation_error",
  "not_authenticated",
  "invalid_token",
  "token_expired",
  "invalid_api_key",
  "invalid_credentials",
  "permission_denied",
  "https_required",
  "origin_not_allowed",
  "not_found",
  "method_not_allowed",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "upstream_error",
  "agent_processing",
  "service_unavailable",
  "internal_error",
] as const;

export const errorCodeSchema = z.enum(errorCodes);
export type ErrorCode = z.infer<typeof errorCodeSchema>;

export const errorBodySchema = z
  .object({
    error: errorCodeSchema,
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  })
  .openapi("Error");
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** OpenAI's error `type`s, as the OpenAI-compatible routes answer them (chosen by status). */
export const openAiErrorTypes = [
  "invalid_request_error",
  "authentication_error",
  "permission_error",
  "not_found_error",
  "rate_limit_error",
  "server_error",
] as const;

/** An error on the OpenAI-compatible routes: OpenAI's shape, Lore's code as `code`. */
export const openAiErrorBodySchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.enum(openAiErrorTypes),
      code: errorCodeSchema.openapi({ description: "Lore's error code" }),
      param: z
        .string()
        .nullable()
        .openapi({ description: "the first invalid field (`messages.1.content`), else null" }),
      details: z
        .record(z.string(), z.unknown())
        .openapi({ description: "Lore extra: the contract error's `details`" }),
    }),
  })
  .openapi("OpenAIError");
export type OpenAIErrorBody = z.infer<typeof openAiErrorBodySchema>;
