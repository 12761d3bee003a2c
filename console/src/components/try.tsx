import type { Agent, AnswerEvent, Citation, SearchResponse } from "@lore/shared";
import { type Signal, signal, useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { ApiError, api, streamAnswer } from "../api.ts";
import { counted } from "../messages.ts";
import { AnswerWithSources } from "./citations.tsx";
import { bindInput, Field, FormError, Status, useFormState } from "./ui.tsx";

interface Turn {
  id: number;
  question: string;
  text: Signal<string>;
  sources: Signal<Citation[]>;
  state: Signal<"streaming" | "done" | "stopped">;
  meta: Signal<string>;
}

/** The "Try it" conversation per agent, so follow-up questions keep their context. */
const conversations = new Map<string, string>();
let turnIds = 0;

function metaOf(done: Extract<AnswerEvent, { type: "done" }>): string {
  const m = done.metadata;
  if (done.correctionId) return `From your correction (visitors see it as the answer) · ${done.latency} ms`;
  return `${done.model} · ${done.latency} ms (retrieval ${m.retrievalTime} ms, generation ${m.generationTime} ms) · ${counted(m.tokensUsed, "token")} · ${counted(done.retrievedChunks, "passage")} read`;
}

export function TryTab(props: { agent: Agent }) {
  const { agent } = props;
  const question = useSignal("");
  const turns = useSignal<Turn[]>([]);
  const results = useSignal<SearchResponse | null>(null);
  const status = useSignal("");
  const form = useFormState();
  const controller = useRef<AbortController | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    // Opened from a link rather than the tab strip: start in the question field.
    if (document.activeElement === document.body) input.current?.focus();
    return () => controller.current?.abort();
  }, []);

  const requireQuestion = () => {
    if (!question.value.trim()) {
      throw new ApiError(400, "validation_error", "Type a question first.", {
        fields: { message: ["Required."] },
      });
    }
  };

  const ask = form.submit(async () => {
    requireQuestion();
    results.value = null;
    const turn: Turn = {
      id: ++turnIds,
      question: question.value,
      text: signal(""),
      sources: signal([]),
      state: signal("streaming"),
      meta: signal(""),
    };
    const abort = new AbortController();
    controller.current = abort;
    status.value = "Answering…";
    turns.value = [...turns.value, turn];
    try {
      const events = await streamAnswer(
        agent.id,
        { message: turn.question, conversationId: conversations.get(agent.id) },
        abort.signal,
      );
      question.value = "";
      for await (const event of events) {
        switch (event.type) {
          case "start":
            conversations.set(agent.id, event.conversationId);
            break;
          case "token":
            turn.text.value += event.token;
            break;
          case "sources":
            turn.sources.value = event.sources;
            break;
          case "done":
            if (turn.sources.value.length === 0) turn.sources.value = event.sources;
            turn.meta.value = metaOf(event);
            turn.state.value = "done";
            break;
          case "error":
            throw new ApiError(502, event.error, event.message);
          default:
            event satisfies never;
        }
      }
      status.value = "Answer complete.";
    } catch (error) {
      if (!abort.signal.aborted) {
        turns.value = turns.value.filter((t) => t !== turn);
        status.value = "";
        throw error;
      }
      turn.state.value = "stopped";
      turn.meta.value = "Stopped.";
      status.value = "Stopped.";
    } finally {
      controller.current = null;
    }
  });

  const search = form.submit(async () => {
    requireQuestion();
    results.value = await api<SearchResponse>("POST", `/agents/${agent.id}/search/`, {
      body: { query: question.value },
    });
  });

  const reset = () => {
    conversations.delete(agent.id);
    turns.value = [];
    results.value = null;
    status.value = "New conversation started.";
    input.current?.focus();
  };

  const busy = form.busy.value;
  return (
    <>
      <p class="muted">
        Ask as a visitor would. The answer streams in, with the sources it cites; follow-up questions continue
        the conversation.
      </p>
      <form class="try" aria-label="Ask the agent" noValidate ref={form.ref} onSubmit={ask}>
        <FormError error={form.error.value} />
        <Field
          label="Question"
          name="message"
          error={form.error.value}
          hint="Enter asks; Shift+Enter starts a new line."
        >
          {(p) => (
            <textarea
              {...p}
              ref={input}
              rows={3}
              required
              maxLength={10000}
              {...bindInput(question)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
                  e.preventDefault();
                  form.ref.current?.requestSubmit();
                }
              }}
            />
          )}
        </Field>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Ask
          </button>
          <button type="button" disabled={busy} onClick={() => search()}>
            Search only
          </button>
          {busy && controller.current && (
            <button type="button" onClick={() => controller.current?.abort()}>
              Stop
            </button>
          )}
          <button type="button" class="ghost" onClick={reset}>
            New conversation
          </button>
          <Status>{status.value}</Status>
        </div>
      </form>
      <ol class="transcript" aria-label="Answers">
        {turns.value.map((turn) => (
          <li class="turn" key={turn.id}>
            <p class="question">
              <span class="sr-only">Question: </span>
              {turn.question}
            </p>
            <div
              class="answer"
              data-state={turn.state.value}
              aria-busy={turn.state.value === "streaming" ? "true" : undefined}
            >
              {turn.state.value === "streaming" ? (
                turn.text.value
              ) : (
                <AnswerWithSources
                  text={turn.text.value}
                  sources={turn.sources.value}
                  idPrefix={`try-${turn.id}-`}
                />
              )}
            </div>
            <p class="meta muted">{turn.meta.value}</p>
          </li>
        ))}
      </ol>
      {results.value && <SearchResults results={results.value} />}
    </>
  );
}

function SearchResults(props: { results: SearchResponse }) {
  const { results, retrievalTime } = props.results;
  return (
    <div class="search-results">
      <h3>
        Search results ({results.length}) in {retrievalTime} ms
      </h3>
      {results.length === 0 ? (
        <p class="empty">Nothing matched. Is a ready source attached to this agent?</p>
      ) : (
        <ol class="results">
          {results.map((r) => (
            <li class="result" key={r.chunkId} data-rank={r.rank}>
              <div class="result-head">
                <span class="rank">#{r.rank}</span>
                <span class="result-title">{r.title}</span>
                <span class="muted">{r.dataSourceName}</span>
                <meter min={0} max={1} value={r.score} aria-label={`Score of result ${r.rank}`} />
                <span class="score">{r.score.toFixed(3)}</span>
              </div>
              <p class="snippet">{r.content}</p>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
