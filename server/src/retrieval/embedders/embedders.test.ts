import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, fakeEmbedding, startFakeOpenAI } from "../../../../test/fakes/openai-server.ts";
import { AppError } from "../../errors.ts";
import { createHashedEmbedder } from "./hashed-embedder.ts";
import { createOpenAIEmbedder } from "./openai-embedder.ts";

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, v, i) => sum + v * (b[i] ?? 0), 0);
const norm = (a: Float32Array) => Math.sqrt(cosine(a, a));

describe("hashed embedder", () => {
  const embedder = createHashedEmbedder({ dimensions: 128 });

  it("returns deterministic unit vectors of the configured size", async () => {
    const [a, b] = await embedder.embed(["Refunds within thirty days", "Refunds within thirty days"]);
    expect(embedder.name).toBe("hashed:128");
    expect(embedder.dimensions).toBe(128);
    expect(a?.length).toBe(128);
    expect(a && norm(a)).toBeCloseTo(1, 5);
    expect(a && b && [...a]).toEqual(b && [...b]);
    expect(createHashedEmbedder().dimensions).toBe(256);
  });

  it("puts texts that share words closer than unrelated ones", async () => {
    const [query, related, unrelated] = await embedder.embed([
      "how do I get a refund",
      "Refunds are issued to the original payment method",
      "The company moved its headquarters to Seattle",
    ]);
    if (!query || !related || !unrelated) throw new Error("missing vectors");
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.1);
  });

  it("embeds an empty text as a zero vector instead of NaN", async () => {
    const [empty] = await embedder.embed([""]);
    expect(empty && [...empty].every((v) => v === 0)).toBe(true);
  });
});

describe("OpenAI-compatible embedder", () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: "sk-embed", embeddingDimensions: 32 });
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.setBehaviour({ failTimes: 0, failStatus: 500, retryAfterSeconds: null, hang: false });
  });
  const embedder = (options: Partial<Parameters<typeof createOpenAIEmbedder>[0]> = {}) =>
    createOpenAIEmbedder({
      baseURL: fake.url,
      apiKey: "sk-embed",
      model: "fake-embed",
      maxRetryDelayMs: 50,
      ...options,
    });

  it("embeds in batches, keeps input order and discovers the dimensions", async () => {
    const texts = ["one", "two words", "three little words", "four", "five"];
    const e = embedder({ batchSize: 2 });
    expect(e.name).toBe("openai:fake-embed");
    expect(e.dimensions).toBe(0);
    const vectors = await e.embed(texts);
    expect(fake.requests.map((r) => (r.body as { input: string[] }).input)).toEqual([
      ["one", "two words"],
      ["three little words", "four"],
      ["five"],
    ]);
    expect(vectors.map((v) => [...v])).toEqual(
      texts.map((t) => [...Float32Array.from(fakeEmbedding(t, 32))]),
    );
    expect(e.dimensions).toBe(32);
  });

  it("rejects vectors whose size differs from the configured dimensions", async () => {
    await expect(embedder({ dimensions: 1536 }).embed(["x"])).rejects.toMatchObject({
      code: "upstream_error",
    });
  });

  it("honours a 429's Retry-After before retrying", async () => {
    fake.setBehaviour({ failTimes: 1, failStatus: 429, retryAfterSeconds: 1 });
    const started = Date.now();
    const vectors = await embedder({ maxRetryDelayMs: 5_000 }).embed(["hello"]);
    expect(vectors).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.requests).toHaveLength(2);
  });

  it("retries server errors with backoff and then gives up with upstream_error", async () => {
    fake.setBehaviour({ failTimes: 10, failStatus: 500 });
    const error = await embedder({ maxRetries: 2 })
      .embed(["hello"])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(502);
    expect(fake.requests).toHaveLength(3);
  });

  it("fails fast on a rejected key", async () => {
    await expect(embedder({ apiKey: "wrong", maxRetries: 3 }).embed(["x"])).rejects.toMatchObject({
      code: "upstream_error",
      details: { reason: "status", status: 401 },
    });
    expect(fake.requests).toHaveLength(1);
  });
});
