import { useEffect, useRef } from "preact/hooks";
import { ApiError } from "../api/client.ts";
import type { ContactForm as Form, HandoffState } from "../state/handoff.ts";
import { useWidget } from "./context.ts";
// Its English strings come with this chunk.
import "./extras-en.ts";

type Field = "email" | "message" | "name";
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_MESSAGE = 4000;

/** Checks the form here first, so the visitor hears what to fix without a round trip, then sends it. */
async function submitContact(handoff: HandoffState, form: Form): Promise<void> {
  const open = (invalid: readonly Field[], failed = false) => {
    handoff.contact.value = { step: "open", invalid, failed };
  };
  const email = form.email.trim();
  const message = form.message.trim();
  const invalid: Field[] = [];
  if (!EMAIL.test(email)) invalid.push("email");
  if (!message || message.length > MAX_MESSAGE) invalid.push("message");
  if (invalid.length > 0) return open(invalid);
  const sent = handoff.send({ email, message, name: form.name.trim() });
  handoff.contact.value = { step: "sending" };
  try {
    await sent;
    handoff.contact.value = { step: "sent" };
  } catch (error) {
    const fields = error instanceof ApiError ? Object.keys(error.fields) : [];
    open(
      fields.filter((f): f is Field => f === "email" || f === "message" || f === "name"),
      true,
    );
  }
}

/** The handoff form: the visitor's e-mail, an optional name and a message, sent with the conversation. */
export function ContactForm({ id }: { id: string }) {
  const { store, i18n } = useWidget();
  const state = store.handoff.contact.value;
  const email = useRef<HTMLInputElement>(null);
  const done = useRef<HTMLParagraphElement>(null);
  const step = state.step;
  const invalid = state.step === "open" ? state.invalid : [];
  // Opening moves focus to the first field; a refused field takes it back; "sent" is announced.
  useEffect(() => {
    if (step === "sent") done.current?.focus();
    else if (step === "open") {
      const root = email.current?.form;
      const bad = invalid[0] ? root?.querySelector<HTMLElement>(`[name="${invalid[0]}"]`) : null;
      (bad ?? email.current)?.focus();
    }
  }, [step, invalid.join()]);
  if (step === "closed") return null;
  if (step === "sent") {
    return (
      <div class="contact-form" data-lore="contact-sent">
        <p ref={done} tabIndex={-1} role="status">
          {i18n.t("contactSent")}
        </p>
        <button type="button" class="retry" onClick={store.handoff.closeContact}>
          {i18n.t("close")}
        </button>
      </div>
    );
  }
  const field = (name: "email" | "name" | "message") => ({
    id: `${id}-${name}`,
    name,
    "aria-invalid": invalid.includes(name) ? ("true" as const) : undefined,
    "aria-describedby": invalid.includes(name) ? `${id}-${name}-error` : undefined,
  });
  const error = (name: "email" | "message", key: "badEmail" | "badMessage") =>
    invalid.includes(name) && (
      <span id={`${id}-${name}-error`} class="field-error">
        {i18n.t(key)}
      </span>
    );
  return (
    <form
      class="contact-form"
      data-lore="contact-form"
      aria-labelledby={`${id}-title`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        void submitContact(store.handoff, {
          email: String(data.get("email") ?? ""),
          name: String(data.get("name") ?? ""),
          message: String(data.get("message") ?? ""),
        });
      }}
    >
      <h3 id={`${id}-title`}>{i18n.t("contactUs")}</h3>
      {state.step === "open" && state.failed && invalid.length === 0 && (
        <p class="field-error" role="alert">
          {i18n.t("server")}
        </p>
      )}
      <label class="field" for={`${id}-email`}>
        {i18n.t("email")}
      </label>
      <input ref={email} type="email" autoComplete="email" maxLength={254} required {...field("email")} />
      {error("email", "badEmail")}
      <label class="field" for={`${id}-message`}>
        {i18n.t("message")}
      </label>
      <textarea rows={3} maxLength={4000} required {...field("message")} />
      {error("message", "badMessage")}
      <div class="form-actions">
        <button type="submit" class="retry" data-lore="contact-send" disabled={step === "sending"}>
          {i18n.t("send")}
        </button>
        <button type="button" class="link-btn" onClick={store.handoff.closeContact}>
          {i18n.t("close")}
        </button>
      </div>
    </form>
  );
}
