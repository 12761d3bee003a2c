import type { Citation, FeedbackReason, VisitorMessage, WidgetConfig } from "@lore/shared";
import { batch, computed, type ReadonlySignal, type Signal, signal } from "@preact/signals";
import { ApiError, createClient, type FetchFn, type PrefetchedConfig } from "../api/client.ts";
import { createHandoffState, type HandoffState } from "./handoff.ts";
import {
  DEFAULT_TTL_MS,
  defaultStorage,
  loadConversation,
  saveConversation,
  storageKey,
} from "./persistence.ts";
import type { ChatMessage, Emit, Notice } from "./types.ts";

export interface StoreOptions {
  server: string;
  widgetId: string;
  fetch: FetchFn;
  apiPrefix?: string;
  /** The config the loader requested while the launcher rendered. */
  prefetchedConfig?: Promise<PrefetchedConfig>;
  /** Where the conversation is kept; defaults to localStorage, null keeps nothing. */
  storage?: Storage | null;
  ttlMs?: number;
  now?: () => number;
  emit?: Emit;
}

export interface WidgetStore {
  config: ReadonlySignal<WidgetConfig | null>;
  configState: ReadonlySignal<"loading" | "ready" | "failed">;
  messages: ReadonlySignal<ChatMessage[]>;
  notice: ReadonlySignal<Notice | null>;
  /** True while an answer is requested or streaming. */
  busy: ReadonlySignal<boolean>;
  /** Seconds until a rate limit lifts; 0 when the visitor may ask. */
  retryIn: ReadonlySignal<number>;
  canSend: ReadonlySignal<boolean>;
  canRetry: ReadonlySignal<boolean>;
  /** The composer's text, kept here so a question refused by a rate limit comes back to it. */
  draft: Signal<string>;
  /** The last completed answer as plain text, for the polite live region. */
  announcement: ReadonlySignal<string>;
  loadConfig(): Promise<void>;
  send(text: string): Promise<void>;
  stop(): void;
  retry(): Promise<void>;
  reset(): void;
  rate(
    id: string,
    rating: "up" | "down",
    detail?: { reason?: FeedbackReason; comment?: string },
  ): Promise<void>;
  /** Asks a stopped answer's question again. */
  resend(answerId: string): Promise<void>;
  /** The contact form (the agent's `form` handoff). */
  handoff: HandoffState;
  dispose(): void;
}

const DEFAULT_RETRY_AFTER_S = 10;
/** How long a reloaded page waits for an interrupted answer to be stored, and how often it looks. */
const RECOVER_MS = 90_000;
const RECOVER_EVERY_MS = 1_500;

export function createStore(options: StoreOptions): WidgetStore {
  const now = options.now ?? Date.now;
  const emit: Emit = options.emit ?? (() => {});
  const storage = options.storage === undefined ? defaultStorage() : options.storage;
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  const key = storageKey(options.server, options.widgetId);
  const client = createClient(options);

  const saved = loadConversation(storage, key, now(), ttlMs);
  let conversationId = saved?.conversationId ?? null;
  let visitorToken = saved?.visitorToken ?? null;
  let controller: AbortController | null = null;
  let ticker: ReturnType<typeof setInterval> | undefined;
  let recovering: ReturnType<typeof setTimeout> | undefined;
  let counter = 0;

  const handoff = createHandoffState(
    client,
    () => ({ conversationId, visitorToken }),
    (started) => {
      ({ conversationId, visitorToken } = started);
      persist();
    },
  );
  const config = signal<WidgetConfig | null>(null);
  const configState = signal<"loading" | "ready" | "failed">("loading");
  const messages = signal<ChatMessage[]>(saved?.messages ?? []);
  // An answer cut off by a reload shows as pending while its stored copy is fetched.
  const interrupted = saved?.interrupted && conversationId && visitorToken ? saved.interrupted : null;
  if (interrupted) {
    messages.value = messages.value.map((m) => (m.id === interrupted ? { ...m, status: "pending" } : m));
  }
  const notice = signal<Notice | null>(null);
  const clock = signal(now());
  const announcement = signal("");
  const draft = signal("");
  const lastFailure = signal<"config" | "send" | null>(null);

  const busy = computed(() => {
    const last = messages.value.at(-1);
    return last?.status === "pending" || last?.status === "streaming";
  });
  const retryIn = computed(() => {
    const current = notice.value;
    return current?.kind === "rate_limited"
      ? Math.max(0, Math.ceil((current.retryAt - clock.value) / 1000))
      : 0;
  });
  const canSend = computed(
    () =>
      !busy.value &&
      retryIn.value === 0 &&
      notice.value?.kind !== "origin_refused" &&
      notice.value?.kind !== "not_found",
  );
  // Failures that asking again may cure.
  const canRetry = computed(
    () =>
      lastFailure.value !== null &&
      !busy.value &&
      /^(offline|unreachable|upstream|server|interrupted|processing)$/.test(notice.value?.kind ?? ""),
  );

  const persist = () =>
    saveConversation(storage, key, now(), { conversationId, visitorToken, messages: messages.value });
  const update = (id: string, change: (m: ChatMessage) => Partial<ChatMessage>) => {
    messages.value = messages.value.map((m) => (m.id === id ? { ...m, ...change(m) } : m));
  };
  const find = (id: string) => messages.value.find((m) => m.id === id);
  const newMessage = (
    role: ChatMessage["role"],
    content: string,
    status: ChatMessage["status"],
  ): ChatMessage => ({
    id: `m${now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`,
    role,
    content,
    sources: [],
    status,
    messageId: null,
    feedback: null,
  });

  const tell = (next: Notice, code: string, message: string) => {
    notice.value = next;
    emit("error", { code, message });
    if (next.kind === "rate_limited") startTicker();
  };

  // The countdown only ticks while a rate limit is shown, and clears the notice when it ends.
  const startTicker = () => {
    clearInterval(ticker);
    clock.value = now();
    ticker = setInterval(() => {
      clock.value = now();
      if (retryIn.value === 0) {
        clearInterval(ticker);
        ticker = undefined;
        if (notice.value?.kind === "rate_limited") notice.value = null;
      }
    }, 250);
  };

  const noticeFor = (error: unknown): { notice: Notice; code: string; message: string } => {
    if (error instanceof ApiError) {
      const n = noticeForCode(
        error.code,
        error.status,
        now() + (error.retryAfter ?? DEFAULT_RETRY_AFTER_S) * 1000,
      );
      return { notice: n, code: error.code, message: error.message };
    }
    const message = error instanceof Error ? error.message : String(error);
    // The browser knows it has no network: offline. Otherwise a fetch that rejects (a TypeError:
    // DNS, refused connection, CORS, a server that is down) means the assistant can't be reached.
    if (globalThis.navigator?.onLine === false)
      return { notice: { kind: "offline" }, code: "offline", message };
    return error instanceof TypeError
      ? { notice: { kind: "unreachable" }, code: "unreachable", message }
      : { notice: { kind: "server" }, code: "internal_error", message };
  };

  /**
   * Reads the answer a reload cut off from the server, which finishes and stores it anyway; looks
   * again while it is still being written, and shows it as stopped if it never arrives.
   */
  async function recover(localId: string, since: number): Promise<void> {
    recovering = undefined;
    const target = find(localId);
    if (target?.status !== "pending" || !conversationId || !visitorToken) return;
    let stored: VisitorMessage | undefined;
    let gone = false;
    try {
      const transcript = await client.getConversation(conversationId, visitorToken);
      stored = storedAnswer(messages.value, localId, transcript.messages);
    } catch (error) {
      // A conversation that is gone (or a token that expired) will not come back; anything else may.
      gone = error instanceof ApiError && error.status < 500 && error.status !== 429;
    }
    if (find(localId)?.status !== "pending") return;
    if (stored) {
      const answer = stored;
      update(localId, () => ({
        content: answer.content,
        sources: answer.sources,
        status: answer.status,
        messageId: answer.id,
        feedback: answer.feedback,
        ...outcomeOf(answer),
      }));
      if (answer.status === "complete") announcement.value = plainText(answer.content);
      persist();
    } else if (gone || now() - since > RECOVER_MS) {
      update(localId, () => ({ status: "stopped" }));
      persist();
    } else {
      recovering = setTimeout(() => void recover(localId, since), RECOVER_EVERY_MS);
    }
  }
  if (interrupted) void recover(interrupted, now());

  async function loadConfig(): Promise<void> {
    configState.value = "loading";
    try {
      const loaded = await client.getConfig();
      batch(() => {
        config.value = loaded;
        configState.value = "ready";
        if (notice.value && lastFailure.value === "config") notice.value = null;
        lastFailure.value = null;
      });
    } catch (error) {
      const described = noticeFor(error);
      lastFailure.value = "config";
      batch(() => {
        configState.value = "failed";
        tell(described.notice, described.code, described.message);
      });
    }
  }

  async function send(text: string): Promise<void> {
    const message = text.trim();
    if (!message || !canSend.value) return;
    const user = newMessage("user", message, "complete");
    const answer = newMessage("assistant", "", "pending");
    batch(() => {
      if (notice.value?.kind !== "rate_limited") notice.value = null;
      messages.value = [...messages.value, user, answer];
    });
    persist();
    emit("message", { role: "user", content: message, conversationId });
    await ask(user, answer.id, message, true);
  }

  async function ask(
    user: ChatMessage,
    answerId: string,
    message: string,
    mayRenewToken: boolean,
  ): Promise<void> {
    const own = new AbortController();
    controller = own;
    let started = false;
    let finished = false;
    try {
      // A new conversation says where it began: the page (http(s), no fragment) and a coarse device
      // class from the pointer and viewport width; no user agent is read (docs/widget.md, Privacy).
      const page = location.href.replace(/#.*/, "");
      const events = await client.query(
        {
          message,
          ...(conversationId
            ? { conversationId }
            : /^http/.test(page)
              ? {
                  pageUrl: page.slice(0, 2048),
                  device: matchMedia("(pointer:coarse)").matches
                    ? innerWidth < 600
                      ? "mobile"
                      : "tablet"
                    : "desktop",
                }
              : {}),
          ...(visitorToken ? { visitorToken } : {}),
        },
        own.signal,
      );
      for await (const event of events) {
        switch (event.type) {
          case "start":
            started = true;
            conversationId = event.conversationId;
            visitorToken = event.visitorToken ?? visitorToken;
            update(answerId, () => ({ messageId: event.messageId, status: "streaming" }));
            // Saved now, so a reload mid-answer knows which stored answer to read back.
            persist();
            break;
          case "token":
            started = true;
            update(answerId, (m) => ({ content: m.content + event.token, status: "streaming" }));
            break;
          case "sources":
            update(answerId, () => ({ sources: event.sources }));
            emit("sources", { messageId: find(answerId)?.messageId ?? null, sources: event.sources });
            break;
          case "done": {
            finished = true;
            conversationId = event.conversationId;
            const previous = find(answerId)?.sources ?? [];
            const sources: Citation[] = event.sources.length > 0 ? event.sources : previous;
            const { outcome } = event;
            update(answerId, () => ({
              status: "complete",
              sources,
              messageId: event.messageId,
              lang: event.language,
              ...(outcome ? { outcome } : {}),
            }));
            if (previous.length === 0 && sources.length > 0) {
              emit("sources", { messageId: event.messageId, sources });
            }
            const done = find(answerId);
            announcement.value = plainText(done?.content ?? "");
            emit("message", {
              role: "assistant",
              content: done?.content ?? "",
              messageId: event.messageId,
              conversationId,
              sources,
            });
            break;
          }
          case "error": {
            finished = true;
            lastFailure.value = "send";
            update(answerId, () => ({ status: "failed" }));
            const next = noticeForCode(event.error, 500, now() + DEFAULT_RETRY_AFTER_S * 1000);
            tell(next, event.error, event.message);
            break;
          }
          default:
            event satisfies never;
        }
        if (finished) break;
      }
      if (!finished && !own.signal.aborted) {
        // The stream ended without done or error: never a silent stop.
        lastFailure.value = "send";
        update(answerId, () => ({ status: "failed" }));
        tell({ kind: "interrupted" }, "interrupted", "The answer stream ended early");
      }
    } catch (error) {
      if (own.signal.aborted) {
        update(answerId, () => ({ status: "stopped" }));
      } else if (
        error instanceof ApiError &&
        error.status === 401 &&
        mayRenewToken &&
        (visitorToken || conversationId)
      ) {
        // An expired visitor token: the conversation can't continue, so start a new one once.
        visitorToken = null;
        conversationId = null;
        await ask(user, answerId, message, false);
        return;
      } else {
        const described = noticeFor(error);
        lastFailure.value = "send";
        if (!started && described.notice.kind === "rate_limited") {
          // Asked too soon: take the question back into the composer for after the countdown.
          messages.value = messages.value.filter((m) => m.id !== answerId && m.id !== user.id);
          draft.value = message;
        } else if (!started && find(answerId)?.content === "") {
          // Nothing arrived: drop the empty answer and mark the question as not answered.
          messages.value = messages.value.filter((m) => m.id !== answerId);
          update(user.id, () => ({ status: "failed" }));
        } else {
          update(answerId, () => ({ status: "failed" }));
        }
        tell(
          described.notice.kind === "server" && started ? { kind: "interrupted" } : described.notice,
          described.code,
          described.message,
        );
      }
    } finally {
      if (controller === own) controller = null;
      persist();
    }
  }

  function stop(): void {
    if (!controller) return;
    controller.abort();
    // The question comes back to the composer, to edit or ask again.
    const question = messages.value.findLast((m) => m.role === "user")?.content;
    if (question && !draft.value.trim()) draft.value = question;
  }

  async function resend(answerId: string): Promise<void> {
    const at = messages.value.findIndex((m) => m.id === answerId);
    const question = messages.value.slice(0, at).findLast((m) => m.role === "user")?.content;
    if (!question) return;
    if (draft.value === question) draft.value = "";
    await send(question);
  }

  async function retry(): Promise<void> {
    if (!canRetry.value) return;
    if (lastFailure.value === "config" || configState.value === "failed") {
      await loadConfig();
      return;
    }
    const list = messages.value;
    let index = list.length - 1;
    while (index >= 0 && list[index]?.role !== "user") index--;
    const question = list[index];
    if (!question) return;
    batch(() => {
      messages.value = list.slice(0, index);
      notice.value = null;
    });
    lastFailure.value = null;
    await send(question.content);
  }

  function reset(): void {
    controller?.abort();
    handoff.closeContact();
    conversationId = null;
    visitorToken = null;
    lastFailure.value = null;
    batch(() => {
      messages.value = [];
      announcement.value = "";
      // A rate limit outlives the conversation; everything else belonged to it.
      if (notice.value?.kind !== "rate_limited" && configState.value !== "failed") notice.value = null;
    });
    persist();
  }

  async function rate(
    id: string,
    rating: "up" | "down",
    detail: { reason?: FeedbackReason; comment?: string } = {},
  ): Promise<void> {
    const message = find(id);
    if (!message?.messageId || message.role !== "assistant") return;
    const previous = message.feedback;
    update(id, () => ({ feedback: rating }));
    try {
      await client.sendFeedback(message.messageId, {
        rating,
        ...detail,
        ...(visitorToken ? { visitorToken } : {}),
      });
      emit("feedback", { messageId: message.messageId, rating });
      persist();
    } catch (error) {
      update(id, () => ({ feedback: previous }));
      const described = noticeFor(error);
      tell(
        described.notice.kind === "rate_limited" ? described.notice : { kind: "feedback_failed" },
        described.code,
        described.message,
      );
    }
  }

  function dispose(): void {
    clearInterval(ticker);
    clearTimeout(recovering);
    controller?.abort();
  }

  return {
    config,
    configState,
    messages,
    notice,
    busy,
    retryIn,
    canSend,
    canRetry,
    draft,
    announcement,
    loadConfig,
    send,
    stop,
    retry,
    reset,
    rate,
    resend,
    handoff,
    dispose,
  };
}

// The notice for each error code the server sends; any other code is a rate limit (429) or a failure.
const noticeKinds: Record<string, Exclude<Notice["kind"], "rate_limited">> = {
  agent_processing: "processing",
  origin_not_allowed: "origin_refused",
  not_found: "not_found",
  upstream_error: "upstream",
  service_unavailable: "upstream",
  validation_error: "too_long",
  payload_too_large: "too_long",
};

function noticeForCode(code: string, status: number, retryAt: number): Notice {
  const kind = noticeKinds[code];
  if (kind) return { kind };
  return code === "rate_limited" || status === 429 ? { kind: "rate_limited", retryAt } : { kind: "server" };
}

/** A stored answer's outcome, when the server sent one. */
function outcomeOf(message: VisitorMessage): Pick<ChatMessage, "outcome"> {
  const { outcome } = message;
  return outcome ? { outcome } : {};
}

/** The answer as it would be read aloud: Markdown punctuation and [n] markers removed. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/```[^\n]*\n?/g, "")
    .replace(/\s*\[(\d+(?:\s*,\s*\d+)*)\]/g, "")
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*_`#>]+/g, "")
    .replace(/[ \t]+/g, " ")
    .trim();
}

/**
 * The server's copy of an interrupted answer: the message with its id once the stream had started,
 * else the answer to the same question after the answers the widget already holds.
 */
function storedAnswer(
  local: ChatMessage[],
  localId: string,
  stored: VisitorMessage[],
): VisitorMessage | undefined {
  const at = local.findIndex((m) => m.id === localId);
  const target = local[at];
  if (!target) return undefined;
  if (target.messageId) return stored.find((m) => m.id === target.messageId && m.role === "assistant");
  const question = local[at - 1];
  const known = new Set(local.map((m) => m.messageId));
  return stored.find(
    (m, i) =>
      m.role === "assistant" &&
      !known.has(m.id) &&
      stored[i - 1]?.role === "user" &&
      stored[i - 1]?.content === question?.content,
  );
}
