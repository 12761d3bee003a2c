import type { Agent, ConversationDetail, Correction, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSWORD, httpRequest, type TestServer } from "../helpers/server.ts";
import { call, streamQuery } from "../ingestion/source-helpers.ts";
import { askShop, type ShopAgent, startShopAgent } from "./shop-agent.ts";

const FALLBACK = "The shop handbook does not say.";
const ORIGIN = "https://shop.example";
const KLARNA = "Can I pay in instalments with Klarna?";
const KLARNA_ANSWER = "Yes: choose **Klarna** at checkout to pay in three instalments.";

let shop: ShopAgent;
let server: TestServer;
let token: string;
let agent: Agent;

const ask = (message: string) => askShop(shop, message);
const transcript = async (conversationId: string) =>
  (
    await call<ConversationDetail>(
      server,
      "GET",
      `/agents/${agent.id}/conversations/${conversationId}/`,
      token,
    )
  ).body;
const corrections = (path = "", method = "GET", body?: unknown, auth = token) =>
  call<Correction>(server, method, `/agents/${agent.id}/corrections/${path}`, auth, body);

beforeAll(async () => {
  // "Answer only when sure": a question the shop FAQ only brushes (Klarna) gets the fallback to correct.
  shop = await startShopAgent({
    fallbackMessage: FALLBACK,
    allowedOrigins: [ORIGIN],
    answerPolicy: "strict",
  });
  ({ server, token, agent } = shop);
}, 60_000);
afterAll(() => server?.close());

describe("correcting an answer", () => {
  let correction: Correction;

  it("records a fallback answer as one, and a correction of it takes the visitor's question", async () => {
    const first = await ask(KLARNA);
    expect(first.response).toBe(FALLBACK);
    const stored = await transcript(first.conversationId);
    expect(stored.messages.map((m) => [m.role, m.fallback, m.correctionId])).toEqual([
      ["user", false, null],
      ["assistant", true, null],
    ]);
    expect(stored).toMatchObject({ unanswered: 1, upvotes: 0, downvotes: 0 });

    const res = await call<Correction>(
      server,
      "POST",
      `/agents/${agent.id}/messages/${first.messageId}/correction/`,
      token,
      { answer: KLARNA_ANSWER },
    );
    expect(res.status).toBe(201);
    correction = res.body;
    expect(correction).toMatchObject({
      agentId: agent.id,
      question: KLARNA,
      answer: KLARNA_ANSWER,
      messageId: first.messageId,
    });
  });

  it("answers a paraphrase from the correction, streamed, as the agent's own answer", async () => {
    const { events } = await streamQuery(`${server.api}/agents/${agent.id}/query/`, token, {
      message: "Is paying with Klarna in instalments possible?",
    });
    const types = events.map((e) => e.event.type);
    expect(types[0]).toBe("start");
    expect(types.slice(-2)).toEqual(["sources", "done"]);
    const tokens = events.flatMap((e) => (e.event.type === "token" ? [e.event.token] : []));
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.join("")).toBe(KLARNA_ANSWER);
    // The owner's words are the agent's answer: no source card (once named "Corrections").
    const sources = events.flatMap((e) => (e.event.type === "sources" ? e.event.sources : []));
    expect(sources).toEqual([]);
    const done = events.at(-1)?.event;
    if (done?.type !== "done") throw new Error("no done event");
    expect(done).toMatchObject({
      correctionId: correction.id,
      outcome: "answered",
      confidence: 1,
      sources: [],
    });
    const answer = (await transcript(done.conversationId)).messages[1];
    // The stored message still records that a correction produced it (the console shows it).
    expect(answer).toMatchObject({
      correctionId: correction.id,
      fallback: false,
      content: KLARNA_ANSWER,
      sources: [],
      outcome: "answered",
      confidence: 1,
    });
  });

  it("leaves a different question on the same topic to the knowledge base", async () => {
    const other = await ask("Which payment methods do you accept?");
    expect(other.sources.length).toBeGreaterThan(0);
    expect(other.correctionId).toBeNull();
    expect(other.response).toMatch(/PayPal/);
    const alsoOther = await ask("Does Klarna charge interest on instalments?");
    expect(alsoOther.correctionId).toBeNull();
  });

  it("answers from the correction on the widget and the OpenAI-compatible routes too", async () => {
    const widget = await httpRequest<QueryResponse>(server.api, "POST", `/widget/${agent.widgetId}/query/`, {
      body: { message: "can i pay with klarna in instalments" },
      headers: { Origin: ORIGIN },
    });
    expect(widget.status).toBe(200);
    expect(widget.body).toMatchObject({ response: KLARNA_ANSWER, sources: [], correctionId: correction.id });
    const chat = await call<{
      choices: { message: { content: string } }[];
      sources: { dataSourceType: string }[];
    }>(server, "POST", `/agents/${agent.id}/chat/completions/`, token, {
      messages: [{ role: "user", content: "Klarna instalments: can I pay that way?" }],
    });
    expect(chat.status).toBe(200);
    expect(chat.body.choices[0]?.message.content).toBe(KLARNA_ANSWER);
    expect(chat.body.sources).toEqual([]);
  });

  it("lists, edits and deletes corrections; a deleted one answers nothing", async () => {
    const added = await corrections("", "POST", {
      question: "Do you sell gift cards?",
      answer: "Gift cards are sold in the Amsterdam store only.",
    });
    expect(added.status).toBe(201);
    expect(added.body.messageId).toBeNull();
    const list = await call<{ count: number; results: Correction[] }>(
      server,
      "GET",
      `/agents/${agent.id}/corrections/`,
      token,
    );
    expect(list.body.results.map((c) => c.id)).toEqual([added.body.id, correction.id]);

    const edited = await corrections(`${added.body.id}/`, "PATCH", {
      answer: "Gift cards: online and in store.",
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      question: "Do you sell gift cards?",
      answer: "Gift cards: online and in store.",
    });
    expect(edited.body.updatedAt >= added.body.updatedAt).toBe(true);
    expect((await ask("Gift cards: do you sell them?")).response).toBe("Gift cards: online and in store.");

    expect((await corrections(`${added.body.id}/`, "DELETE")).status).toBe(204);
    expect((await corrections(`${added.body.id}/`)).status).toBe(404);
    expect((await ask("Gift cards: do you sell them?")).correctionId).toBeNull();
  });

  it("adds an answer to an unanswered question from analytics", async () => {
    await ask("What's the loyalty programme called?");
    const analytics = await call<{ unansweredQuestions: { question: string }[] }>(
      server,
      "GET",
      `/analytics/agents/${agent.id}/`,
      token,
    );
    const question = analytics.body.unansweredQuestions.find((q) => q.question.includes("loyalty"))?.question;
    expect(question).toBeDefined();
    const added = await corrections("", "POST", { question, answer: "It is called Shop Stars." });
    expect(added.status).toBe(201);
    expect((await ask("What's the loyalty programme called?")).response).toBe("It is called Shop Stars.");
  });
});

describe("correction errors", () => {
  it("refuses to correct a visitor's own message, an unknown one, or with a blank answer", async () => {
    const answered = await ask("How long does shipping take?");
    const userMessage = (await transcript(answered.conversationId)).messages[0];
    const onUser = await call(
      server,
      "POST",
      `/agents/${agent.id}/messages/${userMessage?.id}/correction/`,
      token,
      {
        answer: "x",
      },
    );
    expect(onUser.status).toBe(400);
    expect(onUser.body).toMatchObject({ error: "validation_error" });
    const unknown = await call(
      server,
      "POST",
      `/agents/${agent.id}/messages/00000000-0000-4000-8000-000000000000/correction/`,
      token,
      { answer: "x" },
    );
    expect(unknown.status).toBe(404);
    const blank = await corrections("", "POST", { question: "Hours?", answer: "   " });
    expect(blank.status).toBe(400);
    const extra = await corrections("", "POST", { question: "Hours?", answer: "Nine.", topK: 3 });
    expect(extra.status).toBe(400);
  });

  it("keeps corrections inside their workspace: another user sees none of them", async () => {
    const own = await corrections("", "POST", {
      question: "Is there parking?",
      answer: "Yes, behind the store.",
    });
    await server.createUser("stranger@example.com");
    const stranger = (await server.login("stranger@example.com", DEFAULT_PASSWORD)).access;
    expect((await corrections(`${own.body.id}/`, "GET", undefined, stranger)).status).toBe(404);
    expect((await corrections("", "GET", undefined, stranger)).status).toBe(404);
    expect((await corrections(`${own.body.id}/`, "DELETE", undefined, stranger)).status).toBe(404);
    expect((await corrections(`${own.body.id}/`)).status).toBe(200);
  });
});
