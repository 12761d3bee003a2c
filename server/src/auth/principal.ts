import type { ApiKeyRecord, UserRecord } from "../store/records.ts";

/** Who is calling: a logged-in user, an agent's API key, or nobody (the widget and public routes). */
export type Principal =
  | { kind: "user"; user: UserRecord }
  | { kind: "apiKey"; key: ApiKeyRecord }
  | { kind: "anonymous" };

/** Whom analytics counts a question for: the user, the key, or the client IP. */
export function callerId(principal: Principal, clientIp: string): string {
  if (principal.kind === "user") return `user:${principal.user.id}`;
  if (principal.kind === "apiKey") return `key:${principal.key.id}`;
  return `ip:${clientIp}`;
}
