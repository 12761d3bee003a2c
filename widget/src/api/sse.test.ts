import { readSseData } from "@lore/shared/sse";
import { describe, expect, it } from "vitest";
import { readAnswerEvents } from "./sse.ts";

/** A body that delivers exactly these byte chunks, as a network might split them. */
function chunked(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/** Splits the encoded text at every given byte offset. */
function splitAt(text: string, offsets: number[]): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const cuts = [0, ...offsets, bytes.length];
  return cuts.slice(1).map((end, i) => bytes.slice(cuts[i], end));
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe("readSseData", () => {
  it("yields each event's data and skips heartbeat comments", async () => {
    const body = chunked(splitAt(': ping\n\ndata: {"a":1}\n\n: keep-alive\ndata: {"b":2}\n\n', []));
    expect(await collect(readSseData(body))).toEqual(['{"a":1}', '{"b":2}']);
  });

  it("reassembles lines split across chunks at every possible byte", async () => {
    const text = 'data: {"type":"token","token":"héllo — 日本 🙂"}\n\ndata: second\n\n';
    const length = new TextEncoder().encode(text).length;
    for (let cut = 1; cut < length; cut++) {
      const events = await collect(readSseData(chunked(splitAt(text, [cut]))));
      expect(events).toEqual(['{"type":"token","token":"héllo — 日本 🙂"}', "second"]);
    }
  });

  it("decodes a multi-byte character split into single bytes", async () => {
    const text = "data: 🙂日\n\n";
    const bytes = new TextEncoder().encode(text);
    const events = await collect(readSseData(chunked([...bytes].map((b) => Uint8Array.of(b)))));
    expect(events).toEqual(["🙂日"]);
  });

  it("handles CRLF line endings, multi-line data and fields it does not use", async () => {
    const body = chunked(
      splitAt("event: x\r\nid: 7\r\ndata: line one\r\ndata:line two\r\n\r\n", [3, 17, 30]),
    );
    expect(await collect(readSseData(body))).toEqual(["line one\nline two"]);
  });

  it("still delivers a final event that lacks the closing blank line", async () => {
    const body = chunked(splitAt('data: {"x":1}\n\ndata: {"y":2}', [5]));
    expect(await collect(readSseData(body))).toEqual(['{"x":1}', '{"y":2}']);
  });
});

describe("readAnswerEvents", () => {
  it("parses the JSON events and skips anything that is not one", async () => {
    const body = chunked(
      splitAt(
        'data: {"type":"token","token":"a"}\n\ndata: not json\n\ndata: {"type":"mystery"}\n\ndata: {"type":"token","token":"b"}\n\n',
        [20, 41],
      ),
    );
    expect(await collect(readAnswerEvents(body))).toEqual([
      { type: "token", token: "a" },
      { type: "token", token: "b" },
    ]);
  });
});
