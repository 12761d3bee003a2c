import { Greeting } from "./greeting.tsx";
import { LauncherSync } from "./launcher.tsx";
import { Panel } from "./panel.tsx";

export function App({ launcher, widgetId }: { launcher: HTMLButtonElement; widgetId: string }) {
  const panelId = "lore-panel";
  return (
    <>
      <LauncherSync launcher={launcher} panelId={panelId} />
      <Panel id={panelId} />
      <Greeting launcher={launcher} widgetId={widgetId} />
    </>
  );
}
