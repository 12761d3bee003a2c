import { describe, expect, it } from "vitest";
import { AppError } from "./errors.ts";

describe("AppError's 401 challenge", () => {
  it("names a bad token or key as invalid_token and leaves a missing one bare (RFC 6750)", () => {
    const challenge = (code: ConstructorParameters<typeof AppError>[0]) =>
      new AppError(code, "x").headers["WWW-Authenticate"];
    expect(challenge("not_authenticated")).toBe('Bearer realm="lore"');
    expect(challenge("invalid_credentials")).toBe('Bearer realm="lore"');
    for (const code of ["invalid_token", "token_expired", "invalid_api_key"] as const)
      expect(challenge(code)).toBe('Bearer realm="lore", error="invalid_token"');
    expect(challenge("permission_denied")).toBeUndefined();
  });
});
