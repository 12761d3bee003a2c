// The sites that show this agent's widget: each allowed origin with its last widget load, the sites
// the widget was refused on (each allowed in one click), and a field to allow another site.
import type { Agent, WidgetOrigins } from "@lore/shared";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api } from "../api.ts";
import { agentChanged } from "../state.ts";
import { ErrorBox, Field, FormError, Status, TimeAgo, useFormState } from "./ui.tsx";

/** How often the open tab looks for new refusals and loads. */
const REFRESH_MS = 5_000;

export function SiteOrigins(props: { agent: Agent }) {
  const { agent } = props;
  const origins = useSignal<WidgetOrigins | null>(null);
  const loadError = useSignal<unknown>(null);
  const status = useSignal("");
  const form = useFormState();

  const load = async () => {
    try {
      origins.value = await api<WidgetOrigins>("GET", `/agents/${agent.id}/widget-origins/`);
      loadError.value = null;
    } catch (error) {
      loadError.value = error;
    }
  };
  // Reloaded when the agent or its origins change (and every few seconds while the tab is open).
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [agent.id, agent.allowedOrigins.join(" ")]);

  const allow = async (origin: string) => {
    const next = await api<Agent>("POST", `/agents/${agent.id}/widget-origins/allow/`, { body: { origin } });
    agentChanged(next);
    status.value = `Allowed ${next.allowedOrigins.at(-1) ?? origin}. Reload that page to see the widget.`;
    await load();
  };
  const dismiss = async (origin: string) => {
    await api("POST", `/agents/${agent.id}/widget-origins/dismiss/`, { body: { origin } });
    status.value = `Dismissed ${origin}.`;
    await load();
  };
  const action = (work: () => Promise<void>) => () =>
    work().catch((error) => {
      loadError.value = error;
    });

  const onSubmit = form.submit(async () => {
    const input = form.ref.current?.elements.namedItem("origin") as HTMLInputElement | null;
    if (!input) return;
    await allow(input.value);
    input.value = "";
  });

  const refused = origins.value?.refused ?? [];
  const seen = new Map(origins.value?.allowed.map((a) => [a.origin, a.lastSeenAt]) ?? []);
  return (
    <section class="site-origins" aria-labelledby="site-origins-title">
      <h3 id="site-origins-title">Sites that may show the widget</h3>
      {refused.length > 0 && (
        <div class="refused" data-testid="refused-origins">
          <p class="warning">
            The widget was refused on {refused.length === 1 ? "this site" : "these sites"}: it is not an
            allowed origin yet.
          </p>
          <ul class="origin-list" aria-label="Refused sites">
            {refused.map((r) => (
              <li key={r.origin} class="origin-row">
                <code>{r.origin}</code>
                <span class="muted">
                  refused <TimeAgo iso={r.lastSeenAt} /> · {r.count} {r.count === 1 ? "request" : "requests"}
                </span>
                <span class="row-actions">
                  <button
                    type="button"
                    class="small primary"
                    aria-label={`Allow ${r.origin}`}
                    onClick={action(() => allow(r.origin))}
                  >
                    Allow
                  </button>
                  <button
                    type="button"
                    class="small"
                    aria-label={`Dismiss ${r.origin}`}
                    onClick={action(() => dismiss(r.origin))}
                  >
                    Dismiss
                  </button>
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {agent.allowedOrigins.length > 0 ? (
        <ul class="origin-list" aria-label="Allowed sites" data-testid="allowed-origins">
          {agent.allowedOrigins.map((origin) => {
            const at = seen.get(origin);
            return (
              <li key={origin} class="origin-row">
                <code>{origin}</code>
                <span class="muted">Last seen on this site: {at ? <TimeAgo iso={at} /> : "not yet"}</span>
              </li>
            );
          })}
        </ul>
      ) : (
        <p class="warning">
          No site may show the widget yet: add your site below (a preview on the demo page works without it).
        </p>
      )}
      <form class="inline-form" aria-label="Allow a site" noValidate ref={form.ref} onSubmit={onSubmit}>
        <FormError error={form.error.value} />
        <Field
          label="Site address"
          name="origin"
          error={form.error.value}
          hint="Like https://www.example.com or example.com (https is assumed; http for localhost and 127.0.0.1:8080). No path."
        >
          {(p) => <input {...p} spellcheck={false} autoComplete="url" placeholder="www.example.com" />}
        </Field>
        <div class="actions">
          <button type="submit" class="primary" disabled={form.busy.value}>
            Allow site
          </button>
        </div>
      </form>
      <Status>{status.value}</Status>
      {loadError.value ? <ErrorBox error={loadError.value} /> : null}
    </section>
  );
}
