import { rmSync } from "node:fs";
import type { Agent, Conversation } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, startTestServer, type TestServer } from "../helpers/server.ts";
import { call } from "../ingestion/source-helpers.ts";
import { askShop, type ShopAgent, startShopAgent } from "./shop-agent.ts";

const dataDir = makeTempDir();
let shop: ShopAgent;
let server: TestServer;
let token: string;
let agent: Agent;
const ids: Record<string, string> = {};
const answers: Record<string, string> = {};

const base = () => `/agents/${agent.id}/conversations/`;
const statusOf = async (status: "open" | "resolved") => {
  const res = await call<{ results: Conversation[] }>(server, "GET", `${base()}?status=${status}`, token);
  expect(res.status).toBe(200);
  return res.body.results.map((c) => c.id).sort();
};
const setStatus = (id: string, status: unknown) =>
  call<Conversation & { error?: string }>(server, "PATCH", `${base()}${id}/`, token, { status });

beforeAll(async () => {
  shop = await startShopAgent({}, { LORE_DATA_DIR: dataDir });
  ({ server, token, agent } = shop);
  for (const [key, question] of [
    ["shipping", "How long does standard shipping take?"],
    ["warranty", "Does the warranty cover water damage?"],
    ["store", "When does the Amsterdam store open?"],
  ] as const) {
    const asked = await askShop(shop, question);
    ids[key] = asked.conversationId;
    answers[key] = asked.messageId;
  }
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a conversation's review status", () => {
  it("starts open", async () => {
    const detail = await call<Conversation>(server, "GET", `${base()}${ids.shipping}/`, token);
    expect(detail.body).toMatchObject({ status: "open", resolvedAt: null });
    expect(await statusOf("resolved")).toEqual([]);
    expect(await statusOf("open")).toHaveLength(3);
  });

  it("is resolved and opened again from the API, and the list filters by it", async () => {
    const resolved = await setStatus(ids.shipping ?? "", "resolved");
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ id: ids.shipping, status: "resolved" });
    expect(Date.parse(resolved.body.resolvedAt ?? "")).not.toBeNaN();
    expect(resolved.body).not.toHaveProperty("messages");
    expect(await statusOf("resolved")).toEqual([ids.shipping]);
    expect(await statusOf("open")).not.toContain(ids.shipping);

    const reopened = await setStatus(ids.shipping ?? "", "open");
    expect(reopened.body).toMatchObject({ status: "open", resolvedAt: null });
    expect(await statusOf("resolved")).toEqual([]);
  });

  it("is resolved by a correction of one of its answers", async () => {
    const res = await call(
      server,
      "POST",
      `/agents/${agent.id}/messages/${answers.warranty}/correction/`,
      token,
      {
        answer: "Water damage is not covered by the warranty.",
      },
    );
    expect(res.status).toBe(201);
    expect(await statusOf("resolved")).toEqual([ids.warranty]);
  });

  it("opens again when the visitor asks a new question", async () => {
    await setStatus(ids.store ?? "", "resolved");
    expect(await statusOf("resolved")).toContain(ids.store);
    await askShop(shop, "And on Sundays?", ids.store);
    expect(await statusOf("resolved")).not.toContain(ids.store);
  });

  it("refuses unknown statuses, other fields and unknown conversations", async () => {
    const bad = await setStatus(ids.shipping ?? "", "closed");
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "validation_error" });
    const extra = await call(server, "PATCH", `${base()}${ids.shipping}/`, token, {
      status: "resolved",
      title: "renamed",
    });
    expect(extra.status).toBe(400);
    const query = await call(server, "GET", `${base()}?status=closed`, token);
    expect(query.status).toBe(400);
    const missing = await setStatus("00000000-0000-4000-8000-000000000000", "resolved");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: "not_found" });
  });

  it("keeps the status across a restart", async () => {
    await server.close();
    server = await startTestServer({ LORE_DATA_DIR: dataDir });
    token = (await server.login()).access;
    shop = { server, token, agent };
    expect(await statusOf("resolved")).toEqual([ids.warranty]);
  });
});
