import { MAX_MESSAGE_LENGTH } from "@lore/shared/limits";
import type { Ref } from "preact";
import { useWidget } from "./context.ts";
import { Icon } from "./icons.tsx";

/** The question box. One button that is Send or Stop, so focus survives the switch. */
export function Composer({ inputRef, inputId }: { inputRef: Ref<HTMLTextAreaElement>; inputId: string }) {
  const { store, i18n } = useWidget();
  const draft = store.draft.value;
  const busy = store.busy.value;
  const blocked = store.notice.value?.kind === "origin_refused" || store.notice.value?.kind === "not_found";
  const submit = () => {
    if (!store.canSend.value || !draft.trim()) return;
    store.draft.value = "";
    void store.send(draft);
  };
  return (
    <form
      class="composer"
      data-lore="composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label class="sr-only" for={inputId}>
        {i18n.t("inputLabel")}
      </label>
      <textarea
        id={inputId}
        ref={inputRef}
        data-lore="input"
        dir="auto"
        rows={Math.min(5, draft.split("\n").length)}
        maxLength={MAX_MESSAGE_LENGTH}
        placeholder={i18n.t("placeholder")}
        value={draft}
        disabled={blocked}
        onInput={(event) => {
          store.draft.value = event.currentTarget.value;
        }}
        onKeyDown={(event) => {
          // Enter sends, Shift+Enter is a new line; never while an IME is composing.
          if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            submit();
          }
        }}
      />
      <button
        type={busy ? "button" : "submit"}
        class={busy ? "send stop" : "send"}
        data-lore={busy ? "stop" : "send"}
        aria-label={busy ? i18n.t("stop") : i18n.t("send")}
        // aria-disabled keeps the button focusable when Stop turns back into Send.
        aria-disabled={!busy && (!store.canSend.value || !draft.trim())}
        onClick={(event) => {
          if (!busy) return;
          event.preventDefault();
          store.stop();
        }}
      >
        <Icon name={busy ? "stop" : "send"} />
      </button>
    </form>
  );
}
