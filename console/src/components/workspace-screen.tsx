// A screen about one of the signed-in user's workspaces (#/members, #/model): loads who they are
// and, when they belong to several workspaces, offers a picker beside the title.
import type { Me, Workspace } from "@lore/shared";
import { useSignal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorBox, inputValue } from "./ui.tsx";

export function WorkspaceScreen(props: {
  title: string;
  /** The screen's body for the picked workspace (undefined while none is picked). */
  children: (me: Me, workspace: Workspace | undefined) => ComponentChildren;
}) {
  const me = useSignal<Me | null>(null);
  const workspaceId = useSignal("");
  const error = useSignal<unknown>(null);
  useEffect(() => {
    api<Me>("GET", "/auth/me/").then(
      (found) => {
        me.value = found;
        workspaceId.value = found.workspaces[0]?.id ?? "";
      },
      (e) => {
        error.value = e;
      },
    );
  }, []);
  if (error.value) return <ErrorBox error={error.value} />;
  if (!me.value) return <p class="loading">Loading…</p>;
  const workspace = me.value.workspaces.find((w) => w.id === workspaceId.value);
  return (
    <div class="members">
      <div class="detail-head">
        <h1>{props.title}</h1>
        {me.value.workspaces.length > 1 && (
          <div class="field inline">
            <label for="workspace-picker">Workspace</label>
            <select
              id="workspace-picker"
              value={workspaceId.value}
              onChange={(e) => {
                workspaceId.value = inputValue(e);
              }}
            >
              {me.value.workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      {props.children(me.value, workspace)}
    </div>
  );
}
