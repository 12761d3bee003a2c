import type { createTransport } from "nodemailer";
import type { DomainEvent, EventBus } from "../events/event-bus.ts";
import type { Logger } from "../log/logger.ts";
import type { Store } from "../store/store.ts";
import { oneLine } from "./visitor-text.ts";

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
  replyTo?: string;
}

/** Sends e-mail; one implementation speaks SMTP, tests use a local SMTP server. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * An SMTP mailer for `smtp://user:pass@host:port` (or `smtps://`), as LORE_SMTP_URL gives it.
 * nodemailer is loaded with the first message, not at start: most servers send none for a while.
 */
export function createSmtpMailer(url: string, from: string, timeoutMs = 20_000): Mailer {
  let transport: Promise<ReturnType<typeof createTransport>> | undefined;
  const opened = () =>
    (transport ??= import("nodemailer").then(({ createTransport }) => {
      const opening = createTransport(url, { from });
      for (const key of ["connectionTimeout", "greetingTimeout", "socketTimeout"] as const)
        opening.options[key] = timeoutMs;
      return opening;
    }));
  return {
    async send(message) {
      await (await opened()).sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      });
    },
    close: () => void transport?.then((open) => open.close()),
  };
}

/** Delays before the second and third attempt of a notice. */
const RETRY_DELAYS_MS = [5_000, 60_000];

/**
 * Tells the owners of the agent's workspace, by e-mail, that a visitor asked for a person. The
 * request is already stored (and in the console); a notice that still fails after its retries is
 * logged, never lost silently.
 */
export function notifyOwnersByMail(deps: {
  events: EventBus;
  mailer: Mailer;
  store: Store;
  logger: Logger;
  retryDelaysMs?: readonly number[];
}): { stop(): void } {
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const delays = deps.retryDelaysMs ?? RETRY_DELAYS_MS;
  const attempt = (message: MailMessage, handoffId: string, n: number): void => {
    deps.mailer.send(message).then(
      () => deps.logger.info("handoff notice e-mailed", { handoffId, to: message.to.length }),
      (error: unknown) => {
        const delay = delays[n];
        deps.logger.warn("handoff notice e-mail failed", {
          handoffId,
          attempt: n + 1,
          willRetry: delay !== undefined && !stopped,
          error: error instanceof Error ? error.message : String(error),
        });
        if (delay === undefined || stopped) return;
        const timer = setTimeout(() => {
          timers.delete(timer);
          attempt(message, handoffId, n + 1);
        }, delay);
        timer.unref();
        timers.add(timer);
      },
    );
  };
  deps.events.subscribe((event) => {
    if (event.type !== "conversation.handoff_requested" || stopped) return;
    const to = ownerEmails(deps.store, event.workspaceId);
    if (to.length === 0) return;
    attempt(handoffMail(deps.store, event, to), event.handoff.id, 0);
  });
  return {
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      deps.mailer.close();
    },
  };
}

/** The e-mail addresses of a workspace's owners. */
function ownerEmails(store: Store, workspaceId: string): string[] {
  return store.memberships
    .filter((m) => m.workspaceId === workspaceId && m.role === "owner")
    .map((m) => store.users.get(m.userId)?.email)
    .filter((email): email is string => typeof email === "string");
}

type HandoffEvent = Extract<DomainEvent, { type: "conversation.handoff_requested" }>;

/** Every line of a text behind a prefix (a message's own lines can't start a line of the e-mail). */
function quoted(text: string, prefix: string): string {
  return text
    .split(/\r\n|[\r\n\u2028\u2029]/)
    .map((line) => `${prefix}${line}`)
    .join("\n");
}

/** Plain text: the visitor's words, how to reach them, and the conversation that led there. */
export function handoffMail(store: Pick<Store, "agents">, event: HandoffEvent, to: string[]): MailMessage {
  const { handoff } = event;
  const agentName = store.agents.get(event.agentId)?.name ?? "your assistant";
  // Visitor fields on one line, their message and the transcript quoted (issue #49): neither can
  // add a header-like line or fake the sections below.
  const who = handoff.name ? `${oneLine(handoff.name)} <${oneLine(handoff.email)}>` : oneLine(handoff.email);
  const lines = [
    `A visitor of ${agentName} asked to be contacted.`,
    "",
    `From: ${who}`,
    `Sent: ${handoff.createdAt}`,
    "",
    "Their message:",
    quoted(handoff.message, "> "),
    "",
    "--- Conversation ---",
    ...event.transcript.flatMap((m) => [
      `${m.role === "user" ? "Visitor" : "Assistant"}: ${quoted(m.content, "    ").trimStart()}`,
      ...m.sources.map((s) => `  source: ${s.title}${s.sourceUrl ? ` (${s.sourceUrl})` : ""}`),
      "",
    ]),
    `Reply to this e-mail to answer the visitor. Handoff ${handoff.id}, conversation ${handoff.conversationId}.`,
  ];
  return {
    to,
    subject: `Contact request from ${handoff.email} (${agentName})`.replace(/[\r\n]+/g, " "),
    text: lines.join("\n"),
    replyTo: handoff.email,
  };
}
