import { safeHref } from "../markdown.ts";
import { useWidget } from "./context.ts";
import { Icon } from "./icons.tsx";

/**
 * The header's "Contact us", whenever the agent offers a way out: a link (a page or mailto:) or the
 * form, once there is a conversation to attach the request to.
 */
export function ContactButton() {
  const { store, i18n } = useWidget();
  const handoff = store.config.value?.handoff;
  const label = i18n.t("contactUs");
  if (handoff?.mode === "link") {
    const href = safeHref(handoff.url ?? "");
    return (
      href && (
        <a
          class="icon-btn"
          href={href}
          target="_blank"
          rel="noopener noreferrer"
          data-lore="menu-contact"
          aria-label={label}
          title={label}
        >
          <Icon name="mail" />
        </a>
      )
    );
  }
  if (handoff?.mode !== "form" || !store.messages.value.some((m) => m.messageId)) return null;
  return (
    <button
      type="button"
      class="icon-btn"
      data-lore="menu-contact"
      aria-label={label}
      title={label}
      onClick={store.handoff.openContact}
    >
      <Icon name="mail" />
    </button>
  );
}
