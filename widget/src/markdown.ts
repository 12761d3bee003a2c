// A small Markdown subset parsed into a tree of plain data. Nothing here produces HTML: the
// renderer maps each node to a fixed element, text stays text, and links pass `safeHref`.

export type Inline =
  | { t: "text"; v: string }
  | { t: "code"; v: string }
  | { t: "strong"; c: Inline[] }
  | { t: "em"; c: Inline[] }
  | { t: "link"; href: string | null; c: Inline[] }
  | { t: "cite"; n: number }
  | { t: "br" };

export type Block =
  | { t: "p"; c: Inline[] }
  | { t: "h"; level: number; c: Inline[] }
  | { t: "pre"; lang: string; v: string }
  | { t: "ul"; items: Inline[][] }
  | { t: "ol"; start: number; items: Inline[][] }
  | { t: "quote"; c: Block[] }
  | { t: "table"; align: Align[]; head: Inline[][]; rows: Inline[][][] }
  | { t: "hr" };

export type Align = "left" | "center" | "right" | undefined;

const fence = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const heading = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const bullet = /^ {0,3}[-*+]\s+(.*)$/;
const ordered = /^ {0,3}(\d{1,9})[.)]\s+(.*)$/;
const quote = /^ {0,3}>\s?(.*)$/;
const rule = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const divider = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** A table row's cells: split at pipes, the outer ones optional; `\|` is a pipe inside a cell. */
const splitRow = (line: string) =>
  line
    .replace(/\\\|/g, "\0")
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((cell) => cell.trim().replace(/\0/g, "|"));

/** A pipe table starts here: a header row, then a divider row with as many cells. */
const startsTable = (lines: string[], i: number) => {
  const next = lines[i + 1] ?? "";
  return (
    (lines[i] ?? "").includes("|") &&
    divider.test(next) &&
    splitRow(lines[i] ?? "").length === splitRow(next).length
  );
};

const startsBlock = (line: string) =>
  fence.test(line) || heading.test(line) || bullet.test(line) || ordered.test(line) || quote.test(line);

/** Parses Markdown text into blocks. Unclosed constructs (mid-stream) degrade to what they hold so far. */
export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === "") {
      i++;
      continue;
    }
    const open = fence.exec(line);
    if (open) {
      const marker = open[1] ?? "```";
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? "").trimStart().startsWith(marker))
        body.push(lines[i++] ?? "");
      i++;
      blocks.push({ t: "pre", lang: open[2] ?? "", v: body.join("\n") });
      continue;
    }
    const h = heading.exec(line);
    if (h) {
      blocks.push({ t: "h", level: h[1]?.length ?? 1, c: parseInline(h[2] ?? "") });
      i++;
      continue;
    }
    if (rule.test(line)) {
      blocks.push({ t: "hr" });
      i++;
      continue;
    }
    if (startsTable(lines, i)) {
      const head = splitRow(line);
      const align = splitRow(lines[i + 1] ?? "").map(
        (cell): Align =>
          cell.endsWith(":")
            ? cell.startsWith(":")
              ? "center"
              : "right"
            : cell.startsWith(":")
              ? "left"
              : undefined,
      );
      const rows: Inline[][][] = [];
      i += 2;
      while (i < lines.length && (lines[i] ?? "").includes("|")) {
        const cells = splitRow(lines[i++] ?? "");
        // Short rows are padded and long rows cut to the header's width, as on GitHub.
        rows.push(head.map((_, k) => parseInline(cells[k] ?? "")));
      }
      blocks.push({ t: "table", align, head: head.map(parseInline), rows });
      continue;
    }
    if (quote.test(line)) {
      const body: string[] = [];
      while (i < lines.length) {
        const q = quote.exec(lines[i] ?? "");
        if (!q) break;
        body.push(q[1] ?? "");
        i++;
      }
      blocks.push({ t: "quote", c: parseMarkdown(body.join("\n")) });
      continue;
    }
    const firstBullet = bullet.exec(line);
    const firstOrdered = ordered.exec(line);
    if (firstBullet || firstOrdered) {
      const pattern = firstBullet ? bullet : ordered;
      const items: string[] = [];
      while (i < lines.length) {
        const current = lines[i] ?? "";
        const item = pattern.exec(current);
        if (item) {
          items.push((firstBullet ? item[1] : item[2]) ?? "");
        } else if (current.trim() !== "" && /^\s/.test(current) && items.length > 0) {
          // An indented line continues the item above it.
          items[items.length - 1] += `\n${current.trim()}`;
        } else {
          break;
        }
        i++;
      }
      const parsed = items.map(parseInline);
      blocks.push(
        firstOrdered
          ? { t: "ol", start: Number.parseInt(firstOrdered[1] ?? "1", 10), items: parsed }
          : { t: "ul", items: parsed },
      );
      continue;
    }
    const para: string[] = [];
    while (i < lines.length) {
      const current = lines[i] ?? "";
      if (
        current.trim() === "" ||
        (para.length > 0 && (startsBlock(current) || rule.test(current) || startsTable(lines, i)))
      )
        break;
      para.push(current.trim());
      i++;
    }
    blocks.push({ t: "p", c: parseInline(para.join("\n")) });
  }
  return blocks;
}

const autolink = /^https?:\/\/[^\s<>"'`]+/i;
const email = /^[\w.%+-]+@[a-z\d-]+(?:\.[a-z\d-]+)*\.[a-z]{2,}/i;
// A phone number written as one: a leading +, a (area code), or digit groups joined by hyphens;
// plain spaced digits ("10 000 000") and dates stay text.
const phone =
  /^(?:\+\d{1,3}[ -]?(?:\(\d{1,4}\)[ -]?)?\d{1,4}(?:[ -]\d{1,4}){1,4}|\(\d{2,4}\)[ -]?\d{2,4}(?:[ -]\d{2,4}){1,3}|\d{2,4}(?:-\d{2,4}){2,4})(?![\w-])/;

/** An e-mail address or phone number starting here, as a link node and the length it covers. */
function contactLink(rest: string): { node: Inline; length: number } | null {
  const mail = email.exec(rest)?.[0];
  if (mail)
    return {
      node: { t: "link", href: safeHref(`mailto:${mail}`), c: [{ t: "text", v: mail }] },
      length: mail.length,
    };
  const number = phone.exec(rest)?.[0];
  const digits = number?.replace(/\D/g, "").length ?? 0;
  if (!number || digits < 7 || digits > 15 || /^\d{4}-\d{2}-\d{2}$/.test(number)) return null;
  return {
    node: {
      t: "link",
      href: safeHref(`tel:${number.replace(/[^\d+]/g, "")}`),
      c: [{ t: "text", v: number }],
    },
    length: number.length,
  };
}
const citeGroup = /^\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?!\()/;
const escapable = /[\\`*_{}[\]()#+\-.!>~|<]/;

/** Parses inline Markdown: code, strong, emphasis, links, autolinks, [n] citation markers, line breaks. */
export function parseInline(source: string): Inline[] {
  const out: Inline[] = [];
  let text = "";
  const flush = () => {
    if (text) out.push({ t: "text", v: decodeEntities(text) });
    text = "";
  };
  let i = 0;
  while (i < source.length) {
    const ch = source[i] ?? "";
    const rest = source.slice(i);
    if (ch === "\\" && escapable.test(source[i + 1] ?? "")) {
      text += source[i + 1];
      i += 2;
      continue;
    }
    if (ch === "\n") {
      flush();
      out.push({ t: "br" });
      i++;
      continue;
    }
    if (ch === "`") {
      const run = /^`+/.exec(rest)?.[0] ?? "`";
      const end = source.indexOf(run, i + run.length);
      if (end > 0) {
        flush();
        out.push({ t: "code", v: source.slice(i + run.length, end).trim() || " " });
        i = end + run.length;
        continue;
      }
    }
    if (ch === "[") {
      const cite = citeGroup.exec(rest);
      if (cite) {
        flush();
        for (const n of (cite[1] ?? "").split(",")) out.push({ t: "cite", n: Number.parseInt(n, 10) });
        i += cite[0].length;
        continue;
      }
      const link = parseLink(rest);
      if (link) {
        flush();
        out.push({ t: "link", href: safeHref(link.url), c: parseInline(link.label) });
        i += link.length;
        continue;
      }
    }
    if (ch === "<") {
      const angle = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(rest);
      if (angle) {
        flush();
        const url = angle[1] ?? "";
        out.push({ t: "link", href: safeHref(url), c: [{ t: "text", v: url }] });
        i += angle[0].length;
        continue;
      }
    }
    if ((ch === "h" || ch === "H") && !/\w/.test(source[i - 1] ?? "")) {
      const bare = autolink.exec(rest);
      if (bare) {
        // Trailing punctuation belongs to the sentence, not the address.
        const url = bare[0].replace(/[.,;:!?)\]]+$/, "");
        flush();
        out.push({ t: "link", href: safeHref(url), c: [{ t: "text", v: url }] });
        i += url.length;
        continue;
      }
    }
    if (/[\w+(]/.test(ch) && !/[\w.+@-]/.test(source[i - 1] ?? "")) {
      const contact = contactLink(rest);
      if (contact) {
        flush();
        out.push(contact.node);
        i += contact.length;
        continue;
      }
    }
    if (ch === "*" || ch === "_") {
      const emphasis = parseEmphasis(source, i);
      if (emphasis) {
        flush();
        out.push(emphasis.node);
        i = emphasis.end;
        continue;
      }
    }
    text += ch;
    i++;
  }
  flush();
  return out;
}

function parseLink(rest: string): { label: string; url: string; length: number } | null {
  let depth = 0;
  let close = -1;
  for (let j = 0; j < rest.length; j++) {
    const c = rest[j];
    if (c === "\\") j++;
    else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) {
      close = j;
      break;
    }
  }
  if (close < 0 || rest[close + 1] !== "(") return null;
  const target = /^\(\s*<?([^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)>?(?:\s+"[^"]*")?\s*\)/.exec(
    rest.slice(close + 1),
  );
  if (!target) return null;
  return { label: rest.slice(1, close), url: target[1] ?? "", length: close + 1 + target[0].length };
}

function parseEmphasis(source: string, i: number): { node: Inline; end: number } | null {
  const ch = source[i] ?? "";
  const double = source[i + 1] === ch;
  const marker = double ? ch + ch : ch;
  const start = i + marker.length;
  const first = source[start];
  if (!first || /\s/.test(first)) return null;
  // Underscores inside words (snake_case) are not emphasis.
  if (ch === "_" && /\w/.test(source[i - 1] ?? "")) return null;
  let search = start;
  for (;;) {
    const end = source.indexOf(marker, search);
    if (end < 0) return null;
    const inner = source.slice(start, end);
    const afterClose = source[end + marker.length] ?? "";
    const okClose =
      end > start &&
      !/\s/.test(source[end - 1] ?? "") &&
      !(ch === "_" && /\w/.test(afterClose)) &&
      !(!double && afterClose === ch);
    if (okClose && !inner.includes("\n\n")) {
      const children = parseInline(inner);
      return {
        node: double ? { t: "strong", c: children } : { t: "em", c: children },
        end: end + marker.length,
      };
    }
    search = end + marker.length;
  }
}

const namedEntities: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

/** Decodes character references into characters; the result is only ever rendered as text. */
export function decodeEntities(value: string): string {
  return value.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== "#") return namedEntities[ref.toLowerCase()] ?? whole;
    const code =
      ref[1] === "x" || ref[1] === "X"
        ? Number.parseInt(ref.slice(2), 16)
        : Number.parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
      ? String.fromCodePoint(code)
      : "\ufffd";
  });
}

/** The URL when it is absolute http(s), mailto or tel; anything else (javascript:, data:, relative) is null. */
export function safeHref(raw: string): string | null {
  try {
    const url = new URL(raw.trim());
    return ["https:", "http:", "mailto:", "tel:"].includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** Like safeHref but only http(s): for source links and avatars. */
export function safeHttpUrl(raw: string | null | undefined): string | null {
  const href = raw ? safeHref(raw) : null;
  return href?.startsWith("http") ? href : null;
}
