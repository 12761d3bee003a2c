/**
 * Accounts and sessions: login lockout, session cookies, refresh tokens, invitations, the lower
 * findings of the security review, data directory permissions and fair parsing across workspaces.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("login-lockout", async () => {
  await import("./login-lockout.part.ts");
});
describe("session-cookie", async () => {
  await import("./session-cookie.part.ts");
});
describe("refresh-tokens", async () => {
  await import("./refresh-tokens.part.ts");
});
describe("invitations", async () => {
  await import("./invitations.part.ts");
});
describe("lower-findings", async () => {
  await import("./lower-findings.part.ts");
});
describe("data-permissions", async () => {
  await import("./data-permissions.part.ts");
});
describe("fair-parsing", async () => {
  await import("./fair-parsing.part.ts");
});
