import { render } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import { citation } from "../test-support.ts";
import { Citations } from "./citations.tsx";
import { Markdown } from "./markdown.tsx";
import { renderInWidget } from "./render-support.tsx";

// Payloads an answer or a document could carry. None may become an element or attribute that runs.
const corpus = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  '"><img src=x onerror="alert(1)">',
  "<svg onload=alert(1)><script>alert(2)</script></svg>",
  '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
  '<a href="javascript:alert(1)">click</a>',
  '<iframe src="https://evil.test"></iframe><object data=x></object><embed src=x>',
  "<style>*{display:none}</style><link rel=stylesheet href=https://evil.test/x.css>",
  "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
  "[click](javascript:alert(1))",
  "[click](JaVaScRiPt:alert(1))",
  "[click]( javascript:alert(1) )",
  "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[click](vbscript:msgbox(1))",
  "[click](jav&#x61;script:alert(1))",
  "<javascript:alert(1)>",
  "[<img src=x onerror=alert(1)>](https://ok.test)",
  "**<img src=x onerror=alert(1)>** and *<svg onload=alert(1)>*",
  "`<script>alert(1)</script>`",
  "```html\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```",
  "&lt;script&gt;alert(1)&lt;/script&gt; &#60;img src=x onerror=alert(1)&#62;",
  "- <img src=x onerror=alert(1)>\n1. [x](javascript:alert(1))\n> <script>alert(1)</script>",
  "![img](https://evil.test/x.png)",
  "| <img src=x onerror=alert(1)> | [x](javascript:alert(1)) |\n|---|---|\n| <script>alert(1)</script> \\| <b> | `<svg onload=alert(1)>` |",
];

const allowedTags = new Set([
  "DIV",
  "P",
  "H3",
  "H4",
  "PRE",
  "CODE",
  "UL",
  "OL",
  "LI",
  "BLOCKQUOTE",
  "HR",
  "BR",
  "STRONG",
  "EM",
  "A",
  "SPAN",
  "SUP",
  "SECTION",
  "BUTTON",
  "TABLE",
  "THEAD",
  "TBODY",
  "TR",
  "TH",
  "TD",
  "MARK",
]);

function assertInert(root: Element) {
  for (const el of root.querySelectorAll("*")) {
    expect(allowedTags.has(el.tagName), `unexpected <${el.tagName.toLowerCase()}>`).toBe(true);
    for (const attr of el.getAttributeNames()) {
      expect(attr.toLowerCase().startsWith("on"), `attribute ${attr} on <${el.tagName}>`).toBe(false);
      expect(["style", "srcdoc", "src", "formaction", "xlink:href"]).not.toContain(attr.toLowerCase());
    }
    const href = el.getAttribute("href");
    if (href !== null) expect(href).toMatch(/^(https?:|mailto:)/);
  }
}

describe("Markdown", () => {
  it("renders formatting as elements", () => {
    const { container } = render(
      <Markdown text={"Hello **bold** *it* `code`\n\n- a\n- b\n\n[site](https://a.test)"} sources={[]} />,
    );
    expect(container.querySelector("strong")?.textContent).toBe("bold");
    expect(container.querySelector("em")?.textContent).toBe("it");
    expect(container.querySelector("code")?.textContent).toBe("code");
    expect(container.querySelectorAll("li")).toHaveLength(2);
    const link = container.querySelector("a");
    expect(link?.getAttribute("href")).toBe("https://a.test/");
    expect(link?.getAttribute("rel")).toContain("noopener");
    expect(link?.getAttribute("target")).toBe("_blank");
  });

  it.each(corpus)("answer payload stays inert: %s", (payload) => {
    const { container } = render(<Markdown text={payload} sources={[citation(1)]} onCite={() => {}} />);
    assertInert(container);
  });

  it("shows HTML in an answer as literal text", () => {
    const { container } = render(
      <Markdown text={"<script>alert(1)</script> &lt;b&gt;bold&lt;/b&gt;"} sources={[]} />,
    );
    expect(container.textContent).toContain("<script>alert(1)</script>");
    expect(container.textContent).toContain("<b>bold</b>");
    expect(container.querySelector("script, b")).toBeNull();
  });

  it("renders a pipe table in a scrolling wrapper, with working citation markers in cells", () => {
    const { container } = render(
      <Markdown
        text={"| Plan | Price |\n|---|--:|\n| Pro | $10 [1] |\n| <img src=x onerror=alert(1)> | \\| |"}
        sources={[citation(1)]}
        onCite={() => {}}
      />,
    );
    const table = container.querySelector(".md > .table > table");
    expect([...(table?.querySelectorAll("thead th") ?? [])].map((th) => th.textContent)).toEqual([
      "Plan",
      "Price",
    ]);
    const rows = table?.querySelectorAll("tbody tr") ?? [];
    expect(rows).toHaveLength(2);
    expect(rows[0]?.querySelector('td[align="right"] [data-lore="cite"]')?.textContent).toBe("1");
    expect([...(rows[1]?.querySelectorAll("td") ?? [])].map((td) => td.textContent)).toEqual([
      "<img src=x onerror=alert(1)>",
      "|",
    ]);
    expect(container.querySelector("img")).toBeNull();
  });

  it("drops an unsafe link but keeps its text", () => {
    const { container } = render(<Markdown text="[click me](javascript:alert(1))" sources={[]} />);
    expect(container.querySelector("a")).toBeNull();
    expect(container.textContent).toBe("click me");
  });
});

describe("source cards", () => {
  it.each(corpus)("snippet and title payload stay inert: %s", (payload) => {
    const { container } = renderInWidget(
      <Citations
        sources={[
          citation(1, {
            title: payload,
            dataSourceName: payload,
            content: payload,
            sourceUrl: "javascript:alert(1)",
          }),
          citation(2, { content: payload, sourceUrl: "data:text/html,<script>alert(1)</script>" }),
        ]}
        answer={`${payload} [1] [2]`}
        expanded={[1, 2]}
        onToggle={() => {}}
        idPrefix="t-"
      />,
    );
    assertInert(container);
    expect(container.querySelector("a")).toBeNull();
    expect(container.textContent).toContain(payload.slice(0, 20));
  });
});
