// Issue #50, "tests cover section answers for each source type": one agent over sources of every type,
// each holding a section whose answer needs a later sentence than the one that names the question's
// subject. The answer must be sure, carry that later fact, and cite the section (its heading path, and
// a deep link to it where the source has URLs).
import type { Citation, DataSource, QueryResponse } from "@lore/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeNotion, startFakeNotion } from "../fakes/notion-server.ts";
import { startTestSite, type TestSite } from "../fakes/web-site.ts";
import { docxParagraph, makeDocx } from "../fixtures/docx.ts";
import { makePdf } from "../fixtures/pdf.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import {
  call,
  createAgent,
  createFileSource,
  createTextSource,
  waitForSettled,
} from "../ingestion/source-helpers.ts";

const NOTION_PAGE = "55555555-5555-4555-8555-555555555555";

const markdown = `# Payments

## Paying by invoice

Business customers can pay by invoice after their third order. Invoices are due within thirty days.

## Gift cards

Gift cards can be redeemed at checkout on any order. The checkout shows the remaining balance, which stays valid for three years.
`;

const html = `<h1>Staying with pets</h1>
<h2>Pets</h2>
<p>Dogs are welcome in the hotel lobby and the garden. In the lobby a short lead is required at all times.</p>
<h2>Breakfast</h2>
<p>Breakfast is served from seven to ten in the conservatory. Fresh bread comes from the village bakery.</p>`;

const pdf = makePdf(
  [
    [
      { text: "Cordless drill manual", size: 20 },
      "",
      { text: "Battery", size: 15 },
      "Charge the battery fully on the supplied dock before you use the drill for the first time.",
      "The dock shows a green light after about four hours.",
      "",
      { text: "Drill bits", size: 15 },
      "Change drill bits only while the drill is switched off and unplugged.",
    ],
  ],
  { title: "Cordless drill manual" },
);

const docx = makeDocx(
  [
    docxParagraph("Hotel guide", "Title"),
    docxParagraph("Parking", "Heading1"),
    docxParagraph("Guests can park in the underground garage below the hotel."),
    docxParagraph("The garage closes at midnight and opens again at six."),
    docxParagraph("Wellness", "Heading1"),
    docxParagraph("The sauna is open every afternoon for guests over sixteen."),
  ].join(""),
  { title: "Hotel guide" },
);

let server: TestServer;
let site: TestSite;
let notion: FakeNotion;
let token: string;
let agentId: string;

beforeAll(async () => {
  site = await startTestSite({ "/stay/pets": { title: "Staying with pets", html } });
  notion = await startFakeNotion([
    {
      id: NOTION_PAGE,
      title: "Team handbook",
      blocks: [
        { type: "heading_2", text: "Holidays" },
        {
          type: "paragraph",
          text: "Every employee gets twenty eight days of holiday per year. Unused holiday expires at the end of March.",
        },
        { type: "heading_2", text: "Equipment" },
        { type: "paragraph", text: "Each engineer may expense one ergonomic chair." },
      ],
    },
  ]);
  server = await startTestServer({ LORE_NOTION_BASE_URL: notion.url, LORE_OUTBOUND_ALLOWLIST: "127.0.0.1" });
  token = (await server.login()).access;
  const created: DataSource[] = [
    await createTextSource(server, token, "Shop FAQ", [
      {
        title: "Cancelling an order",
        content:
          "You can cancel an order free of charge until it ships. Once shipped, use the returns process.",
      },
      { title: "Delivery times", content: "Parcels arrive within two working days across the country." },
    ]),
    (
      await createFileSource(server, token, "Files", [
        { name: "payments.md", bytes: markdown, type: "text/markdown" },
        { name: "drill-manual.pdf", bytes: pdf, type: "application/pdf" },
        {
          name: "hotel-guide.docx",
          bytes: docx,
          type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        },
      ])
    ).body,
    await sourceOf({
      name: "Hotel site",
      type: "web",
      config: { url: `${site.url}/stay/pets`, mode: "page" },
    }),
    await sourceOf({
      name: "Handbook",
      type: "notion",
      config: { token: notion.token, rootPageIds: [NOTION_PAGE] },
    }),
  ];
  for (const source of created)
    expect((await waitForSettled(server, token, source.id, 60_000)).status).toBe("ready");
  agentId = (
    await createAgent(server, token, { name: "Everything", dataSourceIds: created.map((s) => s.id) })
  ).id;
}, 120_000);

afterAll(async () => {
  await server?.close();
  await site?.close();
  await notion?.close();
});

async function sourceOf(body: Record<string, unknown>): Promise<DataSource> {
  const res = await call<DataSource>(server, "POST", "/data-sources/", token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function ask(message: string): Promise<QueryResponse> {
  const res = await call<QueryResponse>(server, "POST", `/agents/${agentId}/query/`, token, { message });
  expect(res.status).toBe(200);
  return res.body;
}

/** The answer is sure, says the later sentence's fact, and its first citation names the section. */
function expectSectionAnswer(body: QueryResponse, fact: string, heading: string): Citation {
  expect(body.response).toContain(fact);
  expect(body.outcome).toBe("answered");
  const cited = body.sources[0];
  // Article › heading: a text entry's title is its section.
  expect([cited?.title, ...(cited?.headingPath ?? [])]).toContain(heading);
  return cited as Citation;
}

describe("section answers for each source type", () => {
  it("text entries: gives the entry's rule with its exception", async () => {
    const body = await ask("Can I cancel my order?");
    expectSectionAnswer(body, "use the returns process", "Cancelling an order");
  });

  it("an uploaded Markdown file: the section under its heading", async () => {
    const body = await ask("Can I pay for an order with a gift card?");
    expectSectionAnswer(body, "three years", "Gift cards");
  });

  it("a web page: the section, with a deep link to its heading", async () => {
    const body = await ask("Are dogs welcome in the hotel?");
    const cited = expectSectionAnswer(body, "lead is required", "Pets");
    expect(cited.sourceUrl).toBe(`${site.url}/stay/pets#:~:text=Pets`);
  });

  it("a PDF: the section under a heading set larger than the body", async () => {
    const body = await ask("Should I charge the drill battery before the first use?");
    expectSectionAnswer(body, "about four hours", "Battery");
  });

  it("a DOCX: the section under a Heading 1 paragraph", async () => {
    const body = await ask("Where can guests park?");
    expectSectionAnswer(body, "closes at midnight", "Parking");
  });

  it("a Notion page: the section under its heading block, linked", async () => {
    const body = await ask("How many holiday days does an employee get?");
    const cited = expectSectionAnswer(body, "end of March", "Holidays");
    expect(cited.sourceUrl).toMatch(/^https:\/\/www\.notion\.so\/.*#:~:text=Holidays$/);
  });
});
