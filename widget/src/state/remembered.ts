// Small facts about a widget kept between page views: the agent's name (so the header still names
// the assistant when the server can't be reached) and whether this visit's greeting is done.

const nameKey = (widgetId: string) => `lore:name:${widgetId}`;
const greetedKey = (widgetId: string) => `lore:greeted:${widgetId}`;

/** Reads or writes a storage entry; blocked storage (sandboxed frames, privacy modes) keeps nothing. */
function attempt<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/** The header title the last successful config gave, or "". */
export function lastTitle(storage: Storage | null, widgetId: string): string {
  return attempt(() => storage?.getItem(nameKey(widgetId)) ?? "", "");
}

export function rememberTitle(storage: Storage | null, widgetId: string, title: string): void {
  attempt(() => storage?.setItem(nameKey(widgetId), title), undefined);
}

/** sessionStorage: the greeting shows once per visit (browser tab session). */
function session(): Storage | null {
  return attempt(() => globalThis.sessionStorage ?? null, null);
}

export function greeted(widgetId: string): boolean {
  return attempt(() => session()?.getItem(greetedKey(widgetId)) === "1", false);
}

export function markGreeted(widgetId: string): void {
  attempt(() => session()?.setItem(greetedKey(widgetId), "1"), undefined);
}
