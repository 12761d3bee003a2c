import type { ErrorCode } from "@lore/shared";
import { ErrorCode as RpcCode } from "@modelcontextprotocol/sdk/types.js";
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

/** A handler's failure as a JSON-RPC error: an AppError keeps its code; anything else is logged and hidden. */
export function toRpcError(error: unknown, requestId: string, logger: Logger): RpcError {
  if (error instanceof RpcError) return error;
  if (error instanceof AppError) return rpcError(error);
  const storage = storageFailure(error);
  if (storage) return rpcError(storage);
  logger.error("mcp handler failed", {
    requestId,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return rpcError(new AppError("internal_error", "Something went wrong on our side", { requestId }));
}
