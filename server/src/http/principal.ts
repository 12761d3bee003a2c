import type { ApiKeyRecord, UserRecord } from "../store/records.ts";

/** Who is calling: a logged-in user, an agent's API key, or nobody (the widget and public routes). */
export type Principal =
  | { kind: "user"; user: UserRecord }
  | { kind: "apiKey"; key: ApiKeyRecord }
  | { kind: "anonymous" };

export type AppEnv = {
  Variables: {
    requestId: string;
    clientIp: string;
    principal: Principal;
    /** Headers every response to this request carries (request id, rate-limit state), set after the handler. */
    responseHeaders: Record<string, string>;
  };
};
