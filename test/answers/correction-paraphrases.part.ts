// Issue #50 item 3: a correction is reached like an FAQ entry — by a visitor's own wording (another
// question word, a synonym, "zephyr 9" for "Zephyr-9") — and not by another question on its topic.
import type { Correction, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CorrectionKey,
  helpEntries,
  ownerCorrections,
  paraphrases,
  unrelatedQuestions,
} from "../fixtures/correction-paraphrases.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let agentId: string;
const ids = new Map<CorrectionKey, string>();
const nameOf = new Map<string, CorrectionKey>();

const ask = async (message: string) => {
  const res = await call<QueryResponse>(server, "POST", `/agents/${agentId}/query/`, token, { message });
  expect(res.status).toBe(200);
  return res.body;
};

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
  const source = await readyTextSource(server, token, "Help center", helpEntries);
  agentId = (await createAgent(server, token, { name: "Shop help", dataSourceIds: [source.id] })).id;
  for (const [key, body] of Object.entries(ownerCorrections) as [CorrectionKey, object][]) {
    const res = await call<Correction>(server, "POST", `/agents/${agentId}/corrections/`, token, body);
    expect(res.status).toBe(201);
    ids.set(key, res.body.id);
    nameOf.set(res.body.id, key);
  }
}, 60_000);
afterAll(() => server?.close());

describe("reaching a correction in the visitor's own words", () => {
  it("answers at least 8 of 10 paraphrases from their correction", async () => {
    const reached: string[] = [];
    const missed: string[] = [];
    for (const [question, key] of paraphrases) {
      const answer = await ask(question);
      if (answer.correctionId === ids.get(key)) {
        expect(answer.response).toBe(ownerCorrections[key].answer);
        reached.push(question);
      } else {
        const got = answer.correctionId ? nameOf.get(answer.correctionId) : "the documents";
        missed.push(`${question} → ${got}`);
      }
    }
    console.log(`paraphrases reaching their correction: ${reached.length}/10`, { missed });
    expect(reached.length).toBeGreaterThanOrEqual(8);
  }, 60_000);

  it("answers none of 10 other questions on the same shop from a correction", async () => {
    const taken: string[] = [];
    for (const question of unrelatedQuestions) {
      const answer = await ask(question);
      if (answer.correctionId) taken.push(`${question} → ${nameOf.get(answer.correctionId)}`);
    }
    console.log(`unrelated questions answered from a correction: ${taken.length}/10`, { taken });
    expect(taken).toEqual([]);
  }, 60_000);

  it("answers the warranty question from its correction, not with the probe's launch date", async () => {
    const answer = await ask("what warranty does zephyr 9 come with?");
    expect(answer.response).toBe(ownerCorrections.warranty.answer);
    expect(answer.response).not.toMatch(/March 2024/);
  });
});
