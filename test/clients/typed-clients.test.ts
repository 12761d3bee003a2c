/**
 * Types generated from the served OpenAPI document with openapi-typescript, used through
 * openapi-fetch's default `createClient<paths>()`, checked by the TypeScript compiler: the JSON
 * body of a question is typed (`data.response`), pages take numbers, and the stream is a typed
 * response of its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
// Inside test/, so the client's imports resolve to this package's openapi-fetch.
const dir = mkdtempSync(join(repoRoot, "test/clients/.typed-"));

beforeAll(async () => {
  server = await startTestServer();
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

describe("openapi-typescript + openapi-fetch's default client", () => {
  it("type-check the JSON bodies of streamable routes, pages and the stream's own response", async () => {
    const doc = await (await fetch(`${server.api}/openapi.json`)).json();
    writeFileSync(join(dir, "lore-api.ts"), astToString(await openapiTS(doc)));
    writeFileSync(join(dir, "client.ts"), CLIENT);
    const program = ts.createProgram([join(dir, "client.ts")], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? `${d.file.fileName.slice(dir.length + 1)}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      );
    expect(problems).toEqual([]);
  });
});
