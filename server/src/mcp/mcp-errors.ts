import type { ErrorCode } from "@lore/shared";
import { type CallToolResult, ErrorCode as RpcCode } from "@modelcontextprotocol/sdk/types.js";
import { AppError, storageFailure } from "../errors.ts";
import type { Logger } from "../log/logger.ts";

/** MCP's "resource not found" (not in the SDK's ErrorCode enum). */
export const RESOURCE_NOT_FOUND = -32002;

/** The JSON-RPC error code for each contract code; `data` carries the contract's error body. */
const rpcCodeByError = {
  validation_error: RpcCode.InvalidParams,
  not_found: RpcCode.InvalidParams,
  not_authenticated: RpcCode.InvalidRequest,
  invalid_token: RpcCode.InvalidRequest,
  token_expired: RpcCode.InvalidRequest,
  invalid_api_key: RpcCode.InvalidRequest,
  invalid_credentials: RpcCode.InvalidRequest,
  permission_denied: RpcCode.InvalidRequest,
  https_required: RpcCode.InvalidRequest,
  origin_not_allowed: RpcCode.InvalidRequest,
  method_not_allowed: RpcCode.MethodNotFound,
  conflict: RpcCode.InvalidRequest,
  payload_too_large: RpcCode.InvalidRequest,
  unsupported_media_type: RpcCode.InvalidRequest,
  rate_limited: RpcCode.InternalError,
  upstream_error: RpcCode.InternalError,
  agent_processing: RpcCode.InternalError,
  service_unavailable: RpcCode.InternalError,
  internal_error: RpcCode.InternalError,
} as const satisfies Record<ErrorCode, number>;

/** A JSON-RPC error as the SDK's Protocol sends it: its `code`, `message` and `data` as they are. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

/** An AppError as a JSON-RPC error whose `data` is the contract's `{error, message, details}`. */
export function rpcError(error: AppError, code: number = rpcCodeByError[error.code]): RpcError {
  return new RpcError(code, error.message, error.toBody());
}

/** A handler's failure as the contract has it: an AppError as it is; anything else is logged and hidden. */
export function toAppError(error: unknown, requestId: string, logger: Logger): AppError {
  if (error instanceof AppError) return error;
  const storage = storageFailure(error);
  if (storage) return storage;
  logger.error("mcp handler failed", {
    requestId,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return new AppError("internal_error", "Something went wrong on our side", { requestId });
}

/** A handler's failure as a JSON-RPC error whose `data` is the contract's error body. */
export function toRpcError(error: unknown, requestId: string, logger: Logger): RpcError {
  if (error instanceof RpcError) return error;
  return rpcError(toAppError(error, requestId, logger));
}

/**
 * A tool's failure as MCP wants it (a tool execution error, not a protocol error): a result with
 * `isError`, the contract's error body as `structuredContent` and, for clients that read text only,
 * a summary line followed by the same JSON.
 */
export function toolError(error: AppError): CallToolResult {
  const body = error.toBody();
  return {
    content: [{ type: "text", text: `Error ${body.error}: ${body.message}\n\n${JSON.stringify(body)}` }],
    structuredContent: body,
    isError: true,
  };
}
