import type { FeedbackReason } from "@lore/shared";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { ChatMessage } from "../state/types.ts";
import { useWidget } from "./context.ts";
// Its English strings come with this chunk.
import "./extras-en.ts";

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
  useLayoutEffect(() => first.current?.focus(), []);
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
          rows={3}
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
