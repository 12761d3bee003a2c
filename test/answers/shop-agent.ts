import type { Agent, QueryResponse } from "@lore/shared";
import { expect } from "vitest";
import { shopEntries } from "../fixtures/shop-corpus.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { call, createAgent, readyTextSource } from "../ingestion/source-helpers.ts";

/** A server whose admin has an agent answering from the shop FAQ. */
export interface ShopAgent {
  server: TestServer;
  token: string;
  agent: Agent;
}

/** Starts a server (with `env`), loads the shop FAQ and creates an agent on it with `fields`. */
export async function startShopAgent(
  fields: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<ShopAgent> {
  const server = await startTestServer(env);
  const token = (await server.login()).access;
  const shop = await readyTextSource(server, token, "Shop FAQ", shopEntries);
  const agent = await createAgent(server, token, { name: "Shop", dataSourceIds: [shop.id], ...fields });
  return { server, token, agent };
}

/** Asks the agent through `POST /query/` as its owner (200 expected). */
export async function askShop(
  shop: ShopAgent,
  message: string,
  conversationId?: string,
): Promise<QueryResponse> {
  const res = await call<QueryResponse>(shop.server, "POST", `/agents/${shop.agent.id}/query/`, shop.token, {
    message,
    conversationId,
  });
  expect(res.status).toBe(200);
  return res.body;
}
