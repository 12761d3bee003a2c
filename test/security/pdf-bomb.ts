/**
 * A PDF decompression bomb: one page whose content stream is `inflatedMb` MB of spaces, deflated
 * (about 1,000:1), so a file of a few hundred KB asks the parser for hundreds of MB.
 * Run directly (`node --import tsx test/security/pdf-bomb.ts 150`) it parses the bomb the way a
 * sync does and prints RSS before and after as JSON: the measurement the test asserts on.
 */
import { pathToFileURL } from "node:url";
import { Deflate } from "fflate";

export function makePdfBomb(inflatedMb: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const deflate = new Deflate({ level: 9 }, (chunk) => parts.push(chunk));
  const block = new Uint8Array(1024 * 1024).fill(0x20);
  for (let i = 0; i < inflatedMb; i++) deflate.push(block, false);
  deflate.push(new Uint8Array(0), true);
  // zlib wrapper around the raw deflate data, as FlateDecode expects (the checksum is not checked).
  const data = Buffer.concat([Buffer.from([0x78, 0xda]), ...parts, Buffer.alloc(4)]);
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
  ];
  const chunks: Buffer[] = [Buffer.from("%PDF-1.4\n", "latin1")];
  let size = chunks[0]?.length ?? 0;
  const offsets: number[] = [];
  const push = (b: Buffer): void => {
    chunks.push(b);
    size += b.length;
  };
  objects.forEach((body, i) => {
    offsets.push(size);
    push(Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`, "latin1"));
  });
  offsets.push(size);
  push(Buffer.from(`4 0 obj\n<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, "latin1"));
  push(data);
  push(Buffer.from("\nendstream\nendobj\n", "latin1"));
  const xref = size;
  let tail = `xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) tail += `${String(o).padStart(10, "0")} 00000 n \n`;
  tail += `trailer\n<< /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  push(Buffer.from(tail, "latin1"));
  return new Uint8Array(Buffer.concat(chunks));
}

/** RSS around one parse of the bomb, in MB: now and the process's peak (`maxRSS`). */
async function measure(inflatedMb: number): Promise<void> {
  const { parseDocument } = await import("../../server/src/sources/parsing/parse-document.ts");
  const bytes = makePdfBomb(inflatedMb);
  const mb = (n: number): number => Math.round(n / 1024 / 1024);
  const before = { rss: mb(process.memoryUsage().rss), peak: mb(process.resourceUsage().maxRSS * 1024) };
  let outcome = "parsed";
  try {
    await parseDocument({
      externalId: "bomb",
      title: "",
      sourceUrl: null,
      kind: "pdf",
      fileName: "bomb.pdf",
      body: bytes,
    });
  } catch (err) {
    outcome = err instanceof Error ? err.message : String(err);
  }
  const after = { rss: mb(process.memoryUsage().rss), peak: mb(process.resourceUsage().maxRSS * 1024) };
  process.stdout.write(
    `${JSON.stringify({ fileKb: Math.round(bytes.length / 1024), inflatedMb, before, after, outcome })}\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href)
  await measure(Number(process.argv[2] ?? 150));
