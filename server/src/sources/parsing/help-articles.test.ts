import { describe, expect, it } from "vitest";
import { hasDatasets, loadHelpCenter } from "../../../../bench/src/datasets.ts";
import { chunkDocument } from "../chunking/chunk-document.ts";
import type { ParsedDocument, RawDocument } from "../documents.ts";
import { looksLikeMarkup } from "./detect-kind.ts";
import { parseDocument } from "./parse-document.ts";

/** A help article as a `text` entry: the way the benchmark and most help-center imports arrive. */
function entry(body: string, extra: Partial<RawDocument> = {}): Promise<ParsedDocument> {
  return parseDocument({ externalId: "a", title: "Article", sourceUrl: null, kind: "text", body, ...extra });
}
const textOf = (doc: ParsedDocument) => doc.sections.map((s) => s.text).join("\n\n");
const MARKUP = /\{%|%\}|\{\{|\}\}|\{:|<\/?[a-z][^>]*>|\]\(|&[a-z]+;|\*\*/i;

describe("help articles: template tags", () => {
  it("drops Liquid includes, assigns and comment blocks, without leaving a space before punctuation", async () => {
    const doc = await entry(
      "It comes with our search engine, plus {% include browser-benefits.md %}, and more.\n\n" +
        "{% assign os = 'mac' %}{% comment %}Internal: rewrite this.{% endcomment %}Install it.\n\n" +
        "{% include category-footer-nav.md %}",
    );
    expect(textOf(doc)).toBe("It comes with our search engine, plus, and more.\n\nInstall it.");
  });

  it("keeps the text inside wrapping Liquid tags (callout, if, capture, raw)", async () => {
    const doc = await entry(
      "{% callout %}\nKeep your recovery code safe.\n{% endcallout %}\n\n{% if site.pro %}Pro users get a VPN.{% endif %}\n\n" +
        "{% capture note %}Sync is end-to-end encrypted.{% endcapture %}",
    );
    expect(textOf(doc)).toBe(
      "Keep your recovery code safe.\n\nPro users get a VPN.\n\nSync is end-to-end encrypted.",
    );
  });

  it("turns a Liquid or Hugo highlight block into a code fence", async () => {
    const doc = await entry(
      "Run:\n\n{% highlight sh %}\nnpm i -g lore\n{% endhighlight %}\n\n{{< highlight go >}}\nfmt.Println(1)\n{{< /highlight >}}",
    );
    expect(textOf(doc)).toBe("Run:\n\n```sh\nnpm i -g lore\n```\n\n```go\nfmt.Println(1)\n```");
  });

  it("drops output tags: a link to {{site.baseurl}}/x keeps its text, Hugo shortcodes keep what they wrap", async () => {
    const doc = await entry(
      'See [Privacy Pro]({{site.baseurl}}/privacy-pro/) and <a href="{{ site.baseurl }}/vpn/">the VPN</a>, version {{ page.version }}.\n\n' +
        "{{< note >}}Restart the app.{{< /note >}} {{% tip %}}It is quick.{{% /tip %}}",
    );
    expect(textOf(doc)).toBe("See Privacy Pro and the VPN, version.\n\nRestart the app. It is quick.");
  });
});

describe("help articles: kramdown and inline markdown", () => {
  it("drops kramdown attribute lists, the TOC marker, nomarkdown markers and comments", async () => {
    const doc = await entry(
      'Report it via [HackerOne](https://hackerone.com/x){:target="\\_blank"}{:rel="noopener noreferrer"}.\n\n' +
        "* TOC\n{:toc}\n\nA tip.\n{: .callout}\n\n{::nomarkdown}<b>Bold</b>{:/} text{::comment}hidden{:/comment}.",
    );
    expect(textOf(doc)).toBe("Report it via HackerOne.\n\nA tip.\n\nBold text.");
  });

  it("drops images with their alt text and link targets, reference definitions included", async () => {
    const doc = await entry(
      "Open the menu. ![Screenshot of the menu]({{ site.baseurl }}/images/menu.png)\n\n" +
        "[![Logo](logo.png)](https://duck.com) See [the docs][docs], [GitHub] and <https://duck.com/app>.\n\n" +
        '[docs]: https://docs.example.com "Docs"\n[GitHub]: https://github.com/duckduckgo\n[//]: # "Links used above"',
    );
    expect(textOf(doc)).toBe("Open the menu.\n\nSee the docs, GitHub and https://duck.com/app.");
  });

  it("removes emphasis markers and escapes but keeps code spans verbatim", async () => {
    const doc = await entry(
      "Open **Settings** > __Sync__, then *Scan* or _type_ the code.\n\nSend to brian\\_at\\_gmail.com; `**not bold**` and `a_b_c` stay.",
    );
    expect(textOf(doc)).toBe(
      "Open Settings > Sync, then Scan or type the code.\n\nSend to brian_at_gmail.com; `**not bold**` and `a_b_c` stay.",
    );
  });

  it("keeps fenced code verbatim, markup and all", async () => {
    const doc = await entry('# Embed\n\n```html\n<div class="x">**raw**</div>\n\n&amp;\n```');
    expect(doc.sections[0]?.text).toBe('```html\n<div class="x">**raw**</div>\n\n&amp;\n```');
  });
});

describe("help articles: raw HTML", () => {
  it("turns paragraphs, breaks, lists, tables and code into markdown, decoding entities", async () => {
    const doc = await entry(
      "<p>\n    When searching, you can limit results\n    to a timeframe.\n</p>\n\n" +
        "**Unsupported Windows**<br />\nUpdate first &amp; retry&nbsp;now &mdash; Settings &gt; Update.\n\n" +
        '<ul>\n<li><a href="https://twitter.com/x">Twitter</a> (<em>also</em> our CEO)</li>\n<li>Reddit</li>\n</ul>\n\n' +
        '<ol start="3"><li>Open <code>about:config</code></li><li>Restart</li></ol>\n\n' +
        "<table><thead><tr><th>Plan</th><th>Price</th></tr></thead><tbody><tr><td>Team</td><td>$5 | seat</td></tr></tbody></table>",
    );
    expect(textOf(doc)).toBe(
      [
        "When searching, you can limit results to a timeframe.",
        "Unsupported Windows\nUpdate first & retry now — Settings > Update.",
        "- Twitter (also our CEO)\n- Reddit",
        "3. Open `about:config`\n4. Restart",
        "| Plan | Price |\n| --- | --- |\n| Team | $5 \\| seat |",
      ].join("\n\n"),
    );
  });

  it("drops images, media, scripts and styles with their content", async () => {
    const doc = await entry(
      '<p><img alt="sort results by date" src="{{ site.baseurl }}/images/x.jpg" /></p>\n' +
        '<video autoplay><source src="v.mp4" type="video/mp4"></video>\n' +
        "<script>var tracking = 1;</script><style>.x { color: red }</style>\n\nDates filter results.",
    );
    expect(textOf(doc)).toBe("Dates filter results.");
  });

  it("makes HTML headings part of the heading path, like markdown headings", async () => {
    const doc = await entry(
      "Intro.\n\n<h4>Where are my settings stored?</h4>\n<p>In cookies.</p>\n\n## Is it anonymous? {#anonymous}\n\nYes.",
    );
    expect(doc.sections).toEqual([
      { headingPath: [], text: "Intro.", page: null },
      { headingPath: ["Where are my settings stored?"], text: "In cookies.", page: null },
      { headingPath: ["Is it anonymous?"], text: "Yes.", page: null },
    ]);
  });

  it("keeps HTML inside a pipe table cell on the row: list items joined with semicolons", async () => {
    const doc = await entry(
      "| Setting | Parameter | Values |\n| ---- | ---- | ---- |\n" +
        "| Region | kl | {::nomarkdown}<ul><li>us-en for United States</li><li>uk-en for United Kingdom</li></ul>{:/} |\n" +
        "| Safe Search | **kp** | 1 for On<br>-1 for Off |",
    );
    expect(textOf(doc)).toBe(
      "| Setting | Parameter | Values |\n| --- | --- | --- |\n" +
        "| Region | kl | us-en for United States; uk-en for United Kingdom |\n| Safe Search | kp | 1 for On -1 for Off |",
    );
  });
});

describe("help articles: lists and structure", () => {
  it("keeps one item per line, numbers lazy lists as they render and keeps nesting", async () => {
    const doc = await entry(
      "To sync:\n\n1. Go to **Settings**\n1. Select Sync\n\n1. Scan the code\n    * On a phone: use the camera\n    * Otherwise: type it\n\n" +
        "-   A loose\n\n-   list",
    );
    expect(textOf(doc)).toBe(
      "To sync:\n\n1. Go to Settings\n2. Select Sync\n3. Scan the code\n   - On a phone: use the camera\n   - Otherwise: type it\n\n- A loose\n- list",
    );
  });

  it("joins a continuation line to its item and ends the list at a blockquote", async () => {
    const doc = await entry(
      "- GRCI Law Limited, Ely, UK<br/>\n  ukrep@grcilaw.com\n- Paoli, USA\n> Looking for help? See [Search]({{ site.baseurl }}/results).",
    );
    expect(textOf(doc)).toBe(
      "- GRCI Law Limited, Ely, UK\n  ukrep@grcilaw.com\n- Paoli, USA\n\nLooking for help? See Search.",
    );
  });
});

describe("help articles: text entries and front matter", () => {
  it("parses a text entry written in markdown as markdown, keeping kind text and the entry's title", async () => {
    const doc = await entry("# Ignored title\n\n## Billing\n\nRefunds take **30 days**.", {
      title: "Refunds",
    });
    expect(doc).toMatchObject({ kind: "text", title: "Refunds" });
    expect(doc.sections).toEqual([
      { headingPath: ["Ignored title", "Billing"], text: "Refunds take 30 days.", page: null },
    ]);
  });

  it("leaves plain text entries as plain paragraphs", async () => {
    expect(looksLikeMarkup("Shipping takes 3 days.\n\nReturns: 30 days, 5 * 2 items max.")).toBe(false);
    const doc = await entry("Shipping takes 3 days.\n\n- Express: 1 day");
    expect(doc.sections).toEqual([
      { headingPath: [], text: "Shipping takes 3 days.\n\n- Express: 1 day", page: null },
    ]);
  });

  it("recognises help-article markup without any heading", () => {
    for (const body of [
      "No logs. {% include privacy-pro-contact.md %}",
      "See {{ site.baseurl }}/x",
      "<p>Hello</p>",
      "Use the [app](https://x.test).",
      "Open _Passwords_ first.",
      "the @gmail part becomes \\_at_gmail",
      "---\ntitle: Logs\n---\nNo.",
    ])
      expect(looksLikeMarkup(body), body).toBe(true);
  });

  it("reads the front matter's description (or summary) as the first paragraph unless the body says it", async () => {
    const folded = await entry(
      "---\ntitle: Logs\ndescription: >-\n  Does the VPN\n  keep logs?\n---\nNo. We keep none.",
    );
    expect(textOf(folded)).toBe("Does the VPN keep logs?\n\nNo. We keep none.");
    const summary = await parseDocument({
      externalId: "s.md",
      title: "",
      sourceUrl: null,
      kind: null,
      fileName: "s.md",
      body: '---\ntitle: "VPN logs"\nsummary: "We keep no logs."\n---\n## Logs\n\nWe keep no logs. Ever.',
    });
    expect(summary.title).toBe("VPN logs");
    expect(summary.sections).toEqual([{ headingPath: ["Logs"], text: "We keep no logs. Ever.", page: null }]);
  });
});

describe.runIf(hasDatasets("the DuckDuckGo help-center articles", "helpcenter-duckduckgo"))(
  "help articles: the DuckDuckGo help center (public dataset)",
  () => {
    // 202 parses and chunkings: about 2 s alone, several times that on a loaded machine.
    it("leaves no template or markup syntax in any chunk of the 202 articles", {
      timeout: 60_000,
    }, async () => {
      const { articles } = loadHelpCenter();
      expect(articles).toHaveLength(202);
      let withHeadings = 0;
      for (const article of articles) {
        const doc = await entry(article.content, { externalId: article.path, title: article.title });
        const chunks = chunkDocument(doc);
        for (const chunk of chunks) {
          // Code spans quote syntax on purpose (`&atb=`, `[website1, …]`): only the prose must be clean.
          expect(chunk.text.replace(/`[^`\n]+`/g, ""), article.path).not.toMatch(MARKUP);
        }
        if (chunks.some((c) => c.headingPath.length > 0)) withHeadings++;
      }
      expect(withHeadings).toBeGreaterThan(60);
    });
  },
);
