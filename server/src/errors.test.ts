import { describe, expect, it } from "vitest";
import { AppError, withoutPaths } from "./errors.ts";

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

describe("withoutPaths", () => {
  it("takes this machine's paths out of a message and leaves URLs alone", () => {
    expect(
      withoutPaths(
        "LanceError(IO): Generic LocalFileSystem error: /usr/local/cargo/registry/src/lance-io-0.1/src/local.rs:98:31, fetching https://example.com/docs/a.html",
      ),
    ).toBe(
      "LanceError(IO): Generic LocalFileSystem error: <path>:98:31, fetching https://example.com/docs/a.html",
    );
    expect(withoutPaths("open '/var/lib/lore/lance/x.lance/data/1.lance' failed")).toBe(
      "open '<path>' failed",
    );
    expect(withoutPaths("a/b and 3/4 stay")).toBe("a/b and 3/4 stay");
  });
});
