import type { Agent, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeChatBody, type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import type { TestServer } from "../helpers/server.ts";
import { startServerWithAgent } from "../helpers/server-with-agent.ts";
import { call } from "../ingestion/source-helpers.ts";

const FALLBACK = "Sorry, our help center does not cover that yet.";

/** A Jekyll help article as it sits in the repository: Liquid tags, raw HTML, kramdown, a procedure, a table. */
const ARTICLE = [
  "{% include browser-header.md %}",
  "Sync & Backup keeps your bookmarks and passwords up to date, plus {% include sync-benefits.md %}, on all your devices.",
  "",
  "## Turn on sync",
  "",
  "<p>",
  "  To turn on sync, you need",
  "  <strong>two devices</strong>:",
  "</p>",
  "",
  '1. Open **Settings** &gt; [Sync & Backup]({{ site.baseurl }}/sync-and-backup/){:target="\\_blank"}',
  "1. Select <em>Sync With Another Device</em>",
  "1. Scan the QR code ![QR code screenshot]({{site.baseurl}}/images/qr.png)",
  "",
  "{% callout %}",
  "Your data is end-to-end encrypted.",
  "{% endcallout %}",
  "",
  "<table>",
  "<tr><th>Plan</th><th>Devices</th></tr>",
  "<tr><td>Free</td><td>Unlimited</td></tr>",
  "</table>",
].join("\n");

const PASSAGE = [
  "To turn on sync, you need two devices:",
  "",
  "1. Open Settings > Sync & Backup",
  "2. Select Sync With Another Device",
  "3. Scan the QR code",
  "",
  "Your data is end-to-end encrypted.",
  "",
  "| Plan | Devices |",
  "| --- | --- |",
  "| Free | Unlimited |",
].join("\n");

let fake: FakeOpenAI;
let server: TestServer;
let token: string;
let agent: Agent;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  ({ server, token, agent } = await startServerWithAgent({
    env: { LORE_OPENAI_BASE_URL: fake.url, LORE_OPENAI_TIMEOUT_MS: "1500" },
    source: { name: "Help center", entries: [{ title: "Sync & Backup", content: ARTICLE }] },
    agent: {
      name: "Help desk",
      model: "openai:fake-chat",
      fallbackMessage: FALLBACK,
    },
  }));
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

describe("a help article answered by an OpenAI-compatible model", () => {
  it("sends the cleaned, structured passage and the fallback rule in the system prompt", async () => {
    const res = await call<QueryResponse>(server, "POST", `/agents/${agent.id}/query/`, token, {
      message: "How do I turn on sync with two devices?",
    });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe("openai:fake-chat");

    const body = fake.requests.filter((r) => r.path.endsWith("/chat/completions")).at(-1)?.body as
      | FakeChatBody
      | undefined;
    const system = body?.messages?.[0]?.content ?? "";
    expect(body?.messages?.[0]?.role).toBe("system");
    expect(system).toContain(`If the sources do not contain the answer, reply exactly with: ${FALLBACK}`);
    // The passage is labelled with its article and heading, and keeps the procedure's and table's lines.
    expect(system).toContain(`] Sync & Backup › Turn on sync — ${PASSAGE}`);
    expect(system).not.toMatch(/\{%|%\}|\{\{|\}\}|\{:|<\/?[a-z][^>]*>|\]\(|&[a-z]+;|\*\*/i);
    expect(system).not.toMatch(/screenshot|site\.baseurl|_blank|include/i);

    // The answer and its snippets quote the clean text too.
    expect(res.body.response).not.toMatch(/\{%|\{\{|<[a-z/]/i);
    for (const s of res.body.sources) expect(JSON.stringify(s)).not.toMatch(/\{%|\{\{|\{:|<[a-z/]|\]\(/i);
  });
});
