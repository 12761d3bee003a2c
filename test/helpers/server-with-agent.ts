/**
 * An answer test file's set-up: a test server, the admin's token, and an agent answering from one
 * text source synced to ready.
 *
 *   beforeAll(async () => {
 *     ({ server, token, agent } = await startServerWithAgent({
 *       source: { name: "Shop FAQ", entries: shopEntries },
 *       agent: { name: "Shop" },
 *     }));
 *   });
 */
import type { Agent, DataSource } from "@lore/shared";
import { createAgent, type Entry, readyTextSource } from "../ingestion/source-helpers.ts";
import { startTestServer, type TestServer } from "./server.ts";

export interface ServerWithAgent {
  server: TestServer;
  /** The admin's access token. */
  token: string;
  source: DataSource;
  agent: Agent;
}

export async function startServerWithAgent(options: {
  env?: Record<string, string>;
  source: { name: string; entries: Entry[] };
  /** The agent's fields; it answers from the source (its `dataSourceIds`). */
  agent: Record<string, unknown>;
}): Promise<ServerWithAgent> {
  const server = await startTestServer(options.env);
  const token = (await server.login()).access;
  const source = await readyTextSource(server, token, options.source.name, options.source.entries);
  const agent = await createAgent(server, token, { ...options.agent, dataSourceIds: [source.id] });
  return { server, token, source, agent };
}
