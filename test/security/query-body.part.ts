/**
 * The query body refuses unknown fields (issue #16, item 3): a silently dropped `topK` or
 * `stream` looked like it worked. `stream: true` is understood, as `Accept: text/event-stream`.
 */

import type { Agent, ErrorBody, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.ts";
import { startServerWithAgent } from "../helpers/server-with-agent.ts";
import { streamQuery } from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let agent: Agent;

beforeAll(async () => {
  ({ server, token, agent } = await startServerWithAgent({
    source: {
      name: "Shop FAQ",
      entries: [{ title: "Shipping", content: "Standard shipping takes three to five business days." }],
    },
    agent: { name: "Strict body" },
  }));
});
afterAll(() => server?.close());

const ask = (body: unknown, headers: Record<string, string> = {}) =>
  server.request<QueryResponse & ErrorBody>("POST", `/agents/${agent.id}/query/`, { token, body, headers });

describe("POST /agents/{agentId}/query/ body", () => {
  it("refuses unknown fields with 400 validation_error naming each one", async () => {
    for (const extra of [{ topK: 3 }, { temperature: 0 }, { conversation_id: crypto.randomUUID() }]) {
      const res = await ask({ message: "How long does shipping take?", ...extra });
      const [name] = Object.keys(extra);
      expect({ status: res.status, error: res.body.error, fields: res.body.details.fields }).toEqual({
        status: 400,
        error: "validation_error",
        fields: { [name ?? ""]: ["unknown field"] },
      });
    }
  });

  it("streams Server-Sent Events for stream: true, as for Accept: text/event-stream", async () => {
    const streamed = await streamQuery(
      `${server.api}/agents/${agent.id}/query/`,
      token,
      { message: "How long does shipping take?", stream: true },
      { headers: { Accept: "application/json" } },
    );
    expect(streamed.response.status).toBe(200);
    expect(streamed.response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const types = streamed.events.map((e) => e.event.type);
    expect(types[0]).toBe("start");
    expect(types.at(-1)).toBe("done");
  });

  it("answers JSON for stream: false and for no stream field", async () => {
    for (const body of [{ message: "shipping?", stream: false }, { message: "shipping?" }]) {
      const res = await ask(body);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect(typeof res.body.response).toBe("string");
    }
  });

  it("refuses a stream value that is not a boolean", async () => {
    const res = await ask({ message: "shipping?", stream: "yes" });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.details.fields as object)).toEqual(["stream"]);
  });
});
