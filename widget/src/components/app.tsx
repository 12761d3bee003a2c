import { LauncherSync } from "./launcher.tsx";
import { Panel } from "./panel.tsx";

export function App({ launcher }: { launcher: HTMLButtonElement }) {
  const panelId = "lore-panel";
  return (
    <>
      <LauncherSync launcher={launcher} panelId={panelId} />
      <Panel id={panelId} />
    </>
  );
}
