import { safeHref } from "../markdown.ts";
import { useWidget } from "./context.ts";
import { Icon } from "./icons.tsx";

/**
 * "Contact us" as the agent sets it: a link (a page or mailto:) or a button opening the form, as text
 * or as the header's icon; nothing when the agent offers no way out. The form works before any
 * question too: the request then starts the conversation.
 */
export function ContactAction({ icon, label }: { icon?: boolean; label?: string }) {
  const { store, i18n } = useWidget();
  const handoff = store.config.value?.handoff;
  label ??= i18n.t("contactUs");
  const look = icon
    ? {
        class: "icon-btn",
        "data-lore": "menu-contact",
        "aria-label": label,
        title: label,
        children: <Icon name="mail" />,
      }
    : { class: "contact", "data-lore": "contact", children: label };
  if (handoff?.mode === "link") {
    const href = safeHref(handoff.url ?? "");
    return href ? <a href={href} target="_blank" rel="noopener noreferrer" {...look} /> : null;
  }
  if (handoff?.mode !== "form") return null;
  return <button type="button" onClick={store.handoff.openContact} {...look} />;
}
