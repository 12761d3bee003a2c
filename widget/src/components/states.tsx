import { useMemo } from "preact/hooks";
import type { Notice } from "../state/types.ts";
import { type MessageKey, waitText } from "../translate.ts";
import { useWidget } from "./context.ts";
import { Markdown } from "./markdown.tsx";

const noticeText = {
  rate_limited: "rateLimited",
  processing: "processing",
  origin_refused: "originRefused",
  not_found: "notFound",
  offline: "offline",
  unreachable: "unreachable",
  upstream: "upstream",
  server: "server",
  interrupted: "interrupted",
  too_long: "tooLong",
  feedback_failed: "feedbackFailed",
} as const satisfies Record<Notice["kind"], MessageKey>;

/** Whatever stopped the conversation, said plainly, with a retry where one can help. */
export function NoticeBanner() {
  const { store, i18n } = useWidget();
  const notice = store.notice.value;
  const retryIn = store.retryIn.value;
  const retryAt = notice?.kind === "rate_limited" ? notice.retryAt : 0;
  // Screen readers hear the wait once; the ticking number is for the eyes only.
  const spokenWait = useMemo(() => retryIn, [retryAt]);
  if (!notice) return null;
  const key = noticeText[notice.kind];
  return (
    <div class="notice" role="alert" data-lore="notice" data-kind={notice.kind}>
      {notice.kind === "rate_limited" ? (
        <p>
          <span class="sr-only">{waitText(i18n, spokenWait)}</span>
          <span aria-hidden="true" data-lore="countdown">
            {waitText(i18n, retryIn)}
          </span>
        </p>
      ) : (
        <p>{i18n.t(key)}</p>
      )}
      {store.canRetry.value && (
        <button type="button" class="retry" data-lore="retry" onClick={() => store.retry()}>
          {i18n.t("retry")}
        </button>
      )}
    </div>
  );
}

/** The agent's welcome and, until the first question, its suggested questions. */
export function Welcome() {
  const { store, i18n } = useWidget();
  const config = store.config.value;
  if (!config) {
    return store.configState.value === "loading" ? (
      <p class="loading" data-lore="loading">
        {i18n.t("loading")}
      </p>
    ) : null;
  }
  const fresh = store.messages.value.length === 0;
  return (
    <>
      {config.welcomeMessage && (
        <div class="msg assistant welcome" data-lore="welcome">
          <div class="bubble">
            <Markdown text={config.welcomeMessage} sources={[]} />
          </div>
        </div>
      )}
      {config.status === "processing" && (
        <p class="info" data-lore="processing-info">
          {i18n.t("processing")}
        </p>
      )}
      {fresh && config.suggestedQuestions.length > 0 && (
        <ul class="suggestions" aria-label={i18n.t("suggestions")} data-lore="suggestions">
          {config.suggestedQuestions.map((question) => (
            <li key={question}>
              <button
                type="button"
                data-lore="suggestion"
                disabled={!store.canSend.value}
                onClick={() => store.send(question)}
              >
                {question}
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
