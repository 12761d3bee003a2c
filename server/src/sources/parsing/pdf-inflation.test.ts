import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { makePdf } from "../../../../test/fixtures/pdf.ts";
import { makePdfBomb } from "../../../../test/security/pdf-bomb.ts";
import { checkPdfInflation, InflationLimitError } from "./pdf-inflation.ts";

const MB = 1024 * 1024;

/** A PDF object holding `data` as a stream with the given dictionary entries. */
function pdfWithStream(dict: string, data: Uint8Array): Uint8Array {
  return new Uint8Array(
    Buffer.concat([
      Buffer.from(`%PDF-1.4\n1 0 obj\n<< ${dict} /Length ${data.length} >>\nstream\n`, "latin1"),
      data,
      Buffer.from("\nendstream\nendobj\n%%EOF\n", "latin1"),
    ]),
  );
}

describe("checkPdfInflation", () => {
  it("refuses a file whose Flate streams inflate past the cap, and passes one under it", () => {
    const bomb = makePdfBomb(3);
    expect(() => checkPdfInflation(bomb, 2 * MB)).toThrow(InflationLimitError);
    expect(() => checkPdfInflation(bomb, 4 * MB)).not.toThrow();
    expect(() => checkPdfInflation(makePdf([["Hello"]]), 1024)).not.toThrow();
  });

  it("follows chained Flate filters and counts what the last one produces", () => {
    const twice = deflateSync(deflateSync(Buffer.alloc(3 * MB, 0x20), { level: 9 }), { level: 9 });
    const pdf = pdfWithStream("/Filter [/FlateDecode /FlateDecode]", twice);
    expect(() => checkPdfInflation(pdf, 2 * MB)).toThrow(/inflate past 2097152 bytes/);
  });

  it("skips images, which text extraction never decodes, and survives corrupt data", () => {
    const image = deflateSync(Buffer.alloc(3 * MB));
    expect(() =>
      checkPdfInflation(pdfWithStream("/Subtype /Image /Filter /FlateDecode", image), MB),
    ).not.toThrow();
    const junk = pdfWithStream("/Filter /FlateDecode", new Uint8Array([0x78, 0x9c, 0xff, 0xff, 0x00, 0x01]));
    expect(() => checkPdfInflation(junk, MB)).not.toThrow();
  });
});
