import type { WidgetFirstHandoffResponse } from "@lore/shared";
import { type Signal, signal } from "@preact/signals";
import type { WidgetClient } from "../api/client.ts";

/** Where the contact form is: hidden, shown, being sent, sent, or refused (with the fields to fix). */
export type ContactState =
  | { step: "closed" }
  | { step: "open"; invalid: ReadonlyArray<"email" | "message" | "name">; failed: boolean }
  | { step: "sending" }
  | { step: "sent" };

export interface ContactForm {
  email: string;
  name: string;
  message: string;
}

export interface HandoffState {
  contact: Signal<ContactState>;
  /** Opens the form (a `link` handoff is a plain link and never comes here). */
  openContact(): void;
  closeContact(): void;
  /** Sends a checked request on the visitor's conversation, or one that starts it. */
  send(form: ContactForm): Promise<void>;
}

/**
 * The contact form's state and its request; the conversation and token come from the store. Checking
 * and sending the form is the form's (components/contact-form.tsx, loaded with it).
 */
export function createHandoffState(
  client: WidgetClient,
  session: () => { conversationId: string | null; visitorToken: string | null },
  /** A request sent before any question started this conversation: the store continues it. */
  started: (response: WidgetFirstHandoffResponse) => void,
): HandoffState {
  const contact = signal<ContactState>({ step: "closed" });
  return {
    contact,
    openContact: () => {
      contact.value = { step: "open", invalid: [], failed: false };
    },
    closeContact: () => {
      contact.value = { step: "closed" };
    },
    async send({ email, message, name }) {
      const { conversationId, visitorToken } = session();
      const body = { email, message, ...(name ? { name } : {}), ...(visitorToken ? { visitorToken } : {}) };
      const sent = await client.sendHandoff(conversationId, body);
      if (!conversationId) started(sent);
    },
  };
}
