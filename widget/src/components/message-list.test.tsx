import type { AnswerEvent } from "@lore/shared";
import { fireEvent, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it } from "vitest";
import {
  answerResponse,
  citation,
  createStream,
  defaultIds,
  jsonResponse,
  networkFailure,
  sse,
  widgetConfig,
} from "../test-support.ts";
import { Composer } from "./composer.tsx";
import { foldAnswer } from "./folded-answer.tsx";
import { MessageList } from "./message-list.tsx";
import { renderInWidget } from "./render-support.tsx";

describe("MessageList", () => {
  it("shows the question, a typing indicator, then tokens as they stream", async () => {
    let push: ReturnType<typeof createStream> | undefined;
    const { store, container } = renderInWidget(<MessageList />, {
      routes: {
        "POST /query/": (_req, signal) => {
          push = createStream(signal);
          return push.response;
        },
      },
    });
    void store.send("How do refunds work?");
    await screen.findByText("How do refunds work?");
    expect(screen.getByRole("img", { name: "Thinking…" })).toBeTruthy();
    await waitFor(() => expect(push).toBeDefined());
    push?.send({ type: "start", query_id: "q", conversationId: defaultIds.conversationId, messageId: "m1" });
    push?.send({ type: "token", token: "Refunds take " });
    await screen.findByText("Refunds take");
    const answer = container.querySelector('[data-role="assistant"]');
    expect(answer?.getAttribute("aria-busy")).toBe("true");
    push?.send({ type: "token", token: "**five** days." });
    await waitFor(() => expect(answer?.querySelector("strong")?.textContent).toBe("five"));
    expect(container.querySelector('[data-lore="copy"]')).toBeNull();
    push?.end();
  });

  it("offers copy and feedback on a complete answer, and marks the chosen rating", async () => {
    const { store, requests } = renderInWidget(<MessageList />, {
      routes: {
        "POST /query/": () => answerResponse(["Done."]),
        "POST /feedback/": () => new Response(null, { status: 204 }),
      },
    });
    await store.send("Q");
    const up = await screen.findByRole("button", { name: "Helpful" });
    expect(screen.getByRole("button", { name: "Copy answer" })).toBeTruthy();
    expect(up.getAttribute("aria-pressed")).toBe("false");
    fireEvent.click(up);
    await waitFor(() => expect(up.getAttribute("aria-pressed")).toBe("true"));
    expect(screen.getByRole("button", { name: "Not helpful" }).getAttribute("aria-pressed")).toBe("false");
    expect(screen.getByText("Thanks for your feedback")).toBeTruthy();
    expect(requests.at(-1)?.body).toMatchObject({ rating: "up" });
  });

  it("lets each bubble and the question box take the direction of their text", async () => {
    const { store, container } = renderInWidget(
      <>
        <MessageList />
        <Composer inputRef={{ current: null }} inputId="q" />
      </>,
      { routes: { "POST /query/": () => answerResponse(["الاسترداد خلال خمسة أيام."]) } },
    );
    await store.send("كم يستغرق الاسترداد؟");
    await screen.findByText("الاسترداد خلال خمسة أيام.");
    const bubbles = container.querySelectorAll(".bubble");
    expect(bubbles).toHaveLength(2);
    for (const bubble of bubbles) expect(bubble.getAttribute("dir")).toBe("auto");
    expect(screen.getByLabelText("Your question").getAttribute("dir")).toBe("auto");
  });

  it("labels stopped answers and unanswered questions", async () => {
    const { store } = renderInWidget(<MessageList />, {
      routes: {
        "POST /query/": networkFailure,
      },
    });
    await store.send("Offline question");
    expect(await screen.findByText("Not answered")).toBeTruthy();
  });
});

describe("the way out under an answer", () => {
  /** The agent's fallback, written (the server says) for a visitor of `language`. */
  const fallback = (language: "es" | "en" | null) => {
    const events: AnswerEvent[] = [
      { type: "start", query_id: "q", conversationId: defaultIds.conversationId, messageId: "m1" },
      { type: "token", token: "No encontré eso." },
      {
        type: "done",
        outcome: "fallback",
        confidence: 0,
        conversationId: defaultIds.conversationId,
        messageId: "m1",
        sources: [],
        latency: 5,
        model: "extractive",
        correctionId: null,
        retrievedChunks: 0,
        metadata: { tokensUsed: 0, retrievalTime: 1, generationTime: 1 },
        language,
      },
    ];
    return new Response(events.map(sse).join(""), { headers: { "Content-Type": "text/event-stream" } });
  };
  const routes = (language: "es" | "en" | null) => ({
    "GET /config/": () => jsonResponse(200, widgetConfig({ handoff: { mode: "form", url: null } })),
    "POST /query/": () => fallback(language),
  });
  const wayOut = async (container: Element) => {
    await waitFor(() =>
      expect(container.querySelector('[data-lore="way-out"] [data-lore="contact"]')).toBeTruthy(),
    );
    return container.querySelector('[data-lore="way-out"]');
  };

  it("says Contact us in the answer's language when it is not the page's", async () => {
    const { store, container } = renderInWidget(<MessageList />, { routes: routes("es") });
    await store.loadConfig();
    await store.send("¿Venden tarjetas regalo?");
    const way = await wayOut(container);
    await waitFor(() => expect(way?.textContent).toBe("Contáctanos"));
    expect(way?.getAttribute("lang")).toBe("es");
  });

  it("keeps the page's language for an answer in it, or of no known language", async () => {
    for (const [page, language, label] of [
      ["en", "en", "Contact us"],
      ["en", null, "Contact us"],
      ["es", "es", "Contáctanos"],
    ] as const) {
      const { store, container, unmount } = renderInWidget(<MessageList />, {
        routes: routes(language),
        lang: page,
      });
      await store.loadConfig();
      await store.send("Q");
      expect((await wayOut(container))?.textContent).toBe(label);
      unmount();
    }
  });
});

describe("citations", () => {
  const sources = [
    citation(1, { title: "Refund policy" }),
    citation(2, { title: "Shipping", sourceUrl: "" }),
  ];

  it("[n] markers open and focus the matching source card", async () => {
    const { store, container } = renderInWidget(<MessageList />, {
      routes: {
        "POST /query/": () => answerResponse(["Refunds take 5 days [1]. Shipping is free [2]."], sources),
      },
    });
    await store.send("Q");
    const marker = await screen.findByRole("button", { name: "Show source 2: Shipping" });
    const cards = container.querySelectorAll('[data-lore="source"]');
    expect(cards).toHaveLength(2);
    const body = (rank: number) =>
      container.querySelector(`[data-lore="source"][data-rank="${rank}"] [data-lore="source-body"]`);
    expect(body(2)?.hasAttribute("hidden")).toBe(true);
    fireEvent.click(marker);
    await waitFor(() => expect(body(2)?.hasAttribute("hidden")).toBe(false));
    expect(marker.getAttribute("aria-expanded")).toBe("true");
    expect(body(1)?.hasAttribute("hidden")).toBe(true);
    const toggle = container.querySelector('[data-rank="2"] [data-lore="source-toggle"]');
    await waitFor(() => expect(document.activeElement).toBe(toggle));
    expect(marker.getAttribute("aria-controls")).toBe(body(2)?.id);
  });

  it("cards expand and collapse, showing snippet and a link only for http(s) sources", async () => {
    const { store, container } = renderInWidget(<MessageList />, {
      routes: { "POST /query/": () => answerResponse(["See [1] and [2]."], sources) },
    });
    await store.send("Q");
    const toggle = await screen.findByRole("button", { name: /^Refund policy/ });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    const card1 = container.querySelector('[data-rank="1"] [data-lore="source-body"]');
    // The snippet comes with the extras chunk, fetched when the first card opens.
    await waitFor(() => expect(card1?.textContent).toContain("Snippet number 1 about refunds."));
    expect(card1?.querySelector("a")?.getAttribute("href")).toBe("https://docs.example.com/1");
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    expect(card1?.hasAttribute("hidden")).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: /^Shipping/ }));
    expect(container.querySelector('[data-rank="2"] [data-lore="source-body"] a')).toBeNull();
  });

  it("shows snippets as plain text with the quoted passage marked", async () => {
    const handbook = citation(1, {
      content:
        "## Leave\n\nWe are in Berlin. **Every employee** receives 27 days of paid vacation per year. Ask HR.",
    });
    const { store, container } = renderInWidget(<MessageList />, {
      routes: {
        "POST /query/": () =>
          answerResponse(["Every employee receives 27 days of paid vacation [1]."], [handbook]),
      },
    });
    await store.send("Q");
    fireEvent.click(await screen.findByRole("button", { name: /^Document 1/ }));
    const snippet = await waitFor(() => {
      const found = container.querySelector('[data-rank="1"] .snippet');
      if (!found) throw new Error("no snippet yet");
      return found;
    });
    expect(snippet.textContent).toBe(
      "Leave\n\nWe are in Berlin. Every employee receives 27 days of paid vacation per year. Ask HR.",
    );
    expect(snippet.querySelector("mark")?.textContent).toBe(
      "Every employee receives 27 days of paid vacation",
    );
  });

  it("a marker without a matching source stays plain text", async () => {
    const { store, container } = renderInWidget(<MessageList />, {
      routes: { "POST /query/": () => answerResponse(["Claim [7]."], sources) },
    });
    await store.send("Q");
    await screen.findByText("[7]", { exact: false });
    expect(container.querySelector('[data-lore="cite"]')).toBeNull();
  });

  // Issue #50: a section answer longer than a glance folds behind "Show the whole section".
  it("folds a long section answer behind a button that shows the whole section", async () => {
    const lead = "To reset your password, open Settings and choose Reset password.";
    const steps = Array.from(
      { length: 12 },
      (_, i) => `Step ${i + 1} goes on with more of the section text here.`,
    );
    const text = [lead, ...steps].join("\n\n");
    const { store, container } = renderInWidget(<MessageList />, {
      routes: { "POST /query/": () => answerResponse([text]) },
    });
    await store.send("How do I reset my password?");
    const button = await screen.findByRole("button", { name: "Show the whole section" });
    const bubble = container.querySelector('[data-role="assistant"] .bubble');
    expect(bubble?.textContent).toContain(lead);
    expect(bubble?.textContent).not.toContain("Step 12 ");
    expect(button.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(button);
    await waitFor(() => expect(bubble?.textContent).toContain("Step 12 goes on"));
    expect(screen.queryByRole("button", { name: "Show the whole section" })).toBeNull();
  });

  it("folds only at block edges, shows the first block whole and leaves short answers alone", () => {
    expect(foldAnswer("Short answer. [1]")).toEqual({ shown: "Short answer. [1]", rest: "" });
    const long = `${"word ".repeat(150).trim()}\n\n${"more ".repeat(30).trim()}`;
    expect(foldAnswer(long).shown).toBe("word ".repeat(150).trim());
    // A tail of a few words is not worth a click.
    const tail = `${"word ".repeat(115).trim()}\n\n${"tail ".repeat(10).trim()}`;
    expect(foldAnswer(tail).rest).toBe("");
  });
});
