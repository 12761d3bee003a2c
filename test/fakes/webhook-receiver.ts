import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status it was answered with. */
  status: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  received: ReceivedDelivery[];
  close(): Promise<void>;
}

/**
 * A webhook receiver on loopback that keeps every delivery; `statusFor(path)` picks each answer's
 * status (a failure's body says "nope").
 */
export async function startWebhookReceiver(statusFor: (path: string) => number): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      const path = req.url ?? "/";
      const status = statusFor(path);
      received.push({ path, headers: req.headers, body, status });
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(status >= 300 ? "nope" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
