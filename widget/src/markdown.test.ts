import { describe, expect, it } from "vitest";
import { decodeEntities, parseInline, parseMarkdown, safeHref } from "./markdown.ts";

describe("parseMarkdown", () => {
  it("parses paragraphs, headings, lists, code blocks and quotes", () => {
    const blocks = parseMarkdown(
      "# Title\n\nFirst line\nsecond line\n\n- one\n- two\n  continued\n\n3. three\n4. four\n\n```js\nconst x = 1;\n```\n\n> quoted",
    );
    expect(blocks.map((b) => b.t)).toEqual(["h", "p", "ul", "ol", "pre", "quote"]);
    expect(blocks[2]).toMatchObject({
      t: "ul",
      items: [
        [{ t: "text", v: "one" }],
        [{ t: "text", v: "two" }, { t: "br" }, { t: "text", v: "continued" }],
      ],
    });
    expect(blocks[3]).toMatchObject({ t: "ol", start: 3 });
    expect(blocks[4]).toEqual({ t: "pre", lang: "js", v: "const x = 1;" });
  });

  it("parses a pipe table: header, alignment, rows padded or cut to the header's width, escaped pipes", () => {
    const [table] = parseMarkdown(
      "| Plan | Price | Notes |\n|:---|---:|:-:|\n| **Pro** | $10 [2] | a \\| b |\n| Free |\n| x | y | z | extra |",
    );
    expect(table).toEqual({
      t: "table",
      align: ["left", "right", "center"],
      head: [[{ t: "text", v: "Plan" }], [{ t: "text", v: "Price" }], [{ t: "text", v: "Notes" }]],
      rows: [
        [
          [{ t: "strong", c: [{ t: "text", v: "Pro" }] }],
          [
            { t: "text", v: "$10 " },
            { t: "cite", n: 2 },
          ],
          [{ t: "text", v: "a | b" }],
        ],
        [[{ t: "text", v: "Free" }], [], []],
        [[{ t: "text", v: "x" }], [{ t: "text", v: "y" }], [{ t: "text", v: "z" }]],
      ],
    });
  });

  it("finds a table without outer pipes and after a paragraph line, and ends it at a line without pipes", () => {
    expect(parseMarkdown("Compare:\na | b\n--- | ---\n1 | 2\nAfter.").map((b) => b.t)).toEqual([
      "p",
      "table",
      "p",
    ]);
  });

  it("keeps a pipe line without a matching divider as text", () => {
    expect(parseMarkdown("a | b\n---\n\nx | y").map((b) => b.t)).toEqual(["p", "hr", "p"]);
    expect(parseMarkdown("a | b\n|---|---|---|")).toEqual([
      { t: "p", c: [{ t: "text", v: "a | b" }, { t: "br" }, { t: "text", v: "|---|---|---|" }] },
    ]);
  });

  it("keeps HTML in table cells as text", () => {
    const [table] = parseMarkdown("| a |\n|---|\n| <img src=x onerror=alert(1)> |");
    expect(table).toMatchObject({ rows: [[[{ t: "text", v: "<img src=x onerror=alert(1)>" }]]] });
  });

  it("parses numbered lists with a line break inside an item, and a fence after a list", () => {
    expect(parseMarkdown("1) first\n   still first\n2) second\n\n- a\n```\ncode\n```")).toEqual([
      {
        t: "ol",
        start: 1,
        items: [
          [{ t: "text", v: "first" }, { t: "br" }, { t: "text", v: "still first" }],
          [{ t: "text", v: "second" }],
        ],
      },
      { t: "ul", items: [[{ t: "text", v: "a" }]] },
      { t: "pre", lang: "", v: "code" },
    ]);
  });

  it("keeps an unclosed code fence (mid-stream) as code", () => {
    expect(parseMarkdown("Look:\n```\npartial")).toEqual([
      { t: "p", c: [{ t: "text", v: "Look:" }] },
      { t: "pre", lang: "", v: "partial" },
    ]);
  });
});

describe("parseInline", () => {
  it("parses strong, emphasis, code and links", () => {
    expect(parseInline("**bold** and *it* and `x*y` and [site](https://a.test/p)")).toEqual([
      { t: "strong", c: [{ t: "text", v: "bold" }] },
      { t: "text", v: " and " },
      { t: "em", c: [{ t: "text", v: "it" }] },
      { t: "text", v: " and " },
      { t: "code", v: "x*y" },
      { t: "text", v: " and " },
      { t: "link", href: "https://a.test/p", c: [{ t: "text", v: "site" }] },
    ]);
  });

  it("reads [n] and [n, m] as citation markers but not links", () => {
    expect(parseInline("Yes [1][2] and [3, 4]. [5](https://x.test)")).toEqual([
      { t: "text", v: "Yes " },
      { t: "cite", n: 1 },
      { t: "cite", n: 2 },
      { t: "text", v: " and " },
      { t: "cite", n: 3 },
      { t: "cite", n: 4 },
      { t: "text", v: ". " },
      { t: "link", href: "https://x.test/", c: [{ t: "text", v: "5" }] },
    ]);
  });

  it("leaves snake_case and lone asterisks alone and links bare URLs without trailing punctuation", () => {
    expect(parseInline("use snake_case_name, 2 * 3 * 4")).toEqual([
      { t: "text", v: "use snake_case_name, 2 * 3 * 4" },
    ]);
    expect(parseInline("See https://a.test/x.")).toEqual([
      { t: "text", v: "See " },
      { t: "link", href: "https://a.test/x", c: [{ t: "text", v: "https://a.test/x" }] },
      { t: "text", v: "." },
    ]);
  });
});

describe("safeHref", () => {
  it.each([
    ["https://a.test/x", "https://a.test/x"],
    ["http://a.test", "http://a.test/"],
    ["mailto:help@a.test", "mailto:help@a.test"],
    ["javascript:alert(1)", null],
    [" JavaScript:alert(1)", null],
    ["java\tscript:alert(1)", null],
    ["data:text/html;base64,PHNjcmlwdD4=", null],
    ["vbscript:msgbox(1)", null],
    ["jav&#x61;script:alert(1)", null],
    ["//evil.test/x", null],
    ["/relative", null],
    ["file:///etc/passwd", null],
  ])("%s → %s", (input, expected) => {
    expect(safeHref(input)).toBe(expected);
  });
});

describe("decodeEntities", () => {
  it("decodes named and numeric references to plain characters", () => {
    expect(decodeEntities("&lt;b&gt; &amp; &#39;x&#x27; &nbsp;&bogus; &#0;")).toBe(
      "<b> & 'x' \u00a0&bogus; \ufffd",
    );
  });
});

describe("contact links in answers", () => {
  const links = (text: string) =>
    parseInline(text).flatMap((n) =>
      n.t === "link" ? [{ href: n.href, text: n.c.map((c) => (c.t === "text" ? c.v : "")).join("") }] : [],
    );

  it("links e-mail addresses, phone numbers and URLs", () => {
    expect(links("Write to help@acme.example or call +1 (555) 123-4567 or 0800-123-4567.")).toEqual([
      { href: "mailto:help@acme.example", text: "help@acme.example" },
      { href: "tel:+15551234567", text: "+1 (555) 123-4567" },
      { href: "tel:08001234567", text: "0800-123-4567" },
    ]);
    expect(links("See https://acme.example/help.")).toEqual([
      { href: "https://acme.example/help", text: "https://acme.example/help" },
    ]);
  });

  it("leaves dates, amounts, versions and short numbers as text", () => {
    for (const text of [
      "On 2024-05-01 we",
      "costs 10 000 000 euros",
      "version 10.15.7",
      "in 3-5 days",
      "code 12345",
    ])
      expect(links(text)).toEqual([]);
  });

  it("never makes a link of a script or markup", () => {
    expect(safeHref("javascript:alert(1)")).toBeNull();
    expect(safeHref("tel:+123")).toBe("tel:+123");
    const nodes = parseInline('<img src=x onerror=alert(1)> mail "a@b.co"');
    expect(nodes.filter((n) => n.t === "link")).toHaveLength(1);
    expect(nodes[0]).toEqual({ t: "text", v: '<img src=x onerror=alert(1)> mail "' });
  });
});
