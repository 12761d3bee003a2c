import { fireEvent, waitFor, within } from "@testing-library/preact";
import { afterEach, describe, expect, it } from "vitest";
import { type MountContext, mountWidget, type PanelHandle } from "./mount.ts";
import {
  answerResponse,
  citation,
  createFetchDouble,
  createStream,
  defaultIds,
  jsonResponse,
  memoryStorage,
  widgetConfig,
} from "./test-support.ts";

// happy-dom's own control over the viewport size, which matchMedia follows.
const setViewport = (size: { width: number; height: number }) =>
  (
    window as unknown as { happyDOM?: { setViewport(s: { width: number; height: number }): void } }
  ).happyDOM?.setViewport(size);

const mounted: { handle: PanelHandle; host: HTMLElement }[] = [];

afterEach(() => {
  for (const { handle, host } of mounted.splice(0)) {
    handle.unmount();
    host.remove();
  }
});

/** What the loader provides: a host with an open shadow root, its launcher and stylesheet adoption. */
function mountForTest(routes: Parameters<typeof createFetchDouble>[0] = {}, lang = "en") {
  const host = document.createElement("lore-widget");
  document.body.append(host);
  const shadow = host.attachShadow({ mode: "open" });
  const launcher = document.createElement("button");
  launcher.dataset.lore = "launcher";
  shadow.append(launcher);
  const themes: unknown[] = [];
  const double = createFetchDouble({ "GET /config/": () => jsonResponse(200, widgetConfig()), ...routes });
  const ctx: MountContext = {
    host,
    shadow,
    launcher,
    adoptStyles: (css) => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      shadow.adoptedStyleSheets = [...shadow.adoptedStyleSheets, sheet];
    },
    applyTheme: (theme) => themes.push(theme),
    fetch: double.fetch,
    storage: memoryStorage(),
  };
  const events: { type: string; detail: unknown }[] = [];
  for (const type of ["open", "close", "message", "sources", "feedback", "error"]) {
    host.addEventListener(`lore:${type}`, (e) => events.push({ type, detail: (e as CustomEvent).detail }));
  }
  const handle = mountWidget({ widgetId: "w1", server: "https://lore.example.com", locale: lang }, ctx);
  mounted.push({ handle, host });
  const view = within(shadow as unknown as HTMLElement);
  const panel = () => shadow.querySelector('[data-lore="panel"]') as HTMLElement;
  return { handle, host, shadow, launcher, view, panel, events, themes, requests: double.requests };
}

describe("mountWidget", () => {
  it("renders a hidden, labelled dialog and keeps the launcher's state in step", async () => {
    const { handle, launcher, panel, view, themes } = mountForTest();
    await view.findByRole("heading", { name: "Acme Help", hidden: true });
    expect(panel().hidden).toBe(true);
    expect(panel().getAttribute("role")).toBe("dialog");
    expect(panel().getAttribute("aria-labelledby")).toBe(view.getByRole("heading", { hidden: true }).id);
    await waitFor(() => expect(launcher.getAttribute("aria-label")).toBe("Open chat: Acme Help"));
    expect(launcher.getAttribute("aria-expanded")).toBe("false");
    expect(launcher.getAttribute("aria-controls")).toBe(panel().id);
    expect(themes).toHaveLength(1);
    handle.open();
    await waitFor(() => expect(launcher.getAttribute("aria-expanded")).toBe("true"));
    expect(panel().hidden).toBe(false);
    expect(launcher.getAttribute("aria-label")).toBe("Close chat");
  });

  it("adopts its styles as a constructable stylesheet, never a <style> element", () => {
    const { shadow } = mountForTest();
    expect(shadow.adoptedStyleSheets.length).toBeGreaterThan(0);
    expect(shadow.querySelector("style")).toBeNull();
    expect(shadow.querySelector("[style]")).toBeNull();
  });

  it("opening focuses the question box; Escape closes and returns focus to the launcher", async () => {
    const { handle, shadow, launcher, panel, events } = mountForTest();
    handle.open();
    const input = shadow.querySelector('[data-lore="input"]');
    await waitFor(() => expect(shadow.activeElement).toBe(input));
    fireEvent.keyDown(input as Element, { key: "Escape" });
    expect(panel().hidden).toBe(true);
    expect(shadow.activeElement).toBe(launcher);
    expect(events.map((e) => e.type)).toEqual(["open", "close"]);
  });

  it("the close button closes too", async () => {
    const { handle, view, panel } = mountForTest();
    handle.open();
    fireEvent.click(await view.findByRole("button", { name: "Close" }));
    expect(panel().hidden).toBe(true);
  });

  it("open({message}) asks right away and emits message and sources events that bubble to the page", async () => {
    const { handle, events } = mountForTest({
      "POST /query/": () => answerResponse(["Five days [1]."], [citation(1)]),
    });
    const pageEvents: string[] = [];
    const onPage = (e: Event) => pageEvents.push(e.type);
    document.addEventListener("lore:message", onPage);
    handle.open({ message: "How long do refunds take?" });
    await waitFor(() => expect(events.filter((e) => e.type === "message")).toHaveLength(2));
    document.removeEventListener("lore:message", onPage);
    expect(events.map((e) => e.type)).toEqual(["open", "message", "sources", "message"]);
    expect(events[3]?.detail).toMatchObject({
      role: "assistant",
      content: "Five days [1].",
      messageId: defaultIds.messageId,
    });
    expect(pageEvents).toEqual(["lore:message", "lore:message"]);
  });

  it("announces the answer once, when complete, through the polite live region", async () => {
    let push: ReturnType<typeof createStream> | undefined;
    const { handle, shadow } = mountForTest({
      "POST /query/": (_req, signal) => {
        push = createStream(signal);
        return push.response;
      },
    });
    const live = shadow.querySelector('[data-lore="live"]');
    expect(live?.getAttribute("aria-live")).toBe("polite");
    handle.open({ message: "Q" });
    await waitFor(() => expect(push).toBeDefined());
    push?.send({ type: "start", query_id: "q", conversationId: defaultIds.conversationId, messageId: "m1" });
    push?.send({ type: "token", token: "Streaming **now**" });
    await waitFor(() => expect(shadow.querySelector('[data-role="assistant"] strong')).not.toBeNull());
    expect(live?.textContent).toBe("");
    expect(shadow.querySelector('[data-lore="messages"]')?.getAttribute("aria-live")).toBeNull();
    push?.send({
      type: "done",
      outcome: "answered",
      confidence: 0.9,
      conversationId: defaultIds.conversationId,
      messageId: "m1",
      sources: [],
      latency: 1,
      model: "extractive",
      correctionId: null,
      retrievedChunks: 0,
      metadata: { tokensUsed: 1, retrievalTime: 0, generationTime: 1 },
    });
    push?.end();
    await waitFor(() => expect(live?.textContent).toBe("Streaming now"));
  });

  it("Stop aborts the streaming answer and the same button becomes Send again", async () => {
    let push: ReturnType<typeof createStream> | undefined;
    const { handle, shadow, view } = mountForTest({
      "POST /query/": (_req, signal) => {
        push = createStream(signal);
        return push.response;
      },
    });
    handle.open({ message: "Long answer please" });
    await waitFor(() => expect(push).toBeDefined());
    push?.send({ type: "token", token: "Part" });
    const stop = await view.findByRole("button", { name: "Stop" });
    fireEvent.click(stop);
    await view.findByText("Stopped");
    expect(stop.getAttribute("data-lore")).toBe("send");
    expect(shadow.querySelector('[data-role="assistant"]')?.getAttribute("data-status")).toBe("stopped");
  });

  it("New conversation clears the messages", async () => {
    const { handle, view, shadow } = mountForTest({ "POST /query/": () => answerResponse(["A"]) });
    handle.open({ message: "Q" });
    await view.findByRole("button", { name: "Helpful" });
    fireEvent.click(view.getByRole("button", { name: "New conversation" }));
    expect(shadow.querySelector('[data-lore="messages"]')).toBeNull();
    expect(await view.findByRole("button", { name: "How do refunds work?" })).toBeTruthy();
  });

  it("traps focus inside the full-screen sheet on small screens", async () => {
    const { handle, shadow, panel, view } = mountForTest();
    handle.open();
    await view.findByRole("button", { name: "How do refunds work?" });
    // Force the sheet layout: the trap follows the same media query the CSS uses.
    setViewport({ width: 375, height: 700 });
    await waitFor(() => expect(panel().getAttribute("aria-modal")).toBe("true"));
    const newConversation = view.getByRole("button", { name: "New conversation" });
    const send = view.getByRole("button", { name: "Send" });
    send.focus();
    fireEvent.keyDown(send, { key: "Tab" });
    expect(shadow.activeElement).toBe(newConversation);
    fireEvent.keyDown(newConversation, { key: "Tab", shiftKey: true });
    expect(shadow.activeElement).toBe(send);
    setViewport({ width: 1024, height: 768 });
    await waitFor(() => expect(panel().getAttribute("aria-modal")).toBeNull());
  });

  it("speaks Arabic right to left", async () => {
    const { panel, view } = mountForTest({}, "ar");
    expect(panel().getAttribute("dir")).toBe("rtl");
    expect(panel().getAttribute("lang")).toBe("ar");
    expect(await view.findByLabelText("سؤالك")).toBeTruthy();
  });

  it("unmount removes the panel", () => {
    const { handle, shadow } = mountForTest();
    handle.unmount();
    expect(shadow.querySelector('[data-lore="panel"]')).toBeNull();
  });
});
