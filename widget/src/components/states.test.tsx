import { fireEvent, screen, waitFor } from "@testing-library/preact";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import {
  answerResponse,
  errorResponse,
  jsonResponse,
  networkFailure,
  widgetConfig,
} from "../test-support.ts";
import { Composer } from "./composer.tsx";
import { renderInWidget } from "./render-support.tsx";
import { NoticeBanner, Welcome } from "./states.tsx";

function View() {
  return (
    <>
      <Welcome />
      <NoticeBanner />
      <Composer inputRef={{ current: null }} inputId="q" />
    </>
  );
}

const input = () => screen.getByLabelText("Your question") as HTMLTextAreaElement;
const ask = (text: string) => {
  fireEvent.input(input(), { target: { value: text } });
  fireEvent.submit(input().closest("form") as HTMLFormElement);
};

afterEach(() => {
  vi.useRealTimers();
});

describe("states", () => {
  it("shows the welcome message and suggested questions, which ask when clicked", async () => {
    const { store, requests } = renderInWidget(<View />, {
      routes: { "POST /query/": () => answerResponse(["Hi"]) },
    });
    await store.loadConfig();
    expect(await screen.findByText("Acme", { selector: "strong" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Where is my order?" }));
    await waitFor(() => expect(requests.at(-1)?.body).toMatchObject({ message: "Where is my order?" }));
    await waitFor(() => expect(screen.queryByRole("button", { name: "Where is my order?" })).toBeNull());
  });

  it("429: counts down from Retry-After, then re-enables sending with the question restored", async () => {
    vi.useFakeTimers({ now: 5_000_000, shouldAdvanceTime: false });
    renderInWidget(<View />, {
      routes: { "POST /query/": () => errorResponse(429, "rate_limited", { "Retry-After": "2" }) },
    });
    ask("Quick question");
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    const notice = screen.getByRole("alert");
    expect(notice.getAttribute("data-kind")).toBe("rate_limited");
    expect(notice.querySelector('[data-lore="countdown"]')?.textContent).toContain("in 2 s");
    expect(input().value).toBe("Quick question");
    expect(screen.getByRole("button", { name: "Send" }).getAttribute("aria-disabled")).toBe("true");
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1000);
    });
    expect(notice.querySelector('[data-lore="countdown"]')?.textContent).toContain("in 1 s");
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1100);
    });
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.getByRole("button", { name: "Send" }).getAttribute("aria-disabled")).toBe("false");
  });

  it("503 agent_processing: says the assistant is still learning, with a retry", async () => {
    renderInWidget(<View />, {
      routes: {
        "POST /query/": [
          () => errorResponse(503, "agent_processing", { "Retry-After": "20" }),
          () => answerResponse(["Ok"]),
        ],
      },
    });
    ask("Hello");
    expect((await screen.findByRole("alert")).textContent).toContain("still learning");
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await waitFor(() => expect(screen.queryByRole("alert")).toBeNull());
  });

  it("403 origin_not_allowed: says the chat isn't enabled here and disables the box", async () => {
    const { store } = renderInWidget(<View />, {
      routes: { "GET /config/": () => errorResponse(403, "origin_not_allowed") },
    });
    await store.loadConfig();
    expect((await screen.findByRole("alert")).textContent).toBe("This chat isn't enabled on this site.");
    expect(input().disabled).toBe(true);
    expect(screen.queryByRole("button", { name: "Try again" })).toBeNull();
  });

  it("unreachable server (online browser): says the assistant can't be reached, with a retry", async () => {
    renderInWidget(<View />, {
      routes: {
        "POST /query/": [networkFailure, () => answerResponse(["Back"])],
      },
    });
    ask("Are you there?");
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Can't reach the assistant right now");
    expect(alert.textContent).not.toContain("offline");
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await waitFor(() => expect(screen.queryByRole("alert")).toBeNull());
  });

  it("a long rate limit reads in minutes, not thousands of seconds", async () => {
    renderInWidget(<View />, {
      routes: { "POST /query/": () => errorResponse(429, "rate_limited", { "Retry-After": "3332" }) },
    });
    ask("Quick question");
    const notice = await screen.findByRole("alert");
    expect(notice.querySelector('[data-lore="countdown"]')?.textContent).toContain("in about 56 minutes");
    expect(notice.textContent).not.toContain("3332");
  });

  it("offline: a clear message and a retry that works once back online", async () => {
    const onLine = vi.spyOn(navigator, "onLine", "get").mockReturnValue(false);
    onTestFinished(() => onLine.mockRestore());
    renderInWidget(<View />, {
      routes: {
        "POST /query/": [networkFailure, () => answerResponse(["Back"])],
      },
    });
    ask("Are you there?");
    expect((await screen.findByRole("alert")).textContent).toContain("offline");
    onLine.mockReturnValue(true);
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await waitFor(() => expect(screen.queryByRole("alert")).toBeNull());
  });

  it("upstream and server errors each get a message and a retry", async () => {
    renderInWidget(<View />, {
      routes: {
        "POST /query/": [
          () => errorResponse(502, "upstream_error"),
          () => errorResponse(500, "internal_error"),
        ],
      },
    });
    ask("One");
    expect((await screen.findByRole("alert")).textContent).toContain("answer service is unavailable");
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("Something went wrong"));
    expect(screen.getByRole("button", { name: "Try again" })).toBeTruthy();
  });

  it("a config that failed to load can be retried", async () => {
    const { store } = renderInWidget(<View />, {
      routes: {
        "GET /config/": [() => errorResponse(500, "internal_error"), () => jsonResponse(200, widgetConfig())],
      },
    });
    await store.loadConfig();
    fireEvent.click(await screen.findByRole("button", { name: "Try again" }));
    expect(await screen.findByRole("button", { name: "How do refunds work?" })).toBeTruthy();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("a processing agent is announced from its config", async () => {
    const { store } = renderInWidget(<View />, {
      routes: { "GET /config/": () => jsonResponse(200, widgetConfig({ status: "processing" })) },
    });
    await store.loadConfig();
    expect(await screen.findByText(/still learning/)).toBeTruthy();
  });

  it("Enter sends, Shift+Enter does not", async () => {
    const { requests } = renderInWidget(<View />, {
      routes: { "POST /query/": () => answerResponse(["x"]) },
    });
    fireEvent.input(input(), { target: { value: "line" } });
    fireEvent.keyDown(input(), { key: "Enter", shiftKey: true });
    expect(requests.filter((r) => r.method === "POST")).toHaveLength(0);
    fireEvent.keyDown(input(), { key: "Enter" });
    await waitFor(() => expect(requests.filter((r) => r.method === "POST")).toHaveLength(1));
    expect(input().value).toBe("");
  });
});
