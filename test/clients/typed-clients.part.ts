/**
 * Clients generated from the served OpenAPI document, checked by the TypeScript compiler (strict):
 * openapi-typescript's types used through openapi-fetch's default `createClient<paths>()`, and
 * @hey-api/openapi-ts's SDK (its fetch client generated alongside, offline from the installed
 * package). The JSON body of a question is typed (`data.response`), pages take numbers, and the
 * stream is a typed response of its own; the generated hey-api SDK also lists agents on the server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient as generateHeyApiClient } from "@hey-api/openapi-ts";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, startTestServer, type TestServer } from "../helpers/server.ts";
import { createAgent } from "../ingestion/source-helpers.ts";

let server: TestServer;
let doc: unknown;
// Inside test/, so the client's imports resolve to this package's openapi-fetch.
const dir = mkdtempSync(join(repoRoot, "test/clients/.typed-"));

beforeAll(async () => {
  server = await startTestServer();
  doc = await (await fetch(`${server.api}/openapi.json`)).json();
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const CLIENT = `
import createClient from "openapi-fetch";
import type { components, paths } from "./lore-api";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1/api" });

export async function ask(agentId: string): Promise<string | undefined> {
  const { data } = await client.POST("/agents/{agentId}/query/", {
    params: { path: { agentId } },
    body: { message: "How long does shipping take?" },
  });
  return data?.response;
}

export async function agents(): Promise<number | undefined> {
  const { data } = await client.GET("/agents/", { params: { query: { page: 2, page_size: 10 } } });
  return data?.results[0]?.name.length;
}

export async function chat(agentId: string): Promise<string | null | undefined> {
  const { data } = await client.POST("/agents/{agentId}/chat/completions/", {
    params: { path: { agentId } },
    body: { model: "any", messages: [{ role: "user", content: "Hi" }] },
  });
  return data?.choices[0]?.message.content;
}

export type AnswerStream = components["responses"]["postAgentsAgentIdQueryStream"]["content"]["text/event-stream"];
`;

const HEY_API_CLIENT = `
import { client } from "./hey/client.gen";
import { getAgents, postAgentsAgentIdChatCompletions, postAgentsAgentIdQuery } from "./hey";

client.setConfig({ baseUrl: "http://127.0.0.1/api" });

export async function ask(agentId: string): Promise<string | undefined> {
  const { data } = await postAgentsAgentIdQuery({
    path: { agentId },
    body: { message: "How long does shipping take?" },
  });
  return data?.response;
}

export async function agents(): Promise<number | undefined> {
  const { data } = await getAgents({ query: { page: 2, page_size: 10 } });
  return data?.results[0]?.name.length;
}

export async function chat(agentId: string): Promise<string | null | undefined> {
  const { data } = await postAgentsAgentIdChatCompletions({
    path: { agentId },
    body: { model: "any", messages: [{ role: "user", content: "Hi" }] },
  });
  return data?.choices[0]?.message.content;
}
`;

/** What the test calls of the generated SDK (the compiler checks the rest above). */
interface HeyApiSdk {
  client: { setConfig(config: { baseUrl: string; headers: Record<string, string> }): unknown };
  getAgents(options: {
    query: { page_size: number };
  }): Promise<{ data?: { results: { name: string }[] }; response: Response }>;
}

/** The compiler's complaints about `files` and what they import, strict, as an integrator's build would. */
function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? `${d.file.fileName.slice(dir.length + 1)}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
}

describe("clients generated from /api/openapi.json", () => {
  it("openapi-fetch's default client (openapi-typescript) and hey-api's SDK type-check JSON bodies, pages and the stream", async () => {
    writeFileSync(join(dir, "lore-api.ts"), astToString(await openapiTS(doc as never)));
    writeFileSync(join(dir, "client.ts"), CLIENT);
    mkdirSync(join(dir, "hey"));
    writeFileSync(join(dir, "lore-openapi.json"), JSON.stringify(doc));
    await generateHeyApiClient({
      input: join(dir, "lore-openapi.json"),
      output: join(dir, "hey"),
      logs: { level: "silent" },
    });
    writeFileSync(join(dir, "hey-client.ts"), HEY_API_CLIENT);
    // One program for both: the compiler reads the standard library once.
    expect(typeErrors([join(dir, "client.ts"), join(dir, "hey-client.ts")])).toEqual([]);
  });

  it("hey-api's generated SDK lists the server's agents at run time", async () => {
    const hey = {
      ...((await import(join(dir, "hey/index.ts"))) as Pick<HeyApiSdk, "getAgents">),
      ...((await import(join(dir, "hey/client.gen.ts"))) as Pick<HeyApiSdk, "client">),
    };
    const token = (await server.login()).access;
    await createAgent(server, token, { name: "Generated" });
    hey.client.setConfig({ baseUrl: server.api, headers: { Authorization: `Bearer ${token}` } });
    const { data, response } = await hey.getAgents({ query: { page_size: 1 } });
    expect(response.status).toBe(200);
    expect(data?.results.map((a) => a.name)).toEqual(["Generated"]);
  });
});
