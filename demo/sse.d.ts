/** Yields the `data` payload of each server-sent event in a byte stream (see sse.js). */
export declare function readSseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string>;
