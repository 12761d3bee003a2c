import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeNotion, type FakePage, startFakeNotion } from "../../../../test/fakes/notion-server.ts";
import { chunkDocument } from "../chunking/chunk-document.ts";
import type { RawDocument } from "../documents.ts";
import { parseDocument } from "../parsing/parse-document.ts";
import { NotionError, readNotion } from "./notion.ts";

const ROOT = "11111111-1111-1111-1111-111111111111";
const CHILD = "22222222-2222-2222-2222-222222222222";
const DB = "33333333-3333-3333-3333-333333333333";

const pages: FakePage[] = [
  {
    id: ROOT,
    title: "Handbook",
    blocks: [
      { type: "heading_1", text: "Holidays" },
      { type: "paragraph", text: "Everyone gets 25 days." },
      {
        type: "bulleted_list_item",
        text: "Book early",
        children: [{ type: "bulleted_list_item", text: "Use the HR tool" }],
      },
      { type: "numbered_list_item", text: "Ask your lead" },
      { type: "numbered_list_item", text: "Wait for approval" },
      { type: "to_do", text: "Read the policy", checked: true },
      { type: "quote", text: "Rest is part of the work." },
      { type: "code", text: "npm run holidays", language: "bash" },
      {
        type: "table",
        rows: [
          ["Country", "Days"],
          ["NL", "25"],
          ["US", "20"],
        ],
      },
      {
        type: "toggle",
        text: "Details",
        children: [{ type: "paragraph", text: "Unused days expire in March." }],
      },
      { type: "child_page", ref: CHILD },
      { type: "child_database", ref: DB },
    ],
  },
  { id: CHILD, title: "Expenses", blocks: [{ type: "paragraph", text: "Submit receipts within 30 days." }] },
  {
    id: "44444444-4444-4444-4444-444444444444",
    title: "Laptop",
    databaseId: DB,
    properties: { Owner: "IT" },
    blocks: [{ type: "paragraph", text: "Laptops are replaced every 3 years." }],
  },
  {
    id: "55555555-5555-5555-5555-555555555555",
    title: "Phone",
    databaseId: DB,
    blocks: [{ type: "paragraph", text: "Phones are replaced every 2 years." }],
  },
  {
    id: "66666666-6666-6666-6666-666666666666",
    title: "Desk",
    databaseId: DB,
    blocks: [{ type: "paragraph", text: "Standing desks on request." }],
  },
];

let notion: FakeNotion;
beforeAll(async () => {
  notion = await startFakeNotion(pages, { databases: [{ id: DB, title: "Equipment" }] });
});
afterAll(() => notion.close());

async function read(
  token = notion.token,
  rootPageIds = [ROOT],
  databaseIds: string[] = [],
): Promise<RawDocument[]> {
  const docs: RawDocument[] = [];
  for await (const d of readNotion({ token, rootPageIds, databaseIds }, { baseUrl: notion.url }))
    docs.push(d);
  return docs;
}

describe("readNotion", () => {
  it("reads a page tree with nested blocks, child pages and a child database, through pagination and a 429", async () => {
    const docs = await read();
    expect(docs.map((d) => d.title)).toEqual(["Handbook", "Expenses", "Laptop", "Phone", "Desk"]);
    const root = docs[0];
    expect(root).toMatchObject({
      externalId: ROOT,
      kind: "notion",
      sourceUrl: expect.stringMatching(/^https:\/\/www\.notion\.so\/Handbook-1111/),
    });
    expect(root?.body).toBe(
      [
        "# Holidays",
        "",
        "Everyone gets 25 days.",
        "",
        "- Book early",
        "  - Use the HR tool",
        "1. Ask your lead",
        "2. Wait for approval",
        "- [x] Read the policy",
        "> Rest is part of the work.",
        "",
        "```bash",
        "npm run holidays",
        "```",
        "",
        "| Country | Days |",
        "|---|---|",
        "| NL | 25 |",
        "| US | 20 |",
        "",
        "- Details",
        "  Unused days expire in March.",
      ].join("\n"),
    );
    expect(docs[2]?.body).toBe("Owner: IT\n\nLaptops are replaced every 3 years.");
    // Pagination: block lists of 12 with page size 2 need start_cursor requests.
    expect(notion.requests.some((r) => r.includes("start_cursor=2"))).toBe(true);
    // The first database query was rate limited and retried.
    expect(notion.requests.filter((r) => r.startsWith("POST /v1/databases/")).length).toBeGreaterThanOrEqual(
      3,
    );
  });

  it("produces documents the parser and chunker turn into cited chunks", async () => {
    const [root] = await read();
    if (!root) throw new Error("no root page");
    const doc = await parseDocument(root);
    expect(doc.kind).toBe("notion");
    expect(doc.title).toBe("Handbook");
    const chunks = chunkDocument(doc);
    // A table that fits a chunk stays a markdown table, header first (see docs/api.md, "Help articles and markup").
    expect(chunks.find((c) => c.text.includes("NL"))?.body).toContain(
      "| Country | Days |\n| --- | --- |\n| NL | 25 |\n| US | 20 |",
    );
    expect(chunks[0]?.headingPath).toEqual(["Holidays"]);
  });

  it("reads a database given directly and skips nothing twice", async () => {
    const docs = await read(notion.token, [CHILD], [DB, DB]);
    expect(docs.map((d) => d.title)).toEqual(["Expenses", "Laptop", "Phone", "Desk"]);
  });

  it("sees edited, removed and added pages on the next read", async () => {
    notion.setPage({
      id: CHILD,
      title: "Expenses",
      blocks: [{ type: "paragraph", text: "Submit receipts within 14 days." }],
    });
    notion.removePage("66666666-6666-6666-6666-666666666666");
    notion.setPage({
      id: "77777777-7777-7777-7777-777777777777",
      title: "Monitor",
      databaseId: DB,
      blocks: [{ type: "paragraph", text: "Two monitors per person." }],
    });
    const docs = await read(notion.token, [CHILD], [DB]);
    expect(docs.map((d) => d.title)).toEqual(["Expenses", "Laptop", "Phone", "Monitor"]);
    expect(docs[0]?.body).toContain("14 days");
  });

  it("fails the read with Notion's error on a bad token", async () => {
    const err = await read("secret_wrong").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotionError);
    expect(err).toMatchObject({ status: 401, code: "unauthorized" });
  });

  it("skips a root page the integration cannot see", async () => {
    expect(await read(notion.token, ["99999999-9999-9999-9999-999999999999"])).toEqual([]);
  });
});
