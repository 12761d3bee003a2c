import { describe, expect, it } from "vitest";
import { createFetchDouble, errorResponse, jsonResponse, widgetConfig } from "../test-support.ts";
import { ApiError, createClient, parseRetryAfter } from "./client.ts";

describe("createClient", () => {
  it("requests the widget routes under the server and prefix, without cookies", async () => {
    const double = createFetchDouble({ "GET /config/": () => jsonResponse(200, widgetConfig()) });
    let credentials: RequestCredentials | undefined;
    const client = createClient({
      server: "https://lore.example.com/",
      widgetId: "w 1",
      apiPrefix: "/v2/",
      fetch: (input, init) => {
        credentials = init?.credentials;
        return double.fetch(input, init);
      },
    });
    expect((await client.getConfig()).name).toBe("Acme Help");
    expect(double.requests[0]?.url).toBe("https://lore.example.com/v2/widget/w%201/config/");
    expect(credentials).toBe("omit");
  });

  it("uses the loader's config request once, then asks again", async () => {
    const double = createFetchDouble({
      "GET /config/": () => jsonResponse(200, widgetConfig({ name: "Fresh" })),
    });
    const client = createClient({
      server: "https://lore.example.com",
      widgetId: "w1",
      fetch: double.fetch,
      prefetchedConfig: Promise.resolve({
        response: new Response(null, { status: 200 }),
        body: widgetConfig({ name: "Prefetched" }),
      }),
    });
    expect((await client.getConfig()).name).toBe("Prefetched");
    expect((await client.getConfig()).name).toBe("Fresh");
    expect(double.requests).toHaveLength(1);
  });

  it("reports a prefetched error response like a fetched one", async () => {
    const client = createClient({
      server: "https://lore.example.com",
      widgetId: "w1",
      fetch: createFetchDouble({}).fetch,
      prefetchedConfig: Promise.resolve({
        response: new Response(null, { status: 403 }),
        body: { error: "origin_not_allowed", message: "no", details: {} },
      }),
    });
    await expect(client.getConfig()).rejects.toMatchObject({ status: 403, code: "origin_not_allowed" });
  });

  it("turns error bodies into ApiError with code and Retry-After", async () => {
    const double = createFetchDouble({
      "POST /query/": () => errorResponse(429, "rate_limited", { "Retry-After": "42" }),
    });
    const client = createClient({ server: "https://x.test", widgetId: "w", fetch: double.fetch });
    const error = await client.query({ message: "q" }, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, code: "rate_limited", retryAfter: 42 });
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("120")).toBe(120);
    expect(parseRetryAfter(new Date(10_000 + 30_000).toUTCString(), 10_000)).toBe(30);
    expect(parseRetryAfter("soon")).toBeNull();
    expect(parseRetryAfter(null)).toBeNull();
  });
});
