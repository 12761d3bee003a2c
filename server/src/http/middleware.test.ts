import { describe, expect, it } from "vitest";
import { rawPath } from "./middleware.ts";

describe("rawPath", () => {
  it("is the pathname of a serialised URL, trailing slash, encoding and all", () => {
    for (const url of [
      "http://127.0.0.1:8080/api/agents/",
      "http://127.0.0.1:8080/api/agents?page=2&x=/y",
      "https://lore.example.com/api/agents/abc/query/?q=a#frag",
      "http://localhost/",
      "http://localhost/a%20b/c%2F/",
      "http://[::1]:3000/api/openapi.json#/x",
    ]) {
      expect(rawPath(url)).toBe(new URL(url).pathname);
    }
  });
});
