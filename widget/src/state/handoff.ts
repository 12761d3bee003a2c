import { type Signal, signal } from "@preact/signals";
import { ApiError, type WidgetClient } from "../api/client.ts";

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
  submitContact(form: ContactForm): Promise<void>;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_MESSAGE = 4000;

/** The contact form's state and its request; the conversation and token come from the store. */
export function createHandoffState(
  client: WidgetClient,
  session: () => { conversationId: string | null; visitorToken: string | null },
): HandoffState {
  const contact = signal<ContactState>({ step: "closed" });
  const open = (invalid: ReadonlyArray<"email" | "message" | "name"> = [], failed = false) => {
    contact.value = { step: "open", invalid, failed };
  };
  return {
    contact,
    openContact: () => open(),
    closeContact: () => {
      contact.value = { step: "closed" };
    },
    async submitContact(form) {
      const email = form.email.trim();
      const message = form.message.trim();
      // Checked here first, so the visitor hears what to fix without a round trip.
      const invalid: Array<"email" | "message"> = [];
      if (!EMAIL.test(email)) invalid.push("email");
      if (!message || message.length > MAX_MESSAGE) invalid.push("message");
      const { conversationId, visitorToken } = session();
      if (invalid.length > 0 || !conversationId || !visitorToken) return open(invalid);
      contact.value = { step: "sending" };
      try {
        const name = form.name.trim();
        await client.sendHandoff(conversationId, { visitorToken, email, message, ...(name ? { name } : {}) });
        contact.value = { step: "sent" };
      } catch (error) {
        const fields = error instanceof ApiError ? Object.keys(error.fields) : [];
        open(
          fields.filter(
            (f): f is "email" | "message" | "name" => f === "email" || f === "message" || f === "name",
          ),
          true,
        );
      }
    },
  };
}
