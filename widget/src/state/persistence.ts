import type { ChatMessage } from "./types.ts";

/** What survives a page load: the conversation and the visitor token that continues it. */
export interface SavedConversation {
  conversationId: string | null;
  visitorToken: string | null;
  messages: ChatMessage[];
}

/** A saved conversation as loaded: `interrupted` is the answer that was streaming when the page went away. */
export interface LoadedConversation extends SavedConversation {
  interrupted: string | null;
}

interface Envelope extends SavedConversation {
  v: 1;
  savedAt: number;
}

export const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;

export function storageKey(server: string, widgetId: string): string {
  return `lore:v1:${server}|${widgetId}`;
}

/** localStorage, or null where it is blocked (sandboxed iframes, some privacy modes). */
export function defaultStorage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** The saved conversation, unless it is missing, unreadable or older than `ttlMs` (then removed). */
export function loadConversation(
  storage: Storage | null,
  key: string,
  now: number,
  ttlMs: number,
): LoadedConversation | null {
  if (!storage) return null;
  try {
    const raw = storage.getItem(key);
    if (!raw) return null;
    const saved = JSON.parse(raw) as Partial<Envelope>;
    if (saved.v !== 1 || typeof saved.savedAt !== "number" || !Array.isArray(saved.messages)) {
      storage.removeItem(key);
      return null;
    }
    if (now - saved.savedAt > ttlMs) {
      storage.removeItem(key);
      return null;
    }
    const cut = (m: ChatMessage) => m.status === "streaming" || m.status === "pending";
    return {
      conversationId: saved.conversationId ?? null,
      visitorToken: saved.visitorToken ?? null,
      // An answer that was streaming when the page went away can't resume: it reads as stopped
      // until the server's stored copy is fetched (the store does that for `interrupted`).
      messages: saved.messages.map((m) => (cut(m) ? { ...m, status: "stopped" } : m)),
      interrupted: [...saved.messages].reverse().find((m) => m.role === "assistant" && cut(m))?.id ?? null,
    };
  } catch {
    return null;
  }
}

export function saveConversation(
  storage: Storage | null,
  key: string,
  now: number,
  value: SavedConversation,
): void {
  if (!storage) return;
  try {
    if (value.messages.length === 0 && !value.conversationId) {
      storage.removeItem(key);
      return;
    }
    const envelope: Envelope = { v: 1, savedAt: now, ...value };
    storage.setItem(key, JSON.stringify(envelope));
  } catch {
    // Quota exceeded or storage blocked: the conversation still works for this page view.
  }
}
