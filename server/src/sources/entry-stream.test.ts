import { describe, expect, it } from "vitest";
import {
  BodyTooLargeError,
  bulkFormat,
  capBytes,
  EntryStreamError,
  readJsonArray,
  readNdjson,
} from "./entry-stream.ts";

/** A body arriving in pieces of `size` bytes, so items straddle chunk boundaries. */
async function* pieces(text: string, size = 3): AsyncIterable<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function failure(items: AsyncIterable<unknown>): Promise<EntryStreamError> {
  try {
    await collect(items);
  } catch (error) {
    if (error instanceof EntryStreamError) return error;
    throw error;
  }
  throw new Error("expected the stream to fail");
}

describe("readNdjson", () => {
  it("yields one value per line with the line an editor shows, blank lines and CRLF included", async () => {
    const items = await collect(readNdjson(pieces('{"a":1}\r\n\n{"b":"x\\ny"}\n  \n{"c":3}')));
    expect(items).toEqual([
      { at: 1, value: { a: 1 } },
      { at: 3, value: { b: "x\ny" } },
      { at: 5, value: { c: 3 } },
    ]);
  });

  it("names the malformed line", async () => {
    const error = await failure(readNdjson(pieces('{"a":1}\n{"a":\n{"a":3}\n')));
    expect(error.message).toBe("Line 2 is not valid JSON");
    expect(error.at).toBe(2);
  });

  it("keeps multi-byte characters split across chunks and refuses invalid UTF-8", async () => {
    const items = await collect(readNdjson(pieces('{"t":"Zürich 東京 🎉"}\n', 1)));
    expect(items[0]?.value).toEqual({ t: "Zürich 東京 🎉" });
    async function* bad() {
      yield new Uint8Array([0x7b, 0xff, 0x7d]);
    }
    expect((await failure(readNdjson(bad()))).message).toBe("The body is not valid UTF-8");
  });
});

describe("readJsonArray", () => {
  it("yields each element once it is complete, whatever the chunking", async () => {
    const text = '[ {"t":"a, ]b","n":[1,{"x":"}"}]}, {"t":"\\"q\\""} ,3 ]  ';
    for (const size of [1, 2, 7, 1000]) {
      expect(await collect(readJsonArray(pieces(text, size)))).toEqual([
        { at: 1, value: { t: "a, ]b", n: [1, { x: "}" }] } },
        { at: 2, value: { t: '"q"' } },
        { at: 3, value: 3 },
      ]);
    }
  });

  it("accepts an empty array and refuses what is not one array", async () => {
    expect(await collect(readJsonArray(pieces(" [ ] ")))).toEqual([]);
    expect((await failure(readJsonArray(pieces('{"t":1}')))).message).toBe("The body is not a JSON array");
    expect((await failure(readJsonArray(pieces('[{"t":1}')))).message).toBe("The JSON array is not closed");
    expect((await failure(readJsonArray(pieces("[1] [2]")))).message).toBe(
      "Unexpected content after the array",
    );
    const empty = await failure(readJsonArray(pieces("[1,,2]")));
    expect([empty.message, empty.at]).toEqual(["Element 2 is empty", 2]);
    const broken = await failure(readJsonArray(pieces('[{"t":1},{"t":}]')));
    expect([broken.message, broken.at]).toEqual(["Element 2 is not valid JSON", 2]);
  });
});

describe("capBytes and bulkFormat", () => {
  it("stops a body once it passes the cap", async () => {
    expect((await collect(capBytes(pieces("abcdef", 2), 6))).length).toBe(3);
    await expect(collect(capBytes(pieces("abcdefg", 2), 6))).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it("reads NDJSON types as lines and JSON types as an array", () => {
    expect(bulkFormat("application/x-ndjson")).toBe("ndjson");
    expect(bulkFormat("application/jsonl; charset=utf-8")).toBe("ndjson");
    expect(bulkFormat("application/json")).toBe("array");
    expect(bulkFormat("text/plain")).toBeNull();
  });
});
