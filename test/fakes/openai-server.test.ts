import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAI, fakeEmbedding, startFakeOpenAI } from "./openai-server.ts";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: "sk-wire" });
});
afterAll(async () => {
  await fake.close();
});

const post = (path: string, body: unknown, key = "sk-wire") =>
  fetch(`${fake.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

describe("fake OpenAI-compatible server", () => {
  it("lists models and rejects a wrong key with OpenAI's error body", async () => {
    const models = await fetch(`${fake.url}/models`, { headers: { authorization: "Bearer sk-wire" } });
    expect(((await models.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id)).toEqual([
      "fake-chat",
      "fake-embed",
    ]);
    const denied = await post("/chat/completions", { messages: [] }, "nope");
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ error: { code: "invalid_api_key" } });
  });

  it("streams SSE chunks, a usage chunk when asked, then [DONE]", async () => {
    const body = {
      model: "fake-chat",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "system", content: "Sources:\n[1] Doc — Lore cites sources. More text." }],
    };
    const response = await post("/chat/completions", body);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const lines = (await response.text()).split("\n\n").filter(Boolean);
    expect(lines.at(-1)).toBe("data: [DONE]");
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l.slice("data: ".length)));
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
    expect(text).toBe("According to the sources, Lore cites sources. [1]");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 8 } });
  });

  it("returns base64 embeddings as little-endian float32 when asked", async () => {
    const response = await post("/embeddings", {
      model: "e",
      input: ["hello world"],
      encoding_format: "base64",
    });
    const json = (await response.json()) as { data: Array<{ embedding: string }> };
    const bytes = Buffer.from(json.data[0]?.embedding ?? "", "base64");
    const vector = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    expect([...vector]).toEqual([...Float32Array.from(fakeEmbedding("hello world", 64))]);
  });
});
