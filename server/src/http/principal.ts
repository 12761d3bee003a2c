import type { Principal } from "../auth/principal.ts";

export type { Principal };

export type AppEnv = {
  Variables: {
    requestId: string;
    clientIp: string;
    principal: Principal;
    /** Headers every response to this request carries (request id, rate-limit state), set after the handler. */
    responseHeaders: Record<string, string>;
  };
};
