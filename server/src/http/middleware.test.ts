import { describe, expect, it } from "vitest";
import { canonicalPath } from "./middleware.ts";

describe("canonicalPath", () => {
  const path = canonicalPath("/api");
  const of = (url: string) => path(new Request(url));

  it("gives an API path its trailing slash, keeping the query out", () => {
    expect(of("http://h/api/agents?page=2")).toBe("/api/agents/");
    expect(of("http://h/api/agents/")).toBe("/api/agents/");
    expect(of("http://h/api/agents/x/chat/completions")).toBe("/api/agents/x/chat/completions/");
  });

  it("leaves the OpenAPI document and paths outside the API as they are", () => {
    expect(of("http://h/api/openapi.json")).toBe("/api/openapi.json");
    expect(of("http://h/widget.js")).toBe("/widget.js");
    expect(of("http://h/console")).toBe("/console");
    expect(of("http://h/apix/agents")).toBe("/apix/agents");
  });
});
