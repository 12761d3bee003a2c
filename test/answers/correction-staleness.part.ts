// Issue #50 item 3: a correction made from an answer remembers the passages that answer cited; when
// a later sync changes or deletes that document, the correction is marked stale until it is saved.
import type { Correction, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/until.ts";
import { call, createAgent, readyTextSource, waitForSettled } from "../ingestion/source-helpers.ts";

const WARRANTY = {
  title: "Warranty",
  content: "Every appliance carries a two year warranty against defects.",
};
const SHIPPING = { title: "Shipping", content: "Standard shipping takes three to five business days." };
const GIFTS = { title: "Gift cards", content: "Gift cards are valid for three years." };

let server: TestServer;
let token: string;
let agentId: string;
let sourceId: string;

const ask = async (message: string) => {
  const res = await call<QueryResponse>(server, "POST", `/agents/${agentId}/query/`, token, { message });
  expect(res.status).toBe(200);
  return res.body;
};
const correction = async (id: string) =>
  (await call<Correction>(server, "GET", `/agents/${agentId}/corrections/${id}/`, token)).body;
const correctAnswer = async (question: string, answer: string) => {
  const asked = await ask(question);
  expect(asked.sources.length).toBeGreaterThan(0);
  const res = await call<Correction>(
    server,
    "POST",
    `/agents/${agentId}/messages/${asked.messageId}/correction/`,
    token,
    { answer },
  );
  expect(res.status).toBe(201);
  return { correction: res.body, cited: asked.sources[0] };
};
const setEntries = async (entries: object[]) => {
  const res = await call(server, "PATCH", `/data-sources/${sourceId}/`, token, { config: { entries } });
  expect(res.status).toBe(200);
  await waitForSettled(server, token, sourceId);
};

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
  const source = await readyTextSource(server, token, "Shop FAQ", [WARRANTY, SHIPPING, GIFTS]);
  sourceId = source.id;
  agentId = (await createAgent(server, token, { name: "Shop", dataSourceIds: [source.id] })).id;
}, 60_000);
afterAll(() => server?.close());

describe("a correction whose source changed", () => {
  it("is marked stale when the document its answer cited changes, and saving it clears that", async () => {
    const made = await correctAnswer(
      "How long is the warranty on appliances?",
      "Appliances carry a **three year** warranty since 2025.",
    );
    expect(made.cited?.title).toBe("Warranty");
    expect(made.correction).toMatchObject({
      stale: false,
      staleSince: null,
      staleSource: null,
      alsoAnswers: [],
    });

    // A sync that leaves the warranty entry as it was changes nothing.
    await setEntries([WARRANTY, { ...SHIPPING, content: "Standard shipping takes two days." }, GIFTS]);
    expect((await correction(made.correction.id)).stale).toBe(false);

    const before = new Date().toISOString();
    await setEntries([
      { ...WARRANTY, content: "Every appliance carries a three year warranty against defects." },
      SHIPPING,
      GIFTS,
    ]);
    const stale = await until(
      async () => {
        const c = await correction(made.correction.id);
        return c.stale && c;
      },
      { timeout: 20_000, interval: 50, what: () => "the correction to be marked stale" },
    );
    expect(stale.staleSince && stale.staleSince >= before).toBe(true);
    expect(stale.staleSource).toEqual({
      documentId: made.cited?.documentId,
      dataSourceId: sourceId,
      title: "Warranty",
      change: "changed",
    });
    // The list shows it too, and it still answers: the owner decides.
    const list = await call<{ results: Correction[] }>(
      server,
      "GET",
      `/agents/${agentId}/corrections/`,
      token,
    );
    expect(list.body.results.find((c) => c.id === made.correction.id)?.stale).toBe(true);
    expect((await ask("How long is the warranty on appliances?")).correctionId).toBe(made.correction.id);

    const saved = await call<Correction>(
      server,
      "PATCH",
      `/agents/${agentId}/corrections/${made.correction.id}/`,
      token,
      { answer: "Appliances carry a three year warranty." },
    );
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ stale: false, staleSince: null, staleSource: null });
    // Reviewed against the new text: another sync of the same text does not mark it again.
    await setEntries([
      { ...WARRANTY, content: "Every appliance carries a three year warranty against defects." },
      SHIPPING,
    ]);
    expect((await correction(made.correction.id)).stale).toBe(false);
  }, 60_000);

  it("is marked stale when that document is deleted; one added by hand never is", async () => {
    const made = await correctAnswer("How long is standard shipping?", "Shipping takes two working days.");
    expect(made.cited?.title).toBe("Shipping");
    const byHand = await call<Correction>(server, "POST", `/agents/${agentId}/corrections/`, token, {
      question: "Do you sell gift cards?",
      answer: "Yes, online and in the store.",
    });
    await setEntries([
      { ...WARRANTY, content: "Every appliance carries a three year warranty against defects." },
    ]);
    const stale = await until(
      async () => {
        const c = await correction(made.correction.id);
        return c.stale && c;
      },
      { timeout: 20_000, interval: 50, what: () => "the correction to be marked stale" },
    );
    expect(stale.staleSource).toMatchObject({ title: "Shipping", change: "deleted" });
    expect((await correction(byHand.body.id)).stale).toBe(false);
  }, 60_000);
});
