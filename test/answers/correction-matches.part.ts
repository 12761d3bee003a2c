// Issue #31 item 4: GET /agents/{agentId}/corrections/{correctionId}/matches/ lists the recent
// visitor questions a correction would answer and the ones sharing its words that it would not, by
// the same test the answer path applies (the answers prove it: each listed question is asked again).
// Issue #50 item 3: it catches another question word ("where do I cancel …"), and a missed question
// added to `alsoAnswers` is caught from then on.
import type { Correction, CorrectionMatches, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSWORD, startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let agentId: string;
let otherAgentId: string;
let correctionId: string;

const QUESTION = "How do I cancel my subscription?";
const ANSWER = "Open **Billing** and choose *Cancel plan*.";
const REWORDED = "How can I cancel my subscription?";
const INFLECTED = "cancelling my subscription, how do I do it";
const OTHER_ASK = "What happens if I cancel my subscription?";
const OTHER_KIND = "How much does the subscription cost?";
const UNRELATED = "Where is your office?";
const TRIAL = "How do I cancel the subscription?";
const OTHER_WORD = "Where do I cancel my subscription?";
const OWN_WORDS = "stop paying for the subscription";

const ask = async (message: string, extra: Record<string, unknown> = {}) => {
  const res = await call<QueryResponse>(server, "POST", `/agents/${agentId}/query/`, token, {
    message,
    stream: false,
    ...extra,
  });
  expect(res.status).toBe(200);
  return res.body;
};
const matches = (path: string, auth = token) => call<CorrectionMatches>(server, "GET", path, auth);

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
  const source = await readyTextSource(server, token, "Billing help", [
    { title: "Plans", content: "The subscription costs 9 euros a month. Our office is in Lyon." },
  ]);
  agentId = (await createAgent(server, token, { name: "Billing", dataSourceIds: [source.id] })).id;
  otherAgentId = (await createAgent(server, token, { name: "Other", dataSourceIds: [source.id] })).id;
  for (const q of [REWORDED, INFLECTED, OTHER_ASK, OTHER_KIND, UNRELATED, REWORDED, OTHER_WORD, OWN_WORDS])
    await ask(q);
  await ask(TRIAL, { channel: "console" });
  const created = await call<{ id: string }>(server, "POST", `/agents/${agentId}/corrections/`, token, {
    question: QUESTION,
    answer: ANSWER,
  });
  expect(created.status).toBe(201);
  correctionId = created.body.id;
}, 60_000);
afterAll(() => server?.close());

describe("a correction's matches", () => {
  it("lists the questions it would answer and the close ones it would not", async () => {
    const res = await matches(`/agents/${agentId}/corrections/${correctionId}/matches/`);
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body.correctionId).toBe(correctionId);
    // Seven distinct visitor wordings; the Try it question is not a visitor's.
    expect(body.scanned).toBe(7);
    expect(body.wouldAnswer.map((m) => m.question).sort()).toEqual([INFLECTED, OTHER_WORD, REWORDED].sort());
    const reworded = body.wouldAnswer.find((m) => m.question === REWORDED);
    expect(reworded?.times).toBe(2);
    expect(reworded?.score).toBe(1);
    // Missed: what happens after cancelling, what it costs (other kinds of question), and the
    // visitor's own words for cancelling (half its wording: too little), newest first at one score.
    expect(body.wouldNotAnswer.map((m) => m.question)).toEqual([OWN_WORDS, OTHER_KIND, OTHER_ASK]);
    expect(body.wouldNotAnswer.map((m) => m.score)).toEqual([0, 0, 0]);
    for (const m of [...body.wouldAnswer, ...body.wouldNotAnswer]) {
      expect(m).toMatchObject({ conversationId: expect.any(String), messageId: expect.any(String) });
      expect(Date.parse(m.askedAt)).not.toBeNaN();
    }
  });

  it("agrees with the answer path: listed as answered means answered from the correction, and not otherwise", async () => {
    const body = (await matches(`/agents/${agentId}/corrections/${correctionId}/matches/`)).body;
    for (const m of body.wouldAnswer) expect((await ask(m.question)).correctionId).toBe(correctionId);
    for (const m of body.wouldNotAnswer) expect((await ask(m.question)).correctionId).toBeNull();
  });

  it("catches a missed question once it is added to the correction's wordings", async () => {
    const path = `/agents/${agentId}/corrections/${correctionId}/`;
    expect((await ask(OWN_WORDS)).correctionId).toBeNull();
    const patched = await call<Correction>(server, "PATCH", path, token, { alsoAnswers: [OWN_WORDS] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ question: QUESTION, alsoAnswers: [OWN_WORDS], answer: ANSWER });
    const body = (await matches(`${path}matches/`)).body;
    expect(body.wouldAnswer.map((m) => m.question)).toContain(OWN_WORDS);
    expect(body.wouldNotAnswer.map((m) => m.question).sort()).toEqual([OTHER_KIND, OTHER_ASK].sort());
    const answer = await ask("How do I stop paying for my subscription?");
    expect(answer).toMatchObject({ correctionId: correctionId, response: ANSWER });
    // Another kind of question stays with the documents, whatever wordings the correction has.
    expect((await ask(OTHER_KIND)).correctionId).toBeNull();
    await call(server, "PATCH", path, token, { alsoAnswers: [] });
  });

  it("refuses wordings that are blank, too long or too many", async () => {
    const path = `/agents/${agentId}/corrections/${correctionId}/`;
    for (const alsoAnswers of [
      [" "],
      ["x".repeat(501)],
      Array.from({ length: 21 }, (_, i) => `wording ${i}`),
    ]) {
      const res = await call(server, "PATCH", path, token, { alsoAnswers });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: "validation_error" });
    }
  });

  it("takes a limit and refuses a bad one", async () => {
    const one = await matches(`/agents/${agentId}/corrections/${correctionId}/matches/?limit=1`);
    expect(one.status).toBe(200);
    expect(one.body.wouldAnswer).toHaveLength(1);
    expect(one.body.wouldNotAnswer).toHaveLength(1);
    const bad = await matches(`/agents/${agentId}/corrections/${correctionId}/matches/?limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "validation_error" });
  });

  it("is 404 under another agent and to another workspace", async () => {
    const elsewhere = await matches(`/agents/${otherAgentId}/corrections/${correctionId}/matches/`);
    expect(elsewhere.status).toBe(404);
    await server.createUser("stranger@example.com");
    const stranger = (await server.login("stranger@example.com", DEFAULT_PASSWORD)).access;
    const res = await matches(`/agents/${agentId}/corrections/${correctionId}/matches/`, stranger);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: "not_found" });
  });
});
