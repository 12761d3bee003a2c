import type { Citation, FeedbackReason } from "@lore/shared";
import { useEffect, useRef, useState } from "preact/hooks";
import { safeHref, safeHttpUrl } from "../markdown.ts";
import type { ChatMessage } from "../state/types.ts";
import { useWidget } from "./context.ts";

/**
 * "Contact us" as the agent sets it: a link (a page or mailto:) or a button opening the form;
 * nothing when the agent offers no way out, or the form before there is a conversation to attach it to.
 */
export function ContactAction({ onOpen }: { onOpen?: () => void }) {
  const { store, i18n } = useWidget();
  const handoff = store.config.value?.handoff;
  const label = i18n.t("contactUs");
  if (handoff?.mode === "link") {
    const href = safeHref(handoff.url ?? "");
    return href ? (
      <a
        class="contact"
        href={href}
        target="_blank"
        rel="noopener noreferrer"
        data-lore="contact"
        onClick={onOpen}
      >
        {label}
      </a>
    ) : null;
  }
  if (handoff?.mode !== "form" || !store.messages.value.some((m) => m.messageId)) return null;
  return (
    <button
      type="button"
      class="contact"
      data-lore="contact"
      onClick={() => {
        store.handoff.openContact();
        onOpen?.();
      }}
    >
      {label}
    </button>
  );
}

/** The way out under an answer that didn't help: "Contact us", as the agent offers it. */
export function WayOut() {
  const { store } = useWidget();
  const mode = store.config.value?.handoff?.mode;
  if (!mode || mode === "none") return null;
  return (
    <p class="way-out" data-lore="way-out">
      <ContactAction />
    </p>
  );
}

/** An uncertain answer's articles, as plain links to read. */
export function UncertainSources({ sources }: { sources: readonly Citation[] }) {
  const { i18n } = useWidget();
  const seen = new Set<string>();
  const distinct = sources.filter((s) => {
    const key = s.title || s.sourceUrl;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return (
    <div class="uncertain" data-lore="uncertain">
      <p class="uncertain-note">{i18n.t("uncertain")}</p>
      {distinct.length > 0 && (
        <ul>
          {distinct.map((s) => {
            const href = safeHttpUrl(s.sourceUrl);
            const title = s.title || s.dataSourceName;
            return (
              <li key={s.rank}>
                {href ? (
                  <a
                    href={href}
                    target="_blank"
                    rel="noopener noreferrer nofollow"
                    data-lore="uncertain-link"
                  >
                    {title}
                  </a>
                ) : (
                  title
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

const reasons = ["wrong", "unanswered", "outdated", "other"] as const satisfies readonly FeedbackReason[];
const reasonText = {
  wrong: "reasonWrong",
  unanswered: "reasonUnanswered",
  outdated: "reasonOutdated",
  other: "reasonOther",
} as const;

/** After a thumbs-down: what was wrong (a choice and free text), sent with the rating. */
export function FeedbackReasons({ message, onDone }: { message: ChatMessage; onDone: () => void }) {
  const { store, i18n } = useWidget();
  const [reason, setReason] = useState<FeedbackReason | null>(null);
  const [comment, setComment] = useState("");
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const name = `${message.id}-why`;
  return (
    <form
      class="reasons"
      data-lore="reasons"
      onSubmit={(event) => {
        event.preventDefault();
        const text = comment.trim();
        void store.rate(message.id, "down", {
          ...(reason ? { reason } : {}),
          ...(text ? { comment: text } : {}),
        });
        onDone();
      }}
    >
      <fieldset>
        <legend>{i18n.t("whatWrong")}</legend>
        {reasons.map((r, i) => (
          <label key={r}>
            <input
              ref={i === 0 ? first : undefined}
              type="radio"
              name={name}
              value={r}
              checked={reason === r}
              data-lore={`reason-${r}`}
              onChange={() => setReason(r)}
            />
            {i18n.t(reasonText[r])}
          </label>
        ))}
      </fieldset>
      <label class="field">
        {i18n.t("message")}
        <textarea
          rows={2}
          maxLength={2000}
          value={comment}
          data-lore="reason-comment"
          onInput={(event) => setComment(event.currentTarget.value)}
        />
      </label>
      <button type="submit" class="retry" data-lore="reason-send">
        {i18n.t("send")}
      </button>
    </form>
  );
}
