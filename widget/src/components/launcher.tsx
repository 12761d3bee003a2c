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
    launcher.setAttribute("aria-controls", panelId);
    launcher.setAttribute(
      "aria-label",
      open ? i18n.t("closeChat") : title ? `${i18n.t("openChat")}: ${title}` : i18n.t("openChat"),
    );
  });
  return null;
}
