import { useWidget } from "./context.ts";
import { LauncherSync } from "./launcher.tsx";
import { LazyGreeting } from "./lazy.tsx";
import { Panel } from "./panel.tsx";

export function App({ launcher, widgetId }: { launcher: HTMLButtonElement; widgetId: string }) {
  const { store } = useWidget();
  const panelId = "lore-panel";
  return (
    <>
      <LauncherSync launcher={launcher} panelId={panelId} />
      <Panel id={panelId} />
      {/* The greeting and its styles are in the extras chunk: only pages with one load it. */}
      {store.config.value?.theme.greeting && <LazyGreeting launcher={launcher} widgetId={widgetId} />}
    </>
  );
}
