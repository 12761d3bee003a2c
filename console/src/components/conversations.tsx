import type { Agent, Conversation, Message } from "@lore/shared";
import { signal, useSignal } from "@preact/signals";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import {
  correctMessage,
  getTranscript,
  isCorrection,
  listConversations,
  PAGE_SIZE,
  type QueueFilter,
  type QueueQuery,
  setConversationStatus,
  setHandoffStatus,
  type Transcript,
} from "../loop-api.ts";
import {
  go,
  handoffSummary,
  loadHandoffSummary,
  openRequests,
  requestsText,
  route,
  routeHash,
} from "../state.ts";
import { AnswerWithSources } from "./citations.tsx";
import { CorrectionForm, withoutCitations } from "./correction-form.tsx";
import { ago, bindInput, ErrorBox, Status, TimeAgo, useFormState } from "./ui.tsx";

/** Row height of the virtualised list, in px (matches .conv-row in styles.css). */
export const ROW_HEIGHT = 60;
const OVERSCAN = 6;

const FILTERS: Array<[QueueFilter, string]> = [
  ["all", "All conversations"],
  ["down", "Thumbs down"],
  ["unanswered", "Unanswered"],
  ["uncertain", "Not sure"],
  ["up", "Thumbs up"],
  ["handoff", "Contact requests"],
];

/** The queue's filter and search, kept while a transcript is open. */
const queue = signal<QueueQuery & { agentId: string }>({
  agentId: "",
  filter: "down",
  q: "",
  status: "open",
  asked: "visitors",
});

export function ConversationsTab(props: { agent: Agent }) {
  const { item } = route.value;
  if (queue.value.agentId !== props.agent.id)
    queue.value = { agentId: props.agent.id, filter: "down", q: "", status: "open", asked: "visitors" };
  return item ? (
    <TranscriptView agent={props.agent} conversationId={item} />
  ) : (
    <ReviewQueue agent={props.agent} />
  );
}

function ReviewQueue(props: { agent: Agent }) {
  const search = useSignal(queue.value.q);
  const filterName = `filter-${props.agent.id}`;
  return (
    <>
      <h2 id="queue-title">Review queue</h2>
      <p class="muted">
        What visitors asked. Start with the answers they rated down or that got the fallback; open a
        conversation to read it and correct an answer.
      </p>
      <RequestsNotice agentId={props.agent.id} />
      <div class="queue-controls">
        <fieldset class="filters">
          <legend>Show</legend>
          {FILTERS.map(([value, label]) => (
            <span class="radio" key={value}>
              <input
                type="radio"
                id={`${filterName}-${value}`}
                name={filterName}
                value={value}
                checked={queue.value.filter === value}
                onChange={() => {
                  queue.value = { ...queue.value, filter: value };
                }}
              />
              <label for={`${filterName}-${value}`}>{label}</label>
            </span>
          ))}
        </fieldset>
        <p class="queue-status">
          <label for={`${filterName}-status`}>
            {queue.value.filter === "handoff" ? "Request status" : "Status"}
          </label>{" "}
          <select
            id={`${filterName}-status`}
            value={queue.value.status}
            onChange={(e) => {
              queue.value = { ...queue.value, status: e.currentTarget.value as QueueQuery["status"] };
            }}
          >
            <option value="open">Open</option>
            <option value="resolved">Resolved</option>
            <option value="all">Any</option>
          </select>{" "}
          <label for={`${filterName}-asked`}>Asked by</label>{" "}
          <select
            id={`${filterName}-asked`}
            value={queue.value.asked}
            onChange={(e) => {
              queue.value = { ...queue.value, asked: e.currentTarget.value as QueueQuery["asked"] };
            }}
          >
            <option value="visitors">Visitors and apps</option>
            <option value="all">Anyone, with your Try it questions</option>
          </select>
        </p>
        <form
          class="queue-search"
          onSubmit={(e) => {
            e.preventDefault();
            queue.value = { ...queue.value, q: search.value };
          }}
        >
          <label for={`${filterName}-q`}>Text in any message</label>
          <input id={`${filterName}-q`} type="search" {...bindInput(search)} />
          <button type="submit" class="small">
            Search
          </button>
        </form>
      </div>
      <ConversationList
        key={`${queue.value.filter}|${queue.value.q}|${queue.value.status}|${queue.value.asked}`}
        agentId={props.agent.id}
        query={queue.value}
      />
    </>
  );
}

/** Open contact requests first: how many wait, a way to list them, and whether owners get e-mail. */
function RequestsNotice(props: { agentId: string }) {
  const n = openRequests(props.agentId);
  const email = handoffSummary.value?.emailNotices;
  return (
    <div class="requests-notice" data-testid="requests-notice">
      <p>
        {n > 0 ? <strong>{requestsText(n)}: a visitor is waiting.</strong> : "No open contact requests."}{" "}
        {email === undefined
          ? null
          : email
            ? "New requests are also e-mailed to the workspace's owners."
            : "New requests are not e-mailed: the server has no LORE_SMTP_URL (see docs/operations.md)."}
      </p>
      {n > 0 && queue.value.filter !== "handoff" && (
        <button
          type="button"
          class="small"
          onClick={() => {
            queue.value = { ...queue.value, filter: "handoff", status: "open" };
          }}
        >
          Show contact requests
        </button>
      )}
    </div>
  );
}

const reasonLabel = {
  wrong: "Wrong answer",
  unanswered: "Didn't answer the question",
  outdated: "Out of date",
  other: "Other",
} as const;

/** Why a row is in the queue, in words. */
function rowReasons(row: Conversation): string {
  const parts = [`${row.messageCount} messages`];
  if (row.channel === "console") parts.unshift("Try it");
  if (row.downvotes) parts.push(`${row.downvotes} thumbs down`);
  if (row.upvotes) parts.push(`${row.upvotes} thumbs up`);
  if (row.unanswered) parts.push(`${row.unanswered} unanswered`);
  if (row.uncertain) parts.push(`${row.uncertain} not sure`);
  if (row.openHandoffs)
    parts.push(`${row.openHandoffs} open contact request${row.openHandoffs === 1 ? "" : "s"}`);
  return parts.join(" · ");
}

/**
 * Every matching conversation in one scrolling list, however many: only the rows in view are in the
 * DOM, and pages of 100 load as they scroll into view.
 */
export function ConversationList(props: { agentId: string; query: QueueQuery }) {
  const count = useSignal<number | null>(null);
  const error = useSignal<unknown>(null);
  // Loaded pages by page number; `version` re-renders when one arrives.
  const pages = useRef(new Map<number, Conversation[]>());
  const pending = useRef(new Set<number>());
  const version = useSignal(0);
  const scrollTop = useSignal(0);
  const height = useSignal(600);
  const scroller = useRef<HTMLElement>(null);

  const load = async (page: number) => {
    if (pages.current.has(page) || pending.current.has(page)) return;
    pending.current.add(page);
    try {
      const body = await listConversations(props.agentId, props.query, page);
      pages.current.set(page, body.results);
      count.value = body.count;
      version.value += 1;
    } catch (caught) {
      error.value = caught;
    } finally {
      pending.current.delete(page);
    }
  };
  useEffect(() => {
    void load(1);
  }, []);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => {
      height.value = el.clientHeight || 600;
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [count.value === null]);

  const total = count.value ?? 0;
  const first = Math.max(0, Math.floor(scrollTop.value / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(total, Math.ceil((scrollTop.value + height.value) / ROW_HEIGHT) + OVERSCAN);
  useEffect(() => {
    for (
      let page = Math.floor(first / PAGE_SIZE) + 1;
      page <= Math.floor(Math.max(first, last - 1) / PAGE_SIZE) + 1;
      page++
    ) {
      void load(page);
    }
  }, [first, last]);

  if (error.value) return <ErrorBox error={error.value} />;
  if (count.value === null) return <p class="loading">Loading conversations…</p>;
  const rows = [];
  for (let i = first; i < last; i++) {
    const row = pages.current.get(Math.floor(i / PAGE_SIZE) + 1)?.[i % PAGE_SIZE];
    rows.push(
      <li
        key={row?.id ?? `i${i}`}
        class="conv-row"
        style={{ transform: `translateY(${i * ROW_HEIGHT}px)` }}
        aria-setsize={total}
        aria-posinset={i + 1}
        data-down={row?.downvotes ? "true" : undefined}
        data-unanswered={row?.unanswered ? "true" : undefined}
      >
        {row ? (
          <a
            href={`${routeHash(props.agentId, "conversations", row.id)}${props.query.filter === "all" ? "" : `?for=${props.query.filter}`}`}
            class="conv-link"
          >
            <span class="conv-title">{row.title || "(untitled)"}</span>
            <span class="conv-meta muted">
              {rowReasons(row)} ·{" "}
              <span title={new Date(row.updatedAt).toLocaleString()}>{ago(row.updatedAt)}</span>
            </span>
          </a>
        ) : (
          <span class="conv-placeholder muted">Loading…</span>
        )}
      </li>,
    );
  }
  return (
    <>
      <Status>
        {total === 0
          ? "No conversations match."
          : `${total.toLocaleString("en")} conversation${total === 1 ? "" : "s"}`}
      </Status>
      {total > 0 && (
        <section
          class="conv-scroll"
          ref={scroller}
          aria-label="Conversations"
          onScroll={(e) => {
            scrollTop.value = e.currentTarget.scrollTop;
          }}
        >
          <ul class="conv-list" style={{ height: `${total * ROW_HEIGHT}px` }} data-version={version.value}>
            {rows}
          </ul>
        </section>
      )}
    </>
  );
}

/** What each queue filter brings a conversation in for, as the transcript marks it. */
const TARGETS: Partial<Record<QueueFilter, [(m: Message) => boolean, string]>> = {
  down: [(m) => m.feedback === "down", "The answer rated thumbs down"],
  up: [(m) => m.feedback === "up", "The answer rated thumbs up"],
  unanswered: [(m) => m.fallback, "The answer that got the fallback"],
  uncertain: [(m) => m.outcome === "uncertain", "The answer given with a doubt"],
};

/**
 * The message (or contact request) that brought the conversation into the queue: `?at=<id>` in the
 * hash, or the first one the queue's filter (`?for=`) names; the hash is then rewritten to `?at=`
 * so a reload opens at the same place.
 */
function queueTarget(t: Transcript): Target | null {
  const params = new URLSearchParams(location.hash.split("?")[1] ?? "");
  const at = params.get("at");
  const filter = params.get("for") as QueueFilter | null;
  let found: Target | null = null;
  const message = t.messages.find((m) => m.id === at);
  const handoff = t.handoffRequests.find((h) => h.id === at);
  if (message) found = { id: message.id, label: labelOf(message) };
  else if (handoff) found = { id: handoff.id, label: "The contact request" };
  else if (filter === "handoff") {
    const h = t.handoffRequests.find((r) => r.status === "open") ?? t.handoffRequests[0];
    if (h) found = { id: h.id, label: "The contact request" };
  } else if (filter && TARGETS[filter]) {
    const [test, label] = TARGETS[filter];
    const m = t.messages.find((x) => x.role === "assistant" && test(x));
    if (m) found = { id: m.id, label };
  }
  if (found && at !== found.id)
    history.replaceState(null, "", `${location.hash.split("?")[0]}?at=${encodeURIComponent(found.id)}`);
  return found;
}

type Target = { id: string; label: string };

/** The marked element's class and focusability: outlined, and focused on open. */
function marked(target: Target | null | undefined, id: string, base: string) {
  return target?.id === id ? { class: `${base} queue-target`, tabIndex: -1 } : { class: base };
}

/** Says, first thing in the marked element, why the transcript opened there. */
function TargetLabel(props: { target: Target | null | undefined; id: string }) {
  return props.target?.id === props.id ? <p class="target-label">{props.target.label}</p> : null;
}

function labelOf(m: Message): string {
  for (const [test, label] of Object.values(TARGETS)) if (test(m)) return label;
  return "The message you opened";
}

function TranscriptView(props: { agent: Agent; conversationId: string }) {
  const { agent, conversationId } = props;
  const transcript = useSignal<Transcript | null>(null);
  const target = useSignal<Target | null>(null);
  const error = useSignal<unknown>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const load = async () => {
    try {
      transcript.value = await getTranscript(agent.id, conversationId);
    } catch (caught) {
      error.value = caught;
    }
  };
  useEffect(() => {
    void load().then(() => {
      const t = transcript.peek();
      target.value = t && queueTarget(t);
      requestAnimationFrame(() => {
        const el = target.peek() && document.querySelector<HTMLElement>(".queue-target");
        if (!el) return heading.current?.focus();
        // Focus announces it (its label comes first) and keeps keyboard users there; centred in view.
        el.focus({ preventScroll: true });
        el.scrollIntoView({ block: "center" });
      });
    });
  }, [conversationId]);
  const back = (
    <a class="back" href={routeHash(agent.id, "conversations")}>
      ← Review queue
    </a>
  );
  if (error.value)
    return (
      <>
        {back}
        <ErrorBox error={error.value} />
      </>
    );
  const t = transcript.value;
  if (!t) return <p class="loading">Loading the conversation…</p>;
  return (
    <>
      {back}
      <h2 tabIndex={-1} ref={heading} class="transcript-title">
        {t.title || "(untitled)"}
      </h2>
      <p class="muted">
        {t.messageCount} messages · started <TimeAgo iso={t.createdAt} /> · last message{" "}
        <TimeAgo iso={t.updatedAt} />
      </p>
      {t.pageUrl && (
        <p class="muted asked-on">
          Asked on{" "}
          <a href={t.pageUrl} target="_blank" rel="noopener noreferrer">
            {shownPageUrl(t.pageUrl)}
          </a>
          {t.device && ` · ${t.device}`}
        </p>
      )}
      <ResolveConversation agent={agent} transcript={t} reload={load} />
      {t.handoffRequests.length > 0 && (
        <HandoffList agent={agent} transcript={t} reload={load} target={target.value} />
      )}
      <ThreadMessages agent={agent} messages={t.messages} target={target.value} />
    </>
  );
}

/** The conversation's own status: resolved leaves the (open) review queue. */
function ResolveConversation(props: { agent: Agent; transcript: Transcript; reload: () => Promise<void> }) {
  const action = useFormState();
  const open = props.transcript.status === "open";
  return (
    <div class="row-actions conv-status" data-status={props.transcript.status}>
      <p>
        Status: <strong>{open ? "Open" : "Resolved"}</strong>
      </p>
      <button
        type="button"
        class="small"
        disabled={action.busy.value}
        onClick={action.submit(async () => {
          await setConversationStatus(props.agent.id, props.transcript.id, open ? "resolved" : "open");
          await props.reload();
        })}
      >
        {open ? "Resolve conversation" : "Reopen conversation"}
      </button>
      {action.error.value !== null && <ErrorBox error={action.error.value} />}
    </div>
  );
}

/** The visitor's contact requests on this conversation, each resolvable (or reopened). */
function HandoffList(props: {
  agent: Agent;
  transcript: Transcript;
  reload: () => Promise<void>;
  target: Target | null;
}) {
  const action = useFormState();
  return (
    <section class="handoffs" aria-labelledby="handoffs-title" data-testid="handoffs">
      <h3 id="handoffs-title">Contact requests</h3>
      {action.error.value !== null && <ErrorBox error={action.error.value} />}
      <ul>
        {props.transcript.handoffRequests.map((h) => (
          <li
            key={h.id}
            data-status={h.status}
            data-handoff-id={h.id}
            {...marked(props.target, h.id, "handoff")}
          >
            <TargetLabel target={props.target} id={h.id} />
            <p>
              <strong>{h.name ? `${h.name} <${h.email}>` : h.email}</strong> · <TimeAgo iso={h.createdAt} /> ·{" "}
              {h.status === "open" ? "open" : "resolved"}
            </p>
            <blockquote>{h.message}</blockquote>
            <p>
              <a href={replyLink(h, props.transcript)}>Reply by e-mail</a>{" "}
              <button
                type="button"
                class="small"
                disabled={action.busy.value}
                onClick={action.submit(async () => {
                  await setHandoffStatus(props.agent.id, h.id, h.status === "open" ? "resolved" : "open");
                  await Promise.all([props.reload(), loadHandoffSummary()]);
                })}
              >
                {h.status === "open" ? "Mark resolved" : "Reopen"}
              </button>
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Mail clients cut long links; the transcript is trimmed to this many characters. */
const MAILTO_TRANSCRIPT_MAX = 1500;

/** A `mailto:` to the visitor with a subject and, quoted, their request and the conversation. */
function replyLink(h: Transcript["handoffRequests"][number], t: Transcript): string {
  const lines = t.messages
    .filter((m) => m.content)
    .map((m) => `> ${m.role === "user" ? "You" : "Assistant"}: ${m.content.replace(/\s+/g, " ")}`);
  let transcript = lines.join("\n");
  if (transcript.length > MAILTO_TRANSCRIPT_MAX)
    transcript = `${transcript.slice(0, MAILTO_TRANSCRIPT_MAX)}…`;
  const body = [
    `Hello${h.name ? ` ${h.name}` : ""},`,
    "",
    "",
    "",
    `> Your message: ${h.message.replace(/\s+/g, " ")}`,
    ">",
    "> Our conversation:",
    transcript,
  ].join("\n");
  const subject = `Re: ${t.title || "your question"}`;
  const to = encodeURIComponent(h.email).replace(/%40/g, "@");
  return `mailto:${to}?subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(body)}`;
}

/** A transcript's messages; each answer with its citations, latency, feedback and a way to correct it. */
export function ThreadMessages(props: { agent: Agent; messages: Message[]; target?: Target | null }) {
  const { messages } = props;
  // One live region for the whole thread (not one per answer).
  const status = useSignal("");
  return (
    <>
      <Status>{status.value}</Status>
      <ol class="thread" aria-label="Messages">
        {messages.map((m, i) =>
          m.role === "user" ? (
            <li key={m.id} data-message-id={m.id} {...marked(props.target, m.id, "msg msg-user")}>
              <TargetLabel target={props.target} id={m.id} />
              <p class="who-said">Visitor</p>
              <p class="question">{m.content}</p>
            </li>
          ) : (
            <AssistantMessage
              key={m.id}
              agent={props.agent}
              message={m}
              target={props.target ?? null}
              question={messages[i - 1]?.role === "user" ? (messages[i - 1]?.content ?? "") : ""}
              say={(text) => {
                status.value = text;
              }}
            />
          ),
        )}
      </ol>
    </>
  );
}

function AssistantMessage(props: {
  agent: Agent;
  message: Message;
  target: Target | null;
  question: string;
  say: (text: string) => void;
}) {
  const { message: m } = props;
  const correcting = useSignal(false);
  const saved = useSignal(false);
  const button = useRef<HTMLButtonElement>(null);
  const fromCorrection = Boolean(m.correctionId) || m.sources.some(isCorrection);
  const meta = [
    m.latency !== null ? `${m.latency} ms` : null,
    m.retrievalTime !== null ? `retrieval ${m.retrievalTime} ms` : null,
    m.model,
    m.tokensUsed !== null ? `${m.tokensUsed} tokens` : null,
  ].filter(Boolean);
  return (
    <li
      {...marked(props.target, m.id, "msg msg-assistant")}
      data-message-id={m.id}
      data-feedback={m.feedback ?? undefined}
      data-fallback={m.fallback ? "true" : undefined}
      data-status={m.status}
    >
      <TargetLabel target={props.target} id={m.id} />
      <p class="who-said">
        Assistant
        {m.fallback && <span class="flag flag-fallback">No answer (fallback)</span>}
        {m.status === "stopped" && <span class="flag flag-halted">Stopped by the visitor</span>}
        {m.status === "failed" && <span class="flag flag-halted">Failed</span>}
        {fromCorrection && <span class="flag flag-ok">From your correction</span>}
        {m.feedback === "down" && <span class="flag flag-down">Thumbs down</span>}
        {m.feedback === "up" && <span class="flag flag-up">Thumbs up</span>}
      </p>
      <div class="answer" data-state="done">
        <AnswerWithSources text={m.content} sources={m.sources} idPrefix={`m-${m.id}-`} />
      </div>
      {m.feedbackReason && (
        <p class="feedback-reason">
          What was wrong: <strong>{reasonLabel[m.feedbackReason]}</strong>
        </p>
      )}
      {m.feedbackComment && (
        <blockquote class="feedback-comment">
          <span class="sr-only">Visitor's comment: </span>
          {m.feedbackComment}
        </blockquote>
      )}
      <p class="meta muted">{meta.join(" · ")}</p>
      {saved.value && (
        <p class="saved">Correction saved: visitors who ask this get your answer from now on.</p>
      )}
      {correcting.value ? (
        <CorrectionForm
          title="Correct this answer"
          question={props.question}
          answer={m.status === "complete" ? withoutCitations(m.content) : ""}
          submitLabel="Save correction"
          onSave={async ({ question, answer }) => {
            await correctMessage(props.agent.id, m.id, {
              answer,
              ...(question.trim() && question !== props.question ? { question } : {}),
            });
            correcting.value = false;
            saved.value = true;
            props.say("Correction saved.");
            requestAnimationFrame(() => button.current?.focus());
          }}
          onCancel={() => {
            correcting.value = false;
            requestAnimationFrame(() => button.current?.focus());
          }}
        />
      ) : (
        <div class="row-actions">
          <button
            type="button"
            class="small"
            ref={button}
            onClick={() => {
              correcting.value = true;
            }}
          >
            Correct this answer
          </button>
          {saved.value && (
            <button type="button" class="small ghost" onClick={() => go(props.agent.id, "corrections")}>
              See corrections
            </button>
          )}
        </div>
      )}
    </li>
  );
}

/** A page address as the owner reads it: host and path (never credentials or direction overrides). */
function shownPageUrl(href: string): string {
  try {
    const url = new URL(href);
    return `${url.host}${url.pathname}`.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "");
  } catch {
    return href;
  }
}
