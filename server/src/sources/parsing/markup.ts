/**
 * Template and markup syntax that help-center articles carry around their text: Liquid/Jekyll and
 * Hugo tags, kramdown attributes and inline markdown. See markdown.ts for the block structure and
 * html-fragment.ts for raw HTML.
 */

/** Replaces spans with private-use placeholders so later rewrites leave them alone, then puts them back. */
export class Stash {
  private readonly items: string[] = [];
  put(text: string): string {
    this.items.push(text);
    return `\uE000${this.items.length - 1}\uE001`;
  }
  restore(text: string): string {
    // Restored spans may themselves hold placeholders (an escape inside a stashed link), hence the loop.
    let out = text;
    for (let i = 0; i < 3 && out.includes("\uE000"); i++)
      out = out.replace(/\uE000(\d+)\uE001/g, (_, n: string) => this.items[Number(n)] ?? "");
    return out;
  }
}

const LIQUID_RAW = /\{%-?\s*raw\s*-?%\}([\s\S]*?)\{%-?\s*endraw\s*-?%\}/g;
const LIQUID_COMMENT = /\{%-?\s*comment\s*-?%\}[\s\S]*?\{%-?\s*endcomment\s*-?%\}/g;
// Code blocks of both: a fence on a line of its own (the newlines around the tag are the fence's).
const LIQUID_HIGHLIGHT = /\n?[ \t]*\{%-?\s*highlight\s*([\w+#-]*)[^%]*%\}[ \t]*\n?/g;
const LIQUID_END_HIGHLIGHT = /\n?[ \t]*\{%-?\s*endhighlight\s*-?%\}[ \t]*(?=\n|$)/g;
const HUGO_HIGHLIGHT = /\n?[ \t]*\{\{[<%]\s*highlight\s*"?([\w+#-]*)"?[^}]*[>%]\}\}[ \t]*\n?/g;
const HUGO_END_HIGHLIGHT = /\n?[ \t]*\{\{[<%]\s*\/\s*highlight\s*[>%]\}\}[ \t]*(?=\n|$)/g;
// Any other tag: include, assign, if/else/endif, callout/endcallout, capture, for… The text between
// a wrapping tag pair stays; the tags vanish. `{{< x >}}` / `{{% x %}}` are Hugo shortcodes.
// Quantifiers are bounded so that text full of unclosed "{%" stays linear.
const TEMPLATE_TAG =
  /([ \t]{0,20})(\{%(?:(?!%\})[\s\S]){0,300}%\}|\{\{[<%](?:(?![>%]\}\})[\s\S]){0,300}[>%]\}\}|\{\{(?:(?!\}\})[\s\S]){0,500}\}\})/g;

/**
 * Removes Liquid/Jekyll and Hugo template tags: `{% include x %}`, `{% assign %}` and `{{ var }}` vanish,
 * wrapping tags (`{% callout %}…{% endcallout %}`, `{% if %}`, `{% capture %}`) keep their inner text,
 * comment blocks go with their content, `{% highlight %}` becomes a code fence and `{% raw %}` content is
 * kept literally. Jekyll runs Liquid before markdown (code blocks included), so this runs on the whole text.
 */
export function removeTemplateTags(text: string): string {
  if (!text.includes("{%") && !text.includes("{{")) return text;
  const raw = new Stash();
  return raw.restore(
    text
      .replace(LIQUID_RAW, (_, inner: string) => raw.put(inner))
      .replace(LIQUID_COMMENT, "")
      .replace(LIQUID_HIGHLIGHT, (_, lang: string) => `\n\`\`\`${lang}\n`)
      .replace(LIQUID_END_HIGHLIGHT, "\n```")
      .replace(HUGO_HIGHLIGHT, (_, lang: string) => `\n\`\`\`${lang}\n`)
      .replace(HUGO_END_HIGHLIGHT, "\n```")
      .replace(TEMPLATE_TAG, (match: string, space: string, _tag: string, offset: number, whole: string) => {
        // "plus {% include x.md %}, and more" reads "plus, and more", not "plus , and more".
        const next = whole[offset + match.length] ?? "";
        return /[,.;:!?)]/.test(next) ? "" : space;
      }),
  );
}

/**
 * Removes kramdown extensions: attribute lists (`{:target="_blank"}`, `{: .note}`, `{:toc}` with the
 * "* TOC" line it replaces), `{::nomarkdown}`/`{:/}` markers (their content stays) and `{::comment}` blocks.
 */
export function removeKramdown(text: string): string {
  if (!text.includes("{:")) return text;
  return text
    .replace(/\{::comment\}[\s\S]*?\{:\/(comment)?\}/g, "")
    .replace(/^[ \t]*(?:[-*+]|1\.)[ \t]+.*\n[ \t]*\{:toc\}[ \t]*$/gm, "")
    .replace(/\{::?[^}\n]{0,500}\}/g, "");
}

/** `[label]: url "title"` lines: reference-style link definitions (and `[//]: # "comments"`). */
export const LINK_DEFINITION =
  /^ {0,3}\[([^\]\n]+)\]:[ \t]*(?:<[^>\n]*>|\S+)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$/;

/** A link label as definitions and references match it: case and spacing do not count. */
export function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, " ").toLowerCase();
}

/** Inline code spans (single line): kept verbatim by every rewrite. */
export const CODE_SPAN = /(`+)(?!`)[^\n]*?[^`\n]\1(?!`)/g;
// A link destination in parentheses, with one level of nested parentheses and an optional title.
const DEST = String.raw`\((?:[^()\n]|\([^()\n]*\))*\)`;
const LINK_TEXT = String.raw`((?:[^\[\]\n]|\[[^\[\]\n]*\])*)`;
const IMAGE = new RegExp(String.raw`!\[[^\]\n]*\](?:${DEST}|\[[^\]\n]*\])?`, "g");
const INLINE_LINK = new RegExp(String.raw`\[${LINK_TEXT}\]${DEST}`, "g");
const REFERENCE_LINK = new RegExp(String.raw`\[${LINK_TEXT}\]\[([^\]\n]*)\]`, "g");
const SHORTCUT_LINK = /\[([^[\]\n]+)\](?![([:])/g;
const AUTOLINK = /<((?:https?|ftp):\/\/[^\s<>]+|mailto:[^\s<>]+|[^\s<>@]+@[^\s<>@]+\.[a-z]{2,})>/gi;
const ESCAPE = /\\([!-/:-@[-`{-~])/g;

/** `<https://x>` → `https://x`, before raw HTML is parsed (an HTML parser would read a tag). */
export function unwrapAutolinks(text: string): string {
  return text.replace(AUTOLINK, "$1");
}

/**
 * Inline markdown to plain text: images vanish (their alt text is mostly "screenshot of…"), links keep
 * their text (inline, reference and defined shortcut links), emphasis markers go, backslash escapes
 * become their character. Code spans are kept verbatim with their backticks: the widget renders them.
 */
export function stripInlineMarkdown(text: string, definitions: ReadonlySet<string> = new Set()): string {
  if (!/[[\]*_~\\`<!]/.test(text)) return text;
  const stash = new Stash();
  let out = text
    .replace(CODE_SPAN, (code) => stash.put(code))
    .replace(ESCAPE, (_, ch: string) => stash.put(ch))
    .replace(AUTOLINK, "$1")
    .replace(IMAGE, "");
  // Twice: a link's text may itself hold a link or an image link ([![x](a)](b) is gone after the first pass).
  for (let i = 0; i < 2; i++) {
    out = out
      .replace(INLINE_LINK, "$1")
      .replace(REFERENCE_LINK, "$1")
      .replace(SHORTCUT_LINK, (match: string, label: string) =>
        definitions.has(normalizeLabel(label)) ? label : match,
      );
  }
  // Spans are bounded (emphasis is short) so that a line full of unmatched markers stays linear.
  out = out
    .replace(/(\*\*\*|___)(?=\S)(.{0,500}?\S)\1/g, "$2")
    .replace(/\*\*(?=\S)(.{0,500}?\S)\*\*/g, "$1")
    .replace(/(?<![\p{L}\p{N}_])__(?=\S)(.{0,500}?\S)__(?![\p{L}\p{N}_])/gu, "$1")
    .replace(/(?<![\p{L}\p{N}*])\*(?=[^\s*])([^*\n]{0,500}?[^\s*]|[^\s*])\*(?![\p{L}\p{N}*])/gu, "$1")
    .replace(/(?<![\p{L}\p{N}_])_(?=[^\s_])([^_\n]{0,500}?[^\s_]|[^\s_])_(?![\p{L}\p{N}_])/gu, "$1")
    .replace(/~~(?=\S)(.{0,500}?\S)~~/g, "$1");
  return stash.restore(out);
}
