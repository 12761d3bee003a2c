// The console's state as signals: the session, the agents, and the route read from the hash
// (#/agents/{agentId}/{tab}/{item}, #/members, #/model, #/invitations/{invitationId}). Components read these; the functions here do the I/O.
import type { Agent, HandoffSummary } from "@lore/shared";
import { computed, signal } from "@preact/signals";
import {
  api,
  listAll,
  messageOf,
  refreshSession,
  type Session,
  saveSession,
  setSignedOutHandler,
} from "./api.ts";

export const TABS = [
  ["settings", "Settings"],
  ["sources", "Sources"],
  ["try", "Try it"],
  ["conversations", "Conversations"],
  ["corrections", "Corrections"],
  ["embed", "Embed"],
  ["keys", "API keys"],
  ["analytics", "Analytics"],
] as const;
export type Tab = (typeof TABS)[number][0];

export interface Route {
  /** The workspace's members, an invitation to accept, or an agent (the default). */
  screen: "agent" | "members" | "invitation" | "model";
  agentId: string | null;
  tab: Tab;
  /** The item inside the tab: a conversation id under "conversations"; the invitation's id. */
  item: string | null;
}

export function parseRoute(hash: string): Route {
  if (/^#\/members\/?$/.test(hash)) return { screen: "members", agentId: null, tab: "settings", item: null };
  if (/^#\/model\/?$/.test(hash)) return { screen: "model", agentId: null, tab: "settings", item: null };
  const invitation = /^#\/invitations\/([\w-]+)/.exec(hash)?.[1];
  if (invitation) return { screen: "invitation", agentId: null, tab: "settings", item: invitation };
  const match = /^#\/agents\/([\w-]+)(?:\/(\w+))?(?:\/([\w-]+))?/.exec(hash);
  const tab = TABS.find(([id]) => id === match?.[2])?.[0] ?? "settings";
  return { screen: "agent", agentId: match?.[1] ?? null, tab, item: match?.[3] ?? null };
}

export function routeHash(agentId: string, tab: Tab = "settings", item?: string): string {
  return `#/agents/${agentId}/${tab}${item ? `/${item}` : ""}`;
}

export const session = signal<Session | null>(null);
/** True until the session cookie was tried on load: the console shows "Loading…", not the login form. */
export const resuming = signal(true);
/** Shown above the login form ("You are logged out."). */
export const loginNotice = signal("");
export const route = signal<Route>(parseRoute(location.hash));
export const agents = signal<Agent[]>([]);
export const agentsError = signal<unknown>(null);
/** The open agent, fresh from the API. */
export const agent = signal<Agent | null>(null);
export const agentError = signal<unknown>(null);

/** The status the console shows: an agent without sources has nothing to be ready with. */
export function agentStatus(a: Agent): string {
  return a.dataSourceIds.length === 0 ? "empty" : a.status;
}

export const currentTab = computed(() => route.value.tab);

addEventListener("hashchange", () => {
  route.value = parseRoute(location.hash);
});

// A request refused after this tab already signed out (a logout elsewhere) keeps the notice it has.
setSignedOutHandler(() => {
  if (session.peek()) signOut("Your session ended. Please log in again.");
});

// The tabs of this browser tell each other when the session starts or ends (no token is sent:
// the other tabs fetch their own from the session cookie).
const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel("lore.console") : null;
if (tabs) {
  tabs.onmessage = (event) => {
    if (event.data === "out" && session.peek()) signOut("You logged out in another tab.");
    if (event.data === "in" && !session.peek()) void resume();
  };
}

// A hint, not a credential: "this browser has signed in", so a first visit does not ask for a
// session it cannot have (a 401 the browser would log as an error). Tokens never go to web storage.
const HINT = "lore.console.signedIn";
const hint = (on: boolean) => {
  try {
    if (on) localStorage.setItem(HINT, "1");
    else localStorage.removeItem(HINT);
  } catch {
    // Storage disabled: the session still works in this tab.
  }
};

/** Picks up the browser's session (the HttpOnly cookie), if there is one: on load and when another tab logs in. */
export async function resume(): Promise<void> {
  let hinted = true;
  try {
    hinted = localStorage.getItem(HINT) !== null;
  } catch {
    // Storage disabled: ask the server.
  }
  if (!hinted) {
    resuming.value = false;
    return;
  }
  try {
    const found = await refreshSession();
    if (found) signIn(found, false);
    else hint(false);
  } catch (error) {
    loginNotice.value = `Could not check your session: ${messageOf(error)}`;
  } finally {
    resuming.value = false;
  }
}

export function signIn(next: Session, announce = true): void {
  saveSession(next);
  loginNotice.value = "";
  session.value = next;
  hint(true);
  if (announce) tabs?.postMessage("in");
}

/** Ends the session in this tab; `announce` tells the other tabs (a logout, not an expiry). */
export function signOut(notice: string, announce = false): void {
  if (announce) tabs?.postMessage("out");
  hint(false);
  saveSession(null);
  loginNotice.value = notice;
  session.value = null;
  agents.value = [];
  agent.value = null;
}

export function go(agentId: string, tab: Tab = "settings", item?: string): void {
  const hash = routeHash(agentId, tab, item);
  if (location.hash !== hash) location.hash = hash;
  route.value = parseRoute(hash);
}

export async function loadAgents(): Promise<void> {
  try {
    agents.value = await listAll<Agent>("/agents/");
    agentsError.value = null;
  } catch (error) {
    agentsError.value = error;
  }
}

/** Open contact requests by agent (the badges), and whether owners also get them by e-mail. */
export const handoffSummary = signal<HandoffSummary | null>(null);

/** The open contact requests of one agent, as its badges count them. */
export function openRequests(agentId: string): number {
  return handoffSummary.value?.open.find((o) => o.agentId === agentId)?.count ?? 0;
}

/** "1 open contact request" / "3 open contact requests". */
export function requestsText(n: number): string {
  return `${n} open contact request${n === 1 ? "" : "s"}`;
}

/** Reloads the badges' counts; a failure keeps the last ones (the next poll tries again). */
export async function loadHandoffSummary(): Promise<void> {
  try {
    handoffSummary.value = await api<HandoffSummary>("GET", "/handoffs/summary/");
  } catch {
    // Shown again on the next poll.
  }
}

export async function openAgent(agentId: string): Promise<void> {
  try {
    const fresh = await api<Agent>("GET", `/agents/${agentId}/`);
    agentError.value = null;
    agentChanged(fresh);
  } catch (error) {
    agent.value = null;
    agentError.value = error;
  }
}

/** Updates the agent everywhere it shows after a change. */
export function agentChanged(next: Agent): void {
  agent.value = next;
  agents.value = agents.value.some((a) => a.id === next.id)
    ? agents.value.map((a) => (a.id === next.id ? next : a))
    : [...agents.value, next];
}

/** Saves a change to the open agent and shows the result everywhere. */
export async function patchAgent(agentId: string, body: Record<string, unknown>): Promise<Agent> {
  const saved = await api<Agent>("PATCH", `/agents/${agentId}/`, { body });
  agentChanged(saved);
  return saved;
}
