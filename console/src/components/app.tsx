import type { Agent } from "@lore/shared";
import { signal, useSignal, useSignalEffect } from "@preact/signals";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import {
  agent,
  agentError,
  agentStatus,
  agents,
  agentsError,
  go,
  loadAgents,
  loadHandoffSummary,
  loginNotice,
  openAgent,
  openRequests,
  parseRoute,
  requestsText,
  resume,
  resuming,
  route,
  routeHash,
  session,
  signIn,
  signOut,
  TABS,
  type Tab,
} from "../state.ts";
import { AnalyticsTab } from "./analytics.tsx";
import { ConversationsTab } from "./conversations.tsx";
import { CorrectionsTab } from "./corrections.tsx";
import { EmbedTab } from "./embed.tsx";
import { KeysTab } from "./keys.tsx";
import { InvitationScreen, InvitationWelcome, MembersScreen } from "./members.tsx";
import { ModelScreen } from "./model-provider.tsx";
import { SettingsTab } from "./settings.tsx";
import { SourcesTab } from "./sources.tsx";
import { TryTab } from "./try.tsx";
import { Badge, bindInput, ErrorBox, Field, FormError, inputValue, useFormState } from "./ui.tsx";

void resume();

/** True while the window is phone-narrow (the layout's single-column breakpoint). */
const narrowQuery = matchMedia("(max-width: 760px)");
const narrow = signal(narrowQuery.matches);
narrowQuery.addEventListener("change", () => {
  narrow.value = narrowQuery.matches;
});

export function App() {
  const signedIn = session.value !== null;
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/console/">
          <span class="brand-mark" aria-hidden="true">
            ✦
          </span>{" "}
          Lore console
        </a>
        {signedIn && <SessionBox />}
      </header>
      <main id="main" tabIndex={-1}>
        {resuming.value ? (
          <p class="loading">Loading…</p>
        ) : signedIn ? (
          <Console />
        ) : route.value.screen === "invitation" ? (
          <InvitationWelcome login={<Login />} />
        ) : (
          <Login />
        )}
      </main>
    </>
  );
}

/** This tab's logout request while it is on its way (resolved: none, or it ended). */
let loggingOut: Promise<void> = Promise.resolve();

function SessionBox() {
  const busy = useSignal(false);
  const logout = async () => {
    busy.value = true;
    // Every tab signs out first, so none meets a token the logout revoked (and says the session
    // "ended") before it hears of the logout. The next login starts from the first agent.
    location.hash = "";
    signOut("You are logged out.", true);
    // Revokes every token of the user and clears the session cookie (the request sends the cookie).
    // The session ends locally either way; a login in this tab waits for it (see Login).
    loggingOut = api("POST", "/auth/session/logout/", { body: {}, auth: false }).then(
      () => undefined,
      () => undefined,
    );
    await loggingOut;
  };
  const { screen } = route.value;
  const members = screen === "members";
  return (
    <div class="session">
      <a href="#/model" class="nav-link" aria-current={screen === "model" ? "page" : undefined}>
        Model
      </a>
      <a href="#/members" class="nav-link" aria-current={members ? "page" : undefined}>
        Members
      </a>
      <span class="who">{session.value?.user.email}</span>
      <button type="button" class="ghost" disabled={busy.value} onClick={logout}>
        Log out
      </button>
    </div>
  );
}

function Login() {
  const email = useSignal("");
  const password = useSignal("");
  const form = useFormState();
  const emailRef = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => emailRef.current?.focus(), []);
  const onSubmit = form.submit(async () => {
    // A logout still on its way would revoke the session this login opens (it revokes every token
    // of the user): the login goes after it.
    await loggingOut;
    signIn(
      await api("POST", "/auth/session/", {
        body: { email: email.value, password: password.value },
        auth: false,
      }),
    );
  });
  return (
    <form class="card login" aria-labelledby="login-title" noValidate ref={form.ref} onSubmit={onSubmit}>
      <h1 id="login-title">Log in to Lore</h1>
      {loginNotice.value && (
        <p class="info" role="status">
          {loginNotice.value}
        </p>
      )}
      <FormError error={form.error.value} />
      <Field label="Email" name="email" error={form.error.value}>
        {(p) => (
          <input {...p} ref={emailRef} type="email" autocomplete="username" required {...bindInput(email)} />
        )}
      </Field>
      <Field label="Password" name="password" error={form.error.value}>
        {(p) => (
          <input {...p} type="password" autocomplete="current-password" required {...bindInput(password)} />
        )}
      </Field>
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy.value}>
          Log in
        </button>
      </div>
    </form>
  );
}

function Console() {
  const checked = useSignal(false);
  const startError = useSignal<unknown>(null);
  useEffect(() => {
    void (async () => {
      try {
        await api("GET", "/auth/me/");
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return signOut("");
        startError.value = error;
        return;
      }
      await Promise.all([loadAgents(), loadHandoffSummary()]);
      checked.value = true;
    })();
    // Visitors' contact requests arrive at any time: the badges follow within a minute.
    const timer = setInterval(() => void loadHandoffSummary(), 30_000);
    return () => clearInterval(timer);
  }, []);
  // Open the agent the hash names, or the first one. Runs again on every route change, but reads the
  // route from the address: a link followed or a hash set while the console loaded (its hashchange
  // not yet heard) wins over the first agent.
  useSignalEffect(() => {
    if (!checked.value) return;
    void route.value;
    const { agentId, screen } = parseRoute(location.hash);
    const first = agents.peek()[0];
    if (screen !== "agent") return;
    if (!agentId && first) go(first.id);
    else if (agentId && agent.peek()?.id !== agentId) void openAgent(agentId);
  });
  if (startError.value) return <ErrorBox error={startError.value} />;
  if (!checked.value) return <p class="loading">Loading…</p>;
  const { screen } = route.value;
  if (screen === "members") return <MembersScreen />;
  if (screen === "invitation") return <InvitationScreen />;
  if (screen === "model") return <ModelScreen />;
  return (
    <div class="layout">
      {narrow.value ? <AgentPicker /> : <Sidebar />}
      <section class="detail">
        <Detail />
      </section>
    </div>
  );
}

/** The phone layout's agent picker: one compact row above the agent instead of the agents list. */
function AgentPicker() {
  const current = route.value.agentId ?? "";
  return (
    <nav class="agent-picker" aria-label="Agents">
      <label for="agent-picker">Agent</label>
      <select
        id="agent-picker"
        value={current}
        onChange={(e) => {
          const id = inputValue(e);
          if (id) go(id);
        }}
      >
        {!current && <option value="">Choose an agent</option>}
        {agents.value.map((a) => {
          const n = openRequests(a.id);
          return (
            <option key={a.id} value={a.id}>
              {n > 0 ? `${a.name} (${requestsText(n)})` : a.name}
            </option>
          );
        })}
      </select>
      <details class="agent-picker-new">
        <summary>New agent</summary>
        <CreateAgent />
      </details>
      {agentsError.value ? <ErrorBox error={agentsError.value} /> : null}
    </nav>
  );
}

function Sidebar() {
  const current = route.value.agentId;
  return (
    <aside class="sidebar">
      <h2>Agents</h2>
      {agentsError.value ? <ErrorBox error={agentsError.value} /> : null}
      <ul class="agent-list" aria-label="Agents">
        {agents.value.length === 0 && <li class="empty">No agents yet. Create one below.</li>}
        {agents.value.map((a) => (
          <li key={a.id}>
            <a
              href={routeHash(a.id)}
              class="agent-link"
              data-agent-id={a.id}
              aria-current={a.id === current ? "page" : undefined}
            >
              <span class="agent-name">{a.name}</span>
              <RequestsBadge agentId={a.id} />
              <Badge status={agentStatus(a)} />
            </a>
          </li>
        ))}
      </ul>
      <CreateAgent />
    </aside>
  );
}

/** The count of an agent's open contact requests, when there are any: a visitor is waiting. */
function RequestsBadge(props: { agentId: string }) {
  const n = openRequests(props.agentId);
  if (n === 0) return null;
  return (
    <span class="count-badge" data-testid="requests-badge" title={requestsText(n)}>
      {n}
      <span class="sr-only"> {n === 1 ? "open contact request" : "open contact requests"}</span>
    </span>
  );
}

function CreateAgent() {
  const name = useSignal("");
  const form = useFormState();
  const onSubmit = form.submit(async () => {
    const created = await api<Agent>("POST", "/agents/", { body: { name: name.value } });
    name.value = "";
    await loadAgents();
    go(created.id, "sources");
  });
  return (
    <form
      class="create-agent"
      aria-labelledby="create-agent-title"
      noValidate
      ref={form.ref}
      onSubmit={onSubmit}
    >
      <h2 id="create-agent-title">New agent</h2>
      <FormError error={form.error.value} />
      <Field label="Agent name" name="name" error={form.error.value}>
        {(p) => (
          <input {...p} required maxLength={200} placeholder="e.g. Docs assistant" {...bindInput(name)} />
        )}
      </Field>
      <button type="submit" class="primary" disabled={form.busy.value}>
        Create agent
      </button>
    </form>
  );
}

function Detail() {
  const { agentId, tab } = route.value;
  if (!agentId) {
    return (
      <div class="card welcome">
        <h1>Welcome to Lore</h1>
        <p>
          Create an agent, give it some knowledge (files, a website or text), try a question, then paste one
          script tag into your site.
        </p>
      </div>
    );
  }
  if (agentError.value) return <ErrorBox error={agentError.value} />;
  const a = agent.value;
  if (!a || a.id !== agentId) return <p class="loading">Loading…</p>;
  return (
    <>
      <div class="detail-head">
        <h1 id="agent-title" tabIndex={-1}>
          {a.name}
        </h1>
        <Badge status={agentStatus(a)} />
        <p class="muted">
          Widget id <code>{a.widgetId}</code>
        </p>
      </div>
      <Tabs agentId={a.id} tab={tab} />
      <div role="tabpanel" class="tabpanel" id="agent-tabpanel" aria-labelledby={`tab-${tab}`}>
        <TabBody key={`${a.id}/${tab}`} agent={a} tab={tab} />
      </div>
    </>
  );
}

function TabBody(props: { agent: Agent; tab: Tab }) {
  const { agent: a } = props;
  switch (props.tab) {
    case "settings":
      return <SettingsTab agent={a} />;
    case "sources":
      return <SourcesTab agent={a} />;
    case "try":
      return <TryTab agent={a} />;
    case "conversations":
      return <ConversationsTab agent={a} />;
    case "corrections":
      return <CorrectionsTab agent={a} />;
    case "embed":
      return <EmbedTab agent={a} />;
    case "keys":
      return <KeysTab agent={a} />;
    case "analytics":
      return <AnalyticsTab agent={a} />;
    default:
      return props.tab satisfies never;
  }
}

/** The ARIA tabs pattern: arrow keys, Home and End move between tabs; the active tab stays in view. */
function Tabs(props: { agentId: string; tab: Tab }) {
  const list = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // On a phone the tab strip scrolls sideways; keep the active tab visible.
    const active = list.current?.querySelector<HTMLElement>('[aria-selected="true"]');
    active?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }, [props.tab]);
  const onKeyDown = (event: KeyboardEvent) => {
    const index = TABS.findIndex(([id]) => id === props.tab);
    const last = TABS.length - 1;
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: last }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = TABS[(next + TABS.length) % TABS.length];
    if (!target) return;
    go(props.agentId, target[0]);
    requestAnimationFrame(() => document.getElementById(`tab-${target[0]}`)?.focus());
  };
  return (
    <div role="tablist" aria-label="Agent sections" class="tabs" ref={list} onKeyDown={onKeyDown}>
      {TABS.map(([id, label]) => (
        <button
          key={id}
          type="button"
          role="tab"
          id={`tab-${id}`}
          aria-selected={id === props.tab ? "true" : "false"}
          aria-controls="agent-tabpanel"
          tabIndex={id === props.tab ? 0 : -1}
          data-tab={id}
          onClick={() => go(props.agentId, id)}
        >
          {label}
          {id === "conversations" && <RequestsBadge agentId={props.agentId} />}
        </button>
      ))}
    </div>
  );
}
