import { Inflate } from "fflate";
import { ParseError } from "../documents.ts";

/** Inflated bytes a PDF's Flate streams may add up to; past it the file is refused before pdf.js reads it. */
export const PDF_MAX_INFLATED_BYTES = 64 * 1024 * 1024;

/** Thrown when a file's compressed streams inflate past the cap: a decompression bomb, or too big to index. */
export class InflationLimitError extends ParseError {}

const STEP = 4 * 1024; // compressed bytes per push: one push inflates to at most ~4 MB

/** Latin-1 view of bytes, for finding PDF keywords without decoding binary data. */
function latin1(bytes: Uint8Array, from: number, to: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + from, Math.max(0, to - from)).toString("latin1");
}

/** How many Flate filters a stream dictionary chains, counted only while they come first (0: not Flate). */
function flateDepth(dict: string): number {
  const match = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dict);
  if (!match?.[1]) return 0;
  let depth = 0;
  for (const name of match[1].match(/\/[A-Za-z0-9]+/g) ?? []) {
    if (name !== "/FlateDecode" && name !== "/Fl") break;
    depth++;
  }
  return depth;
}

/**
 * Inflates `data` through `depth` chained Flate stages without keeping any output, adding each
 * final chunk to `budget` and throwing InflationLimitError the moment it runs out.
 */
function countInflated(data: Uint8Array, depth: number, budget: { left: number; max: number }): void {
  const sink = (chunk: Uint8Array): void => {
    budget.left -= chunk.length;
    if (budget.left < 0)
      throw new InflationLimitError(
        `PDF streams inflate past ${budget.max} bytes (decompression bomb?); not parsed`,
      );
  };
  let push: (chunk: Uint8Array, final: boolean) => void = sink;
  for (let stage = 0; stage < depth; stage++) {
    const inflate = new Inflate(push);
    let first = true;
    // zlib-wrapped (the usual form) or raw deflate: a zlib header is skipped, the checksum ignored.
    push = (chunk, final) => {
      const zlib = first && chunk.length >= 2 && (((chunk[0] ?? 0) << 8) | (chunk[1] ?? 0)) % 31 === 0;
      first = false;
      inflate.push(zlib && ((chunk[0] ?? 0) & 0x0f) === 8 ? chunk.subarray(2) : chunk, final);
    };
  }
  try {
    for (let o = 0; o < data.length; o += STEP) push(data.subarray(o, o + STEP), o + STEP >= data.length);
  } catch (err) {
    if (err instanceof InflationLimitError) throw err;
    // A corrupt stream stops inflating here; pdf.js will report it if it matters.
  }
}

/** A stream's /Length, direct or through an indirect `N G R` object; null when unknown. */
function declaredLength(dict: string, lengthObjects: () => Map<string, number>): number | null {
  const match = /\/Length\s+(\d+)(?:\s+(\d+)\s+R)?/.exec(dict);
  if (!match?.[1]) return null;
  if (match[2] === undefined) return Number(match[1]);
  return lengthObjects().get(`${match[1]} ${match[2]}`) ?? null;
}

/** Every `N G obj <integer> endobj` of the file, found in one pass (indirect stream lengths). */
function integerObjects(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const m of text.matchAll(/(\d+)\s+(\d+)\s+obj\s*(\d+)\s*endobj/g))
    found.set(`${m[1]} ${m[2]}`, Number(m[3]));
  return found;
}

/**
 * Refuses a PDF whose Flate streams (images aside: text extraction never decodes them) inflate past
 * `maxBytes` in total, measuring in bounded memory before pdf.js allocates anything for them.
 */
export function checkPdfInflation(bytes: Uint8Array, maxBytes = PDF_MAX_INFLATED_BYTES): void {
  const budget = { left: maxBytes, max: maxBytes };
  const keyword = /stream(?:\r\n|\n|\r)/g;
  const text = latin1(bytes, 0, bytes.length);
  let lengths: Map<string, number> | null = null;
  const lengthObjects = (): Map<string, number> => {
    lengths ??= integerObjects(text);
    return lengths;
  };
  for (let m = keyword.exec(text); m; m = keyword.exec(text)) {
    if (text.slice(Math.max(0, m.index - 3), m.index) === "end") continue;
    const dictStart = text.lastIndexOf("obj", m.index);
    const dict = dictStart >= 0 && m.index - dictStart < 64 * 1024 ? text.slice(dictStart, m.index) : "";
    const start = m.index + m[0].length;
    const length = declaredLength(dict, lengthObjects);
    const end = text.indexOf("endstream", start);
    // pdf.js trusts /Length when it fits, so must we: "endstream" bytes may sit inside the data.
    const stop =
      length !== null && start + length <= bytes.length ? start + length : end === -1 ? bytes.length : end;
    keyword.lastIndex = stop;
    const depth = flateDepth(dict);
    if (depth === 0 || (/\/Subtype\s*\/Image\b/.test(dict) && !/\/Form\b/.test(dict))) continue;
    countInflated(bytes.subarray(start, stop), depth, budget);
  }
}
