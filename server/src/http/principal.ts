import type { Principal } from "../auth/principal.ts";
import type { AppError } from "../errors.ts";
import type { RequestBase } from "./forwarded.ts";

export type { Principal };

export type AppEnv = {
  Variables: {
    requestId: string;
    clientIp: string;
    /** Where the client reached this server (scheme, host, a proxy's path prefix): see forwarded.ts. */
    base: RequestBase;
    principal: Principal;
    /** Headers every response to this request carries (request id, rate-limit state), set after the handler. */
    responseHeaders: Record<string, string>;
    /** Set when a request asks several questions (an MCP batch): how many were charged, the 429 for the rest. */
    questions: QuestionQuota;
  };
};

/** The questions of one request that fit the caller's and the agent's limits; `refusal` answers the others. */
export interface QuestionQuota {
  charged: number;
  refusal: AppError | null;
}
