import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "@testing-library/preact";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import type { LoreWidgetGlobal, WidgetHandle } from "./loader.ts";
import { citation, sse, widgetConfig } from "./test-support.ts";

// A protocol-faithful stand-in for the Lore server's public widget routes, over real HTTP.
let server: Server;
let origin = "";
const queries: unknown[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const cors = {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Headers": "content-type, accept",
      "Access-Control-Allow-Methods": "GET, POST",
    };
    if (req.method === "OPTIONS") {
      res.writeHead(204, cors).end();
      return;
    }
    if (req.method === "GET" && req.url === "/api/widget/w1/config/") {
      const config = widgetConfig({
        theme: {
          ...widgetConfig().theme,
          primaryColor: "#fde047",
          position: "bottom-left",
          colorScheme: "dark",
        },
      });
      res.writeHead(200, { ...cors, "Content-Type": "application/json" }).end(JSON.stringify(config));
      return;
    }
    if (req.method === "POST" && req.url === "/api/widget/w1/query/") {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", async () => {
        queries.push(JSON.parse(body));
        res.writeHead(200, { ...cors, "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
        const ids = { conversationId: "11111111-1111-4111-8111-111111111111", messageId: "m-1" };
        res.write(sse({ type: "start", query_id: "q", ...ids, visitorToken: "vt" }));
        res.write(": heartbeat\n\n");
        for (const token of ["Refunds ", "take ", "5 days [1]."]) {
          res.write(sse({ type: "token", token }));
          await new Promise((r) => setTimeout(r, 5));
        }
        res.write(sse({ type: "sources", sources: [citation(1)] }));
        res.end(
          sse({
            type: "done",
            outcome: "answered",
            confidence: 0.9,
            ...ids,
            sources: [citation(1)],
            latency: 20,
            model: "extractive",
            correctionId: null,
            retrievedChunks: 1,
            metadata: { tokensUsed: 3, retrievalTime: 5, generationTime: 15 },
          }),
        );
      });
      return;
    }
    // A proxy's own 404 page, not Lore's JSON (a wrong data-api-prefix).
    if (req.url?.startsWith("/proxy-page/")) {
      res
        .writeHead(404, { ...cors, "Content-Type": "text/html" })
        .end("<html><body>404 Not Found</body></html>");
      return;
    }
    res
      .writeHead(404, { ...cors, "Content-Type": "application/json" })
      .end('{"error":"not_found","message":"no","details":{}}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

type Win = { LoreWidget?: LoreWidgetGlobal | { q: unknown[] } };
const win = window as unknown as Win;

/** Runs the loader as a fresh page would: a new module instance, with whatever the page queued. */
async function loadLoader(queue?: unknown[]): Promise<LoreWidgetGlobal> {
  vi.resetModules();
  win.LoreWidget = queue ? { q: queue } : undefined;
  await import("./loader.ts");
  return win.LoreWidget as unknown as LoreWidgetGlobal;
}

const handles: WidgetHandle[] = [];
beforeEach(() => {
  localStorage.clear();
  queries.length = 0;
});
afterEach(() => {
  for (const handle of handles.splice(0)) handle.unmount();
  win.LoreWidget = undefined;
});

const hostOf = (handle: WidgetHandle) => handle.element;
const shadowOf = (handle: WidgetHandle) => hostOf(handle).shadowRoot as ShadowRoot;
const launcherOf = (handle: WidgetHandle) =>
  shadowOf(handle).querySelector('[data-lore="launcher"]') as HTMLButtonElement;

describe("loader", () => {
  it("renders a labelled launcher in an open shadow root, styled without <style> elements", async () => {
    const api = await loadLoader();
    const handle = api.mount({ widgetId: "w1", server: origin });
    handles.push(handle);
    expect(hostOf(handle).tagName).toBe("LORE-WIDGET");
    // Beside <body>: a transformed body would otherwise carry the fixed launcher off screen.
    expect(hostOf(handle).parentElement).toBe(document.documentElement);
    const launcher = launcherOf(handle);
    expect(launcher.tagName).toBe("BUTTON");
    expect(launcher.getAttribute("aria-expanded")).toBe("false");
    expect(launcher.getAttribute("aria-label")).toBeTruthy();
    expect(shadowOf(handle).adoptedStyleSheets.length).toBe(1);
    expect(shadowOf(handle).querySelector("style, [style]")).toBeNull();
    // The panel is not loaded until the visitor reaches for the launcher.
    expect(shadowOf(handle).querySelector('[data-lore="panel"]')).toBeNull();
  });

  it("applies the agent's theme from its config to the host, page options winning", async () => {
    const api = await loadLoader();
    const handle = api.mount({ widgetId: "w1", server: origin, theme: { colorScheme: "light", zIndex: 50 } });
    handles.push(handle);
    const host = hostOf(handle);
    await waitFor(() => expect(host.dataset.position).toBe("bottom-left"));
    expect(host.style.getPropertyValue("--lore-primary")).toBe("#fde047");
    expect(host.style.getPropertyValue("--lore-on-primary")).toBe("#111");
    expect(host.style.getPropertyValue("--lore-z")).toBe("50");
    // The panel applies the rest of the theme once it loads.
    handle.open();
    await waitFor(() => expect(host.style.getPropertyValue("--lore-radius")).toBe("16px"), { timeout: 5000 });
    expect(host.dataset.scheme).toBe("light");
  });

  it("shows the launcher once the config answers, and keeps its theme for the next page view", async () => {
    let api = await loadLoader();
    const first = api.mount({ widgetId: "w1", server: origin });
    // Nothing to show until the server says this widget works here.
    expect(launcherOf(first).hidden).toBe(true);
    await waitFor(() => expect(launcherOf(first).hidden).toBe(false));
    expect(hostOf(first).style.getPropertyValue("--lore-primary")).toBe("#fde047");
    expect(JSON.parse(localStorage.getItem("lore:theme:w1") ?? "null")).toMatchObject({
      primaryColor: "#fde047",
    });
    first.unmount();
    api = await loadLoader();
    const second = api.mount({ widgetId: "w1", server: origin });
    handles.push(second);
    // At once, before the config request answers: the agent's colour and side, no default blue.
    expect(launcherOf(second).hidden).toBe(false);
    expect(hostOf(second).style.getPropertyValue("--lore-primary")).toBe("#fde047");
    expect(hostOf(second).dataset.position).toBe("bottom-left");
  });

  it("an unknown widget (or a refused origin) shows no launcher, and warns the site owner", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    onTestFinished(() => warn.mockRestore());
    // A theme kept from when the widget still worked here must not bring the launcher back.
    localStorage.setItem("lore:theme:gone", JSON.stringify({ primaryColor: "#ff0000" }));
    const api = await loadLoader();
    const handle = api.mount({ widgetId: "gone", server: origin });
    handles.push(handle);
    expect(launcherOf(handle).hidden).toBe(false);
    await waitFor(() => expect(warn).toHaveBeenCalledOnce());
    expect(launcherOf(handle).hidden).toBe(true);
    expect(warn.mock.calls[0]?.[1]).toMatchObject({ error: "not_found" });
    expect(localStorage.getItem("lore:theme:gone")).toBe("");
  });

  it("a configuration reply that is not Lore's JSON is logged with the URL asked, its status and the likely cause", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    onTestFinished(() => warn.mockRestore());
    const api = await loadLoader();
    const handle = api.mount({ widgetId: "w1", server: origin, apiPrefix: "/proxy-page" });
    handles.push(handle);
    await waitFor(() => expect(warn).toHaveBeenCalledOnce());
    expect(launcherOf(handle).hidden).toBe(true);
    expect(warn.mock.calls[0]).toEqual([
      "Lore:",
      `could not load the widget config from ${origin}/proxy-page/widget/w1/config/: HTTP 404 — check data-api-prefix`,
    ]);
  });

  it("a server it cannot reach still gets a launcher (the panel says what is wrong)", async () => {
    const api = await loadLoader();
    const handle = api.mount({ widgetId: "w1", server: "http://127.0.0.1:9" });
    handles.push(handle);
    await waitFor(() => expect(launcherOf(handle).hidden).toBe(false), { timeout: 5000 });
  });

  it("prefetches the panel on hover without opening it", async () => {
    const api = await loadLoader();
    const handle = api.mount({ widgetId: "w1", server: origin });
    handles.push(handle);
    launcherOf(handle).dispatchEvent(new Event("pointerenter"));
    await waitFor(() => expect(shadowOf(handle).querySelector('[data-lore="panel"]')).not.toBeNull(), {
      timeout: 5000,
    });
    expect((shadowOf(handle).querySelector('[data-lore="panel"]') as HTMLElement).hidden).toBe(true);
  });

  it("a click loads and opens the panel; a second click closes it", async () => {
    const api = await loadLoader();
    const handle = api.mount({ widgetId: "w1", server: origin });
    handles.push(handle);
    const opened = vi.fn();
    handle.on("open", opened);
    launcherOf(handle).click();
    await waitFor(() => expect(launcherOf(handle).getAttribute("aria-expanded")).toBe("true"), {
      timeout: 5000,
    });
    expect(opened).toHaveBeenCalledOnce();
    launcherOf(handle).click();
    await waitFor(() => expect(launcherOf(handle).getAttribute("aria-expanded")).toBe("false"));
  });

  it("replays calls queued before it loaded, then streams an answer from the server", async () => {
    const messages: unknown[] = [];
    const api = await loadLoader([
      ["on", "message", (detail: unknown) => messages.push(detail)],
      ["open", { message: "How do refunds work?" }],
      ["mount", { widgetId: "w1", server: origin }],
    ]);
    const host = document.querySelector("lore-widget") as HTMLElement;
    expect(host).not.toBeNull();
    await waitFor(() => expect(messages).toHaveLength(2), { timeout: 5000 });
    expect(messages[1]).toMatchObject({ role: "assistant", content: "Refunds take 5 days [1]." });
    // A new conversation's first message carries the page it was asked on and a coarse device class.
    expect(queries).toEqual([{ message: "How do refunds work?", pageUrl: location.href, device: "desktop" }]);
    const shadow = host.shadowRoot as ShadowRoot;
    expect(shadow.querySelector('[data-lore="cite"]')?.textContent).toBe("1");
    // Calls after load go straight through the same queue interface.
    api.q.push(["close"]);
    await waitFor(() =>
      expect(shadow.querySelector('[data-lore="panel"]')?.hasAttribute("hidden")).toBe(true),
    );
    api.q.push(["reset"]);
    await waitFor(() => expect(shadow.querySelector('[data-lore="messages"]')).toBeNull());
    host.remove();
  });

  it("keeps the conversation for the next page load", async () => {
    let api = await loadLoader();
    const first = api.mount({ widgetId: "w1", server: origin });
    first.open({ message: "Remember this" });
    await waitFor(() => expect(queries).toHaveLength(1), { timeout: 5000 });
    await waitFor(() =>
      expect(shadowOf(first).querySelector('[data-role="assistant"]')?.getAttribute("data-status")).toBe(
        "complete",
      ),
    );
    first.unmount();
    api = await loadLoader();
    const second = api.mount({ widgetId: "w1", server: origin });
    handles.push(second);
    second.open({ message: "And this" });
    await waitFor(() => expect(queries).toHaveLength(2), { timeout: 5000 });
    expect(queries[1]).toEqual({
      message: "And this",
      conversationId: "11111111-1111-4111-8111-111111111111",
      visitorToken: "vt",
    });
    await waitFor(() => expect(shadowOf(second).querySelectorAll('[data-lore="message"]')).toHaveLength(4));
  });

  it("on() returns an unsubscribe, and unmount removes the widget", async () => {
    const api = await loadLoader();
    const handle = api.mount({ widgetId: "w1", server: origin });
    const seen = vi.fn();
    const off = handle.on("close", seen);
    handle.open();
    await waitFor(() => expect(launcherOf(handle).getAttribute("aria-expanded")).toBe("true"), {
      timeout: 5000,
    });
    handle.close();
    await waitFor(() => expect(seen).toHaveBeenCalledOnce());
    off();
    // A listener still subscribed shows when the next close has been dispatched.
    const still = vi.fn();
    handle.on("close", still);
    handle.open();
    handle.close();
    await waitFor(() => expect(still).toHaveBeenCalledOnce());
    expect(seen).toHaveBeenCalledOnce();
    handle.unmount();
    expect(document.querySelector("lore-widget")).toBeNull();
  });
});
