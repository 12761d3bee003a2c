import { useEffect, useRef, useState } from "preact/hooks";
import type { ChatMessage } from "../state/types.ts";
import { Citations } from "./citations.tsx";
import { useWidget } from "./context.ts";
import { Icon } from "./icons.tsx";
import { FOLD_CHARS, LazyFeedbackReasons, LazyFold, LazyUncertainSources, LazyWayOut } from "./lazy.tsx";
import { Markdown } from "./markdown.tsx";

/** The conversation. Deliberately not a live region: answers are announced once, when complete. */
export function MessageList() {
  const { store, i18n } = useWidget();
  const messages = store.messages.value;
  if (messages.length === 0) return null;
  return (
    <ol class="messages" aria-label={i18n.t("conversation")} data-lore="messages">
      {messages.map((m) =>
        m.role === "user" ? <UserMessage key={m.id} message={m} /> : <AnswerMessage key={m.id} message={m} />,
      )}
    </ol>
  );
}

function UserMessage({ message }: { message: ChatMessage }) {
  const { i18n } = useWidget();
  return (
    <li class="msg user" data-lore="message" data-role="user" data-status={message.status}>
      <span class="sr-only">{i18n.t("you")}: </span>
      <div class="bubble" dir="auto">
        {message.content}
      </div>
      {message.status === "failed" && <p class="msg-status">{i18n.t("failed")}</p>}
    </li>
  );
}

function AnswerMessage({ message }: { message: ChatMessage }) {
  const { store, i18n } = useWidget();
  const [expanded, setExpanded] = useState<number[]>([]);
  const [copied, setCopied] = useState(false);
  const [askWhy, setAskWhy] = useState(false);
  const last = store.messages.value.at(-1)?.id === message.id;
  const focusRank = useRef<number | null>(null);
  const root = useRef<HTMLLIElement>(null);
  const idPrefix = `${message.id}-src-`;
  const working = message.status === "pending" || message.status === "streaming";

  useEffect(() => {
    const rank = focusRank.current;
    if (rank === null) return;
    focusRank.current = null;
    const card = root.current?.querySelector<HTMLElement>(`[data-lore="source"][data-rank="${rank}"]`);
    card?.querySelector("button")?.focus({ preventScroll: true });
    // The whole card, opened snippet included (its top first when it is taller than the panel).
    card?.scrollIntoView?.({ block: "nearest" });
  });

  const toggle = (rank: number) =>
    setExpanded((list) => (list.includes(rank) ? list.filter((r) => r !== rank) : [...list, rank]));
  const showSource = (rank: number) => {
    focusRank.current = rank;
    setExpanded((list) => (list.includes(rank) ? list : [...list, rank]));
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(message.content);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // Clipboard refused (permissions, insecure context): nothing was copied, so nothing is claimed.
    }
  };

  const markdown = (text: string) => (
    <Markdown
      text={text}
      sources={message.sources}
      expanded={expanded}
      // An uncertain answer lists articles instead of source cards: its [n] is plain text.
      onCite={message.outcome !== "uncertain" ? showSource : undefined}
      idPrefix={idPrefix}
      citeLabel={(n, s) => `${i18n.t("sourceMarker", { n })}: ${s.title}`}
    />
  );

  return (
    <li
      ref={root}
      class="msg assistant"
      data-lore="message"
      data-role="assistant"
      data-status={message.status}
      aria-busy={working}
    >
      <span class="sr-only">{i18n.t("assistant")}: </span>
      <div class="bubble" dir="auto">
        {message.content ? (
          // A long section answer folds (issue #50): the fold is in the extras chunk, whole until it arrives.
          message.content.length > FOLD_CHARS && !working ? (
            <LazyFold text={message.content} render={markdown} />
          ) : (
            markdown(message.content)
          )
        ) : (
          working && (
            <span class="typing" role="img" aria-label={i18n.t("thinking")} data-lore="typing">
              <span />
              <span />
              <span />
            </span>
          )
        )}
        {message.status === "stopped" && (
          <p class="msg-status">
            {i18n.t("stopped")}
            {last && (
              <>
                {" "}
                <button
                  type="button"
                  class="link-btn"
                  data-lore="retry-stopped"
                  onClick={() => store.resend(message.id)}
                >
                  {i18n.t("retry")}
                </button>
              </>
            )}
          </p>
        )}
        {message.status === "failed" && <p class="msg-status">{i18n.t("failed")}</p>}
      </div>
      {message.outcome === "uncertain" ? (
        <LazyUncertainSources sources={message.sources} answer={message.content} />
      ) : (
        message.sources.length > 0 && (
          <Citations
            sources={message.sources}
            answer={message.content}
            expanded={expanded}
            onToggle={toggle}
            idPrefix={idPrefix}
          />
        )
      )}
      {message.status === "complete" && (
        <div class="actions">
          <button type="button" class="icon-btn" data-lore="copy" aria-label={i18n.t("copy")} onClick={copy}>
            <Icon name={copied ? "check" : "copy"} />
          </button>
          {copied && (
            <span class="hint" role="status">
              {i18n.t("copied")}
            </span>
          )}
          {message.messageId && (
            <>
              <button
                type="button"
                class="icon-btn"
                data-lore="feedback-up"
                aria-label={i18n.t("helpful")}
                aria-pressed={message.feedback === "up"}
                onClick={() => store.rate(message.id, "up")}
              >
                <Icon name="up" />
              </button>
              <button
                type="button"
                class="icon-btn"
                data-lore="feedback-down"
                aria-label={i18n.t("notHelpful")}
                aria-pressed={message.feedback === "down"}
                onClick={() => {
                  setAskWhy(message.feedback !== "down");
                  void store.rate(message.id, "down");
                }}
              >
                <Icon name="down" />
              </button>
              {message.feedback && (
                <span class="hint" role="status">
                  {i18n.t("feedbackThanks")}
                </span>
              )}
            </>
          )}
        </div>
      )}
      {askWhy && message.feedback === "down" && (
        <LazyFeedbackReasons message={message} onDone={() => setAskWhy(false)} />
      )}
      {message.status === "complete" &&
        (message.outcome === "fallback" ||
          message.outcome === "uncertain" ||
          message.feedback === "down") && <LazyWayOut lang={message.lang} />}
    </li>
  );
}
