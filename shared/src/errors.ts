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
