// Server-sent events read from a fetch body: EventSource can't POST. Plain JS so the console loads
// it as it is (/demo/sse.js) and the widget bundles the same file.

/**
 * Yields the `data` payload of each server-sent event in a byte stream. Lines starting with ":"
 * (heartbeats) are skipped; multi-line data is joined with "\n".
 * @param {ReadableStream<Uint8Array>} body
 * @returns {AsyncGenerator<string>}
 */
export async function* readSseData(body) {
  const reader = body.getReader();
  // stream: true keeps a multi-byte character split across chunks until its last byte arrives.
  const decoder = new TextDecoder();
  let buffer = "";
  /** @type {string[]} */
  let data = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, "");
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
        if (line === "") {
          if (data.length > 0) yield data.join("\n");
          data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const raw = colon < 0 ? "" : line.slice(colon + 1);
          if (field === "data") data.push(raw.startsWith(" ") ? raw.slice(1) : raw);
        }
      }
      if (done) {
        // Lenient about a missing final blank line: a last event is still delivered.
        if (buffer.startsWith("data:")) data.push(buffer.slice(5).replace(/^ /, ""));
        if (data.length > 0) yield data.join("\n");
        return;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
