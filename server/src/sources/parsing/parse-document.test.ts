import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getDocumentProxy } from "unpdf";
import { describe, expect, it } from "vitest";
import { datasetPath, hasDatasets } from "../../../../bench/src/datasets.ts";
import { docxParagraph, docxTable, makeDocx, makeDocxBomb } from "../../../../test/fixtures/docx.ts";
import { makePdf, truncatePdf } from "../../../../test/fixtures/pdf.ts";
import type { RawDocument } from "../documents.ts";
import { ParseError } from "../documents.ts";
import { DOCX_MAX_INFLATED_BYTES, parseDocx } from "./docx.ts";
import { detectKind, parseDocument, UnsupportedTypeError } from "./parse-document.ts";
import { parsePdf } from "./pdf.ts";
import { listZipEntries } from "./zip.ts";

function raw(body: Uint8Array | string, fileName?: string, extra: Partial<RawDocument> = {}): RawDocument {
  return { externalId: fileName ?? "x", title: "", sourceUrl: null, kind: null, fileName, body, ...extra };
}
function sample(path: string): Uint8Array {
  return new Uint8Array(readFileSync(join(datasetPath("py-pdf-sample-files"), path)));
}
const utf8 = (s: string) => new TextEncoder().encode(s);

describe("detectKind", () => {
  it("trusts the content over a misleading file name", () => {
    expect(detectKind(raw(makePdf([["hi"]]), "notes.txt"))).toBe("pdf");
    expect(detectKind(raw(makeDocx(docxParagraph("x")), "report.pdf"))).toBe("docx");
    expect(detectKind(raw(utf8("<!doctype html><html><body><p>x</p></body></html>"), "page.txt.bin"))).toBe(
      "html",
    );
    expect(detectKind(raw(utf8("just words"), "fake.pdf"))).toBe("text");
  });

  it("tells text formats apart by name and content", () => {
    expect(detectKind(raw(utf8("a,b\n1,2\n"), "data.csv"))).toBe("csv");
    expect(detectKind(raw(utf8("# Title\n\nbody"), "readme"))).toBe("markdown");
    expect(detectKind(raw(utf8("plain words only"), "notes"))).toBe("text");
    expect(detectKind(raw(utf8("<html><body>hi</body></html>"), undefined, { kind: "web" }))).toBe("web");
  });

  it("refuses images, archives and other binaries with a typed error", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(() => detectKind(raw(png, "photo.pdf"))).toThrow(UnsupportedTypeError);
    expect(() => detectKind(raw(new Uint8Array([1, 2, 3, 0, 0, 5, 6]), "blob.txt"))).toThrow(
      UnsupportedTypeError,
    );
    try {
      detectKind(raw(png, "photo.png"));
    } catch (err) {
      expect(err).toBeInstanceOf(UnsupportedTypeError);
      expect((err as UnsupportedTypeError).supported).toContain(".pdf");
      expect((err as Error).message).toMatch(/PNG/);
    }
  });
});

describe("PDF", () => {
  it("refuses a PDF past its page or text budget with a reason, and reads one within it", async () => {
    const pages = [["First page."], ["Second page, with two lines.", "The second line."], ["Third."]];
    const pdf = makePdf(pages);
    await expect(parsePdf(pdf, "long.pdf", { pages: 2, textItems: 100 })).rejects.toThrow(
      /has 3 pages, more than the 2 read/,
    );
    await expect(parsePdf(pdf, "dense.pdf", { pages: 10, textItems: 2 })).rejects.toThrow(
      /more than 2 pieces of text \(by page 2\)/,
    );
    expect((await parsePdf(pdf, "fine.pdf", { pages: 3, textItems: 100 })).pageCount).toBe(3);
  });

  it("keeps page numbers and turns large lines into headings", async () => {
    const pdf = makePdf(
      [
        [
          { text: "Installation Guide", size: 20 },
          "Run the installer and accept the licence.",
          "",
          "Restart when asked.",
        ],
        [{ text: "Troubleshooting", size: 20 }, "If the fan is loud, clean the vents."],
      ],
      { title: "Widget Manual" },
    );
    const doc = await parseDocument(raw(pdf, "manual.pdf"));
    expect(doc.kind).toBe("pdf");
    expect(doc.title).toBe("Widget Manual");
    expect(doc.pageCount).toBe(2);
    expect(doc.sections).toEqual([
      {
        headingPath: ["Installation Guide"],
        text: "Run the installer and accept the licence.\n\nRestart when asked.",
        page: 1,
      },
      { headingPath: ["Troubleshooting"], text: "If the fan is loud, clean the vents.", page: 2 },
    ]);
  });

  it("reports an encrypted PDF as a ParseError naming the reason, though the file itself is sound", async () => {
    for (const cipher of ["rc4-128", "aes-256"] as const) {
      const locked = makePdf([["The vault code is 4711."]], {
        title: "Vault",
        encrypt: { cipher, userPassword: "openpassword" },
      });
      const err = await parseDocument(raw(locked)).catch((e: unknown) => e);
      expect(err, cipher).toBeInstanceOf(ParseError);
      expect((err as Error).message, cipher).toMatch(/encrypted/);
      // With its password the same bytes open: the refusal is the password, not a broken file.
      const opened = await getDocumentProxy(locked.slice(), { password: "openpassword" });
      const text = await (await opened.getPage(1)).getTextContent();
      expect(text.items.map((i) => ("str" in i ? i.str : "")).join(""), cipher).toContain("4711");
    }
  });

  it("reports broken and image-only PDFs as ParseErrors instead of crashing", async () => {
    const pages = [["Half a file"], ["The second page"]];
    const broken = await parseDocument(raw(makePdf(pages, { damage: "dangling-root" }))).catch(
      (e: unknown) => e,
    );
    expect(broken).toBeInstanceOf(ParseError);
    expect((broken as Error).message).toMatch(/malformed/);
    const scanned = await parseDocument(
      raw(makePdf([[{ image: { width: 40, height: 30 } }], [{ image: { width: 20, height: 20 } }]])),
    ).catch((e: unknown) => e);
    expect(scanned).toBeInstanceOf(ParseError);
    expect((scanned as Error).message).toMatch(/no text layer in 2 page/);
    const whole = makePdf(pages);
    for (const bytes of [120, Math.floor(whole.length / 2), whole.length - 60]) {
      const cut = await parseDocument(raw(truncatePdf(whole, bytes), "t.pdf")).catch((e: unknown) => e);
      expect(cut, `cut at ${bytes} of ${whole.length} bytes`).toBeInstanceOf(ParseError);
      expect((cut as Error).message).toMatch(/malformed/);
    }
  });

  it("reads a PDF whose cross-reference table is wrong, as readers rebuild it", async () => {
    for (const damage of ["xref-offsets", "startxref"] as const) {
      const doc = await parseDocument(
        raw(makePdf([["Refunds take thirty days."], ["Shipping is free."]], { title: "Policy", damage })),
      );
      expect(doc, damage).toMatchObject({ title: "Policy", pageCount: 2 });
      expect(doc.sections.map((s) => s.text)).toEqual(["Refunds take thirty days.", "Shipping is free."]);
    }
  });
});

describe.runIf(hasDatasets("real PDFs of py-pdf/sample-files", "py-pdf-sample-files"))(
  "PDF: py-pdf/sample-files (public dataset)",
  // Real PDFs take a second or two each through pdf.js alone; more on a loaded machine.
  { timeout: 60_000 },
  () => {
    it("reads real PDFs with the page counts their maintainers list", async () => {
      const expected = JSON.parse(
        readFileSync(join(datasetPath("py-pdf-sample-files"), "files.json"), "utf8"),
      ) as {
        data: { path: string; pages: number; encrypted: boolean }[];
      };
      const cases = [
        "004-pdflatex-4-pages/pdflatex-4-pages.pdf",
        "026-latex-multicolumn/multicolumn.pdf",
        "011-google-doc-document/google-doc-document.pdf",
      ];
      for (const path of cases) {
        const doc = await parseDocument(raw(sample(path), path.split("/").pop()));
        expect(doc.pageCount, path).toBe(expected.data.find((d) => d.path === path)?.pages);
        expect(
          doc.sections.every((s) => s.page !== null && s.page >= 1 && s.page <= (doc.pageCount ?? 0)),
        ).toBe(true);
      }
      const google = await parseDocument(
        raw(sample("011-google-doc-document/google-doc-document.pdf"), "g.pdf"),
      );
      expect(google.sections.map((s) => s.text).join(" ")).toContain("Beautiful is better than ugly.");
    });

    it("reports LibreOffice's password-protected PDF as encrypted", async () => {
      const err = await parseDocument(
        raw(sample("005-libreoffice-writer-password/libreoffice-writer-password.pdf")),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ParseError);
      expect((err as Error).message).toMatch(/encrypted/);
    });

    it("reports real broken and image-only PDFs as ParseErrors", async () => {
      const broken = await parseDocument(
        raw(sample("017-unreadable-meta-data/unreadablemetadata.pdf")),
      ).catch((e: unknown) => e);
      expect(broken).toBeInstanceOf(ParseError);
      expect((broken as Error).message).toMatch(/malformed/);
      const scanned = await parseDocument(raw(sample("007-imagemagick-images/imagemagick-images.pdf"))).catch(
        (e: unknown) => e,
      );
      expect(scanned).toBeInstanceOf(ParseError);
      expect((scanned as Error).message).toMatch(/no text layer/);
    });
  },
);

describe("DOCX", () => {
  it("maps heading styles to the heading path and keeps tables as rows", async () => {
    const body = [
      docxParagraph("Employee Handbook", "Title"),
      docxParagraph("Leave", "Heading1"),
      docxParagraph("Everyone gets 25 days of paid leave."),
      docxParagraph("Sick leave", "Heading2"),
      docxParagraph("Tell your manager before 10am.", undefined, true),
      docxParagraph("Benefits", "Kop1"),
      docxTable([
        ["Benefit", "Amount"],
        ["Gym", "50 EUR"],
        ["Lunch", "8 EUR"],
      ]),
    ].join("");
    const doc = await parseDocument(raw(makeDocx(body), "handbook.docx"));
    expect(doc.kind).toBe("docx");
    expect(doc.title).toBe("Employee Handbook");
    expect(doc.sections).toEqual([
      { headingPath: ["Leave"], text: "Everyone gets 25 days of paid leave.", page: null },
      { headingPath: ["Leave", "Sick leave"], text: "- Tell your manager before 10am.", page: null },
      {
        headingPath: ["Benefits"],
        text: "Benefit: Gym; Amount: 50 EUR\nBenefit: Lunch; Amount: 8 EUR",
        page: null,
        isTable: true,
      },
    ]);
  });

  it("refuses 2 million nested paragraphs with the reason, at the 257th level (issue #49)", () => {
    // The file: a few tens of KB compressed, 2 million <w:p> inside each other.
    const nested = `${"<w:p>".repeat(2_000_000)}<w:r><w:t>deep</w:t></w:r>${"</w:p>".repeat(2_000_000)}`;
    const file = makeDocx(nested);
    expect(file.length).toBeLessThan(200_000);
    expect(() => parseDocx(file, "deep")).toThrow(/nests elements deeper than 256 levels/);
  });

  it("stops inflating a decompression bomb past the size cap", () => {
    const bomb = makeDocxBomb(20 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(200_000);
    expect(DOCX_MAX_INFLATED_BYTES).toBe(50 * 1024 * 1024);
    // A 1 MB cap keeps the test fast; the default cap is the constant above.
    expect(() => parseDocx(bomb, "bomb", 1024 * 1024)).toThrow(/inflates past 1048576 bytes/);
  });

  it("caps the inflated bytes per file, not per part", () => {
    const half = 600 * 1024;
    const docx = makeDocx(docxParagraph("x".repeat(half)), {
      extra: { "word/styles.xml": new TextEncoder().encode(`<w:styles>${" ".repeat(half)}</w:styles>`) },
    });
    // Each part fits under 1 MB; together they do not.
    expect(() => parseDocx(docx, "two halves", 1024 * 1024)).toThrow(/parts inflate past 1048576 bytes/);
    expect(parseDocx(docx, "two halves", 2 * 1024 * 1024).sections.length).toBe(1);
  });

  it("reports a damaged archive as a ParseError", async () => {
    const docx = makeDocx(docxParagraph("Hello"));
    const damaged = docx.slice();
    const entry = listZipEntries(docx).find((e) => e.name === "word/document.xml");
    // Corrupt the deflate stream of document.xml while keeping the zip directory intact.
    const start = (entry?.localHeaderOffset ?? 0) + 30 + "word/document.xml".length;
    for (let i = start; i < start + 20; i++) damaged[i] = 0xff;
    await expect(parseDocument(raw(damaged, "d.docx"))).rejects.toBeInstanceOf(ParseError);
  });
});

describe("HTML", () => {
  const page = `<!doctype html><html><head><title>Pricing | Acme</title>
    <link rel="canonical" href="/pricing/"></head><body>
    <header><a href="/">Acme</a><nav><a href="/docs">Docs</a></nav></header>
    <div class="cookie-banner">We use cookies</div>
    <main><h1>Pricing</h1><p>Plans start at <b>10 dollars</b> a month.</p>
      <h2>Enterprise</h2><p>Call sales.</p><ul><li>SSO</li><li>Audit log</li></ul>
      <table><tr><th>Plan</th><th>Seats</th></tr><tr><td>Team</td><td>10</td></tr></table>
      <pre>curl -X POST /api\n  --data x</pre>
      <script>var tracking = 1;</script><form><input name="q"></form></main>
    <aside>Related posts</aside><footer>© Acme</footer></body></html>`;

  it("keeps the main content with headings and drops chrome and boilerplate", async () => {
    const doc = await parseDocument(raw(utf8(page), "pricing.html"));
    expect(doc.kind).toBe("html");
    expect(doc.title).toBe("Pricing");
    const all = doc.sections.map((s) => s.text).join("\n");
    expect(all).not.toMatch(/cookies|Related posts|© Acme|Docs|tracking/);
    expect(doc.sections[0]).toEqual({
      headingPath: ["Pricing"],
      text: "Plans start at 10 dollars a month.",
      page: null,
    });
    expect(doc.sections[1]?.headingPath).toEqual(["Pricing", "Enterprise"]);
    expect(doc.sections[1]?.text).toBe("Call sales.\n\n- SSO\n\n- Audit log");
    expect(doc.sections.find((s) => s.isTable)?.text).toBe("Plan: Team; Seats: 10");
    expect(all).toContain("curl -X POST /api\n  --data x");
  });

  it("parses kind web as HTML and keeps the kind", async () => {
    const doc = await parseDocument(
      raw(page, undefined, { kind: "web", sourceUrl: "https://acme.test/pricing" }),
    );
    expect(doc.kind).toBe("web");
    expect(doc.sections.length).toBeGreaterThan(0);
  });

  it("refuses 200,000 nested elements before building the page, and keeps 990 (issue #49)", async () => {
    // On main this page held the parse 97 s, then overflowed the stack.
    const deep = (n: number) => `<html><body>${"<div>".repeat(n)}deep${"</div>".repeat(n)}</body></html>`;
    await expect(parseDocument(raw(deep(200_000), "deep.html"))).rejects.toThrow(
      new ParseError("the document nests elements deeper than 1000 levels"),
    );
    expect((await parseDocument(raw(deep(990), "fine.html"))).sections[0]?.text).toBe("deep");
    // HTML inside markdown (a help article's text entry) is built the same way, and checked the same way.
    const article = `# Returns\n\n<div>${"<span>".repeat(200_000)}deep</div>\n`;
    await expect(parseDocument(raw(article, undefined, { kind: "text" }))).rejects.toThrow(
      /nests elements deeper than 1000 levels/,
    );
  });

  it("refuses a page of more than 250,000 elements", async () => {
    // A million <p>: 29 s and 1 GB on main.
    await expect(parseDocument(raw(`<p>a</p>`.repeat(1_000_000), "flat.html"))).rejects.toThrow(
      new ParseError("the document has more than 250000 elements"),
    );
  });
});

describe("Markdown, CSV, text", () => {
  it("turns markdown headings into paths, keeps code fences verbatim and tables as markdown tables", async () => {
    const md =
      "---\ntitle: Guide\n---\n# Setup\nInstall it.\n\n```sh\n# not a heading\n  npm i\n```\n\n## Config\nSet [the key](http://x).\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
    const doc = await parseDocument(raw(utf8(md), "guide.md"));
    expect(doc.title).toBe("Guide");
    expect(doc.sections).toEqual([
      { headingPath: ["Setup"], text: "Install it.\n\n```sh\n# not a heading\n  npm i\n```", page: null },
      {
        headingPath: ["Setup", "Config"],
        text: "Set the key.\n\n| a | b |\n| --- | --- |\n| 1 | 2 |",
        page: null,
      },
    ]);
  });

  it("renders CSV rows as column: value lines, quotes and all", async () => {
    const doc = await parseDocument(
      raw(utf8('name,city\n"Smith, Jo",Oslo\nAnn,"Rio ""RJ"""\n'), "people.csv"),
    );
    expect(doc.kind).toBe("csv");
    expect(doc.sections).toEqual([
      {
        headingPath: [],
        text: 'name: Smith, Jo; city: Oslo\nname: Ann; city: Rio "RJ"',
        page: null,
        isTable: true,
      },
    ]);
  });

  it("reads legacy-encoded text and refuses an empty file", async () => {
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Windows-1252
    expect((await parseDocument(raw(latin1, "a.txt"))).sections[0]?.text).toBe("café");
    await expect(parseDocument(raw(utf8("  \n "), "empty.txt"))).rejects.toBeInstanceOf(ParseError);
  });

  it("keeps the connector's title for notion and text entries", async () => {
    const doc = await parseDocument(
      raw("# Heading\n\nBody", undefined, { kind: "notion", title: "Team wiki" }),
    );
    expect(doc).toMatchObject({ kind: "notion", title: "Team wiki" });
  });
});
