import { useSignalEffect } from "@preact/signals";
import { useWidget } from "./context.ts";

/**
 * The launcher button itself belongs to the loader (it exists before this bundle loads and must not
 * be replaced under the visitor's pointer); this keeps its state and label in step with the panel.
 */
export function LauncherSync({ launcher, panelId }: { launcher: HTMLButtonElement; panelId: string }) {
  const { ui, i18n } = useWidget();
  useSignalEffect(() => {
    const open = ui.open.value;
    const title = ui.title.value;
    launcher.setAttribute("aria-expanded", String(open));
    // The loader drew the chat icon; a cross while the panel is open.
    launcher.querySelector("path")?.setAttribute("d", open ? "M6 6l12 12M18 6L6 18" : "M4 5h16v11H9l-5 4z");
    launcher.setAttribute("aria-controls", panelId);
    // A visible launcher label is the closed button's name (label in name, WCAG 2.5.3).
    const label = launcher.textContent?.trim();
    launcher.setAttribute(
      "aria-label",
      open ? i18n.t("closeChat") : label || (title ? `${i18n.t("openChat")}: ${title}` : i18n.t("openChat")),
    );
  });
  return null;
}
