import { useSignal, useSignalEffect } from "@preact/signals";
import { greeted, markGreeted } from "../state/remembered.ts";
import { useWidget } from "./context.ts";

/**
 * The owner's greeting beside the closed launcher, once per visit: a click on it opens the chat,
 * its × dismisses it; opening the chat any other way ends it too.
 */
export function Greeting({ launcher, widgetId }: { launcher: HTMLButtonElement; widgetId: string }) {
  const { store, ui, i18n } = useWidget();
  const done = useSignal(greeted(widgetId));
  useSignalEffect(() => {
    if (ui.open.value && !done.peek()) {
      done.value = true;
      markGreeted(widgetId);
    }
  });
  const text = store.config.value?.theme.greeting;
  if (!text || done.value || ui.open.value) return null;
  const dismiss = () => {
    done.value = true;
    markGreeted(widgetId);
  };
  return (
    <div class="greeting" data-lore="greeting" dir={i18n.dir} lang={i18n.lang}>
      <button type="button" class="greeting-text" dir="auto" onClick={() => launcher.click()}>
        {text}
      </button>
      <button
        type="button"
        class="greeting-close"
        data-lore="greeting-close"
        aria-label={i18n.t("close")}
        onClick={dismiss}
      >
        ×
      </button>
    </div>
  );
}
