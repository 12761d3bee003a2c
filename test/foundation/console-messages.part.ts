// Issue #31 item 3: every console form's refusal reads as a sentence. Each request below is what a
// console form sends with a mistake in it, against the real server; the console's table
// (console/src/messages.ts) turns the API's `details.fields` (zod's words) into what the owner reads.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fieldSentence, formOf } from "../../console/src/messages.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { createAgent } from "../ingestion/source-helpers.ts";

let server: TestServer;
let token: string;
let agentId: string;
let sourceId: string;
let workspaceId: string;

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.login()).access;
  agentId = (await createAgent(server, token, { name: "Help desk" })).id;
  const source = await server.request<{ id: string }>("POST", "/data-sources/", {
    token,
    body: { name: "FAQ", type: "text", config: { entries: [{ title: "Hours", content: "Nine to five." }] } },
  });
  sourceId = source.body.id;
  const me = await server.request<{ workspaces: { id: string }[] }>("GET", "/auth/me/", { token });
  workspaceId = me.body.workspaces[0]?.id ?? "";
});

afterAll(async () => {
  await server?.close();
});

/** What the console shows for a refused request: the sentences of each field, without repeats. */
async function sentences(method: string, path: string, body: unknown): Promise<Record<string, string[]>> {
  const res = await server.request<{ error: string; details: { fields?: Record<string, string[]> } }>(
    method,
    path,
    { token, body },
  );
  expect(res.status, `${method} ${path}`).toBe(400);
  expect(res.body.error).toBe("validation_error");
  return Object.fromEntries(
    Object.entries(res.body.details.fields ?? {}).map(([key, messages]) => [
      key,
      [...new Set(messages.map((m) => fieldSentence(key, m, formOf(path))))],
    ]),
  );
}

describe("console form errors, as sentences", () => {
  it("new agent and agent settings", async () => {
    expect(await sentences("POST", "/agents/", { name: "" })).toEqual({
      name: ["Give the assistant a name."],
    });
    expect(
      await sentences("PATCH", `/agents/${agentId}/`, {
        name: "",
        fallbackMessage: "",
        model: "gpt",
        retrieval: { topK: 0, minScore: 2 },
        handoff: { mode: "link", url: "ftp://example.com" },
        theme: { primaryColor: "blue" },
        allowedOrigins: ["https://example.com/path"],
      }),
    ).toEqual({
      name: ["Give the assistant a name."],
      fallbackMessage: ["Write what the assistant says when it cannot answer."],
      model: ["Choose a model from the list."],
      "retrieval.topK": ["Read at least 1 passage."],
      "retrieval.minScore": ["Use a number from 0 to 1."],
      "handoff.url": ["Use a link starting with https:// or mailto:."],
      "theme.primaryColor": ["Use a hex colour like #2563eb."],
      "allowedOrigins.0": ["Use a site like https://www.example.com or example.com, without a path."],
    });
  });

  it("sources: a new text or web source, a Notion token, one entry edited on its own", async () => {
    expect(
      await sentences("POST", "/data-sources/", {
        name: "",
        type: "text",
        config: { entries: [{ title: "", content: "" }] },
      }),
    ).toEqual({
      name: ["Give the source a name."],
      "config.entries.0.title": ["Give the entry a title."],
      "config.entries.0.content": ["Write the entry's text."],
    });
    expect(
      await sentences("POST", "/data-sources/", {
        name: "Site",
        type: "web",
        config: { url: "not a url", maxPages: 0, maxDepth: 99 },
      }),
    ).toEqual({
      "config.url": ["Use a web address like https://docs.example.com/."],
      "config.maxPages": ["Read at least 1 page."],
      "config.maxDepth": ["Follow links at most 10 deep."],
    });
    // A refused site says the server's reason and what to do, whatever the scheme.
    for (const url of ["http://127.0.0.1:8832/", "https://127.0.0.1:8832/"]) {
      expect(
        await sentences("POST", "/data-sources/", { name: "Local", type: "web", config: { url } }),
      ).toEqual({
        "config.url": [
          "Refusing to connect to 127.0.0.1: loopback address. For a server on this machine or your own network, start Lore with its host or network in LORE_OUTBOUND_ALLOWLIST (a host name, an address or a network such as 10.0.0.0/8).",
        ],
      });
    }
    // RFC 6761: `.invalid` never resolves, with or without a network.
    const unknown = await sentences("POST", "/data-sources/", {
      name: "Docs",
      type: "web",
      config: { url: "http://docs.lore-test.invalid/" },
    });
    expect(unknown["config.url"]?.[0]).toMatch(
      /^Could not resolve docs\.lore-test\.invalid.*Check the address/,
    );
    expect(
      await sentences("POST", "/data-sources/", { name: "Wiki", type: "notion", config: { token: "" } }),
    ).toEqual({ "config.token": ["Paste the Notion integration's secret."] });
    expect(
      await sentences("PUT", `/data-sources/${sourceId}/entries/opening-hours/`, { title: "", content: "" }),
    ).toEqual({ title: ["Give the entry a title."], content: ["Write the entry's text."] });
  });

  it("keys, invitations, corrections, allowed sites, Try it and the login", async () => {
    expect(await sentences("POST", `/agents/${agentId}/api-keys/`, { name: "" })).toEqual({
      name: ["Give the key a name."],
    });
    expect(
      await sentences("POST", `/workspaces/${workspaceId}/members/`, { email: "nope", role: "editor" }),
    ).toEqual({ email: ["Enter an e-mail address like name@example.com."] });
    expect(
      await sentences("POST", `/agents/${agentId}/corrections/`, { question: " ", answer: " " }),
    ).toEqual({
      question: ["Write the question."],
      answer: ["Write the answer."],
    });
    expect(
      await sentences("POST", `/agents/${agentId}/widget-origins/allow/`, {
        origin: "https://example.com/path",
      }),
    ).toEqual({ origin: ["Use a site like https://www.example.com or example.com, without a path."] });
    expect(await sentences("POST", `/agents/${agentId}/search/`, { query: " " })).toEqual({
      query: ["Write a question to search for."],
    });
    expect(await sentences("POST", "/auth/session/", { email: "nope", password: "" })).toEqual({
      email: ["Enter an e-mail address like name@example.com."],
      password: ["Enter your password."],
    });
  });
});
