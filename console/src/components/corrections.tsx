import type { Agent, CorrectionMatch, CorrectionMatches, Page } from "@lore/shared";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import {
  type Correction,
  correctionMatches,
  createCorrection,
  deleteCorrection,
  listCorrections,
  updateCorrection,
} from "../loop-api.ts";
import { routeHash } from "../state.ts";
import { CorrectionForm } from "./correction-form.tsx";
import { Markdown } from "./markdown.tsx";
import { ErrorBox, Status, TimeAgo } from "./ui.tsx";

/** The agent's corrections, newest first: add, edit and delete. */
export function CorrectionsTab(props: { agent: Agent }) {
  const { agent } = props;
  const list = useSignal<Page<Correction> | null>(null);
  const page = useSignal(1);
  const error = useSignal<unknown>(null);
  const status = useSignal("");
  const adding = useSignal(false);
  const editing = useSignal<string | null>(null);

  const load = async () => {
    try {
      list.value = await listCorrections(agent.id, page.value);
      error.value = null;
    } catch (caught) {
      error.value = caught;
    }
  };
  useEffect(() => {
    void load();
  }, [page.value]);

  const remove = async (c: Correction) => {
    if (!confirm(`Delete the correction for “${c.question}”? Visitors get answers from your sources again.`))
      return;
    try {
      await deleteCorrection(agent.id, c.id);
      status.value = "Correction deleted.";
      await load();
    } catch (caught) {
      error.value = caught;
    }
  };

  return (
    <>
      <h2>Corrections</h2>
      <p class="muted">
        Your own answers to questions visitors ask. A visitor who asks the same question, or a close rewording
        of it (other word order or forms, another question word, a synonym), gets your answer. A different
        question on the same topic does not: open “Which questions it answers” to see recent ones it catches
        and misses, and add a missed one in a click.
      </p>
      {adding.value ? (
        <CorrectionForm
          title="Add an answer"
          question=""
          submitLabel="Save answer"
          onSave={async (values) => {
            await createCorrection(agent.id, values);
            adding.value = false;
            status.value = "Answer saved.";
            page.value = 1;
            await load();
          }}
          onCancel={() => {
            adding.value = false;
          }}
        />
      ) : (
        <button
          type="button"
          class="primary"
          onClick={() => {
            adding.value = true;
          }}
        >
          Add an answer
        </button>
      )}
      <Status>{status.value}</Status>
      {error.value ? <ErrorBox error={error.value} /> : null}
      {list.value && list.value.count === 0 && (
        <p class="empty">
          No corrections yet. Open a conversation under Conversations and choose “Correct this answer”.
        </p>
      )}
      {list.value && list.value.results.length > 0 && (
        <ul class="corrections" aria-label="Corrections">
          {list.value.results.map((c) =>
            editing.value === c.id ? (
              <li key={c.id} class="correction">
                <CorrectionForm
                  title="Edit the correction"
                  question={c.question}
                  answer={c.answer}
                  alsoAnswers={c.alsoAnswers}
                  submitLabel="Save changes"
                  onSave={async (values) => {
                    await updateCorrection(agent.id, c.id, values);
                    editing.value = null;
                    status.value = "Correction updated.";
                    await load();
                  }}
                  onCancel={() => {
                    editing.value = null;
                  }}
                />
              </li>
            ) : (
              <li key={c.id} class="correction" data-correction-id={c.id}>
                <h3 class="correction-question">{c.question}</h3>
                {c.stale && c.staleSource && (
                  <div class="stale-note" role="note">
                    <span class="badge badge-stale">Source changed</span> “{c.staleSource.title}” was{" "}
                    {c.staleSource.change} <TimeAgo iso={c.staleSince ?? c.updatedAt} /> since this answer
                    replaced it. <a href={routeHash(agent.id, "sources")}>Open Sources</a>{" "}
                    <button
                      type="button"
                      class="small"
                      aria-label={`Review the correction for ${c.question}`}
                      onClick={() => {
                        editing.value = c.id;
                      }}
                    >
                      Review
                    </button>
                  </div>
                )}
                {c.alsoAnswers.length > 0 && (
                  <p class="also-answers">Also answers: {c.alsoAnswers.map((w) => `“${w}”`).join(", ")}</p>
                )}
                <Markdown text={c.answer} sources={[]} />
                <Examples
                  agentId={agent.id}
                  correction={c}
                  onAdded={async (question) => {
                    status.value = `It now also answers “${question}”.`;
                    await load();
                  }}
                />
                <p class="muted meta">
                  {c.messageId ? "From a conversation" : "Added by hand"} · updated{" "}
                  <TimeAgo iso={c.updatedAt} />
                </p>
                <div class="row-actions">
                  <button
                    type="button"
                    class="small"
                    aria-label={`Edit the correction for ${c.question}`}
                    onClick={() => {
                      editing.value = c.id;
                    }}
                  >
                    Edit
                  </button>
                  <button
                    type="button"
                    class="small danger"
                    aria-label={`Delete the correction for ${c.question}`}
                    onClick={() => remove(c)}
                  >
                    Delete
                  </button>
                </div>
              </li>
            ),
          )}
        </ul>
      )}
      {list.value && (list.value.next || list.value.previous) && (
        <nav class="pager" aria-label="Pages of corrections">
          <button
            type="button"
            class="small"
            disabled={!list.value.previous}
            onClick={() => {
              page.value -= 1;
            }}
          >
            Newer
          </button>
          <span>Page {page.value}</span>
          <button
            type="button"
            class="small"
            disabled={!list.value.next}
            onClick={() => {
              page.value += 1;
            }}
          >
            Older
          </button>
        </nav>
      )}
    </>
  );
}

/**
 * Recent visitor questions the correction catches and misses, loaded when opened; a missed one is
 * added to its wordings in one click.
 */
function Examples(props: {
  agentId: string;
  correction: Correction;
  onAdded: (question: string) => Promise<void>;
}) {
  const found = useSignal<CorrectionMatches | null>(null);
  const error = useSignal<unknown>(null);
  const load = async () => {
    try {
      found.value = await correctionMatches(props.agentId, props.correction.id);
      error.value = null;
    } catch (caught) {
      error.value = caught;
    }
  };
  const add = async (question: string) => {
    try {
      const alsoAnswers = [...props.correction.alsoAnswers, question];
      await updateCorrection(props.agentId, props.correction.id, { alsoAnswers });
      await props.onAdded(question);
      await load();
    } catch (caught) {
      error.value = caught;
    }
  };
  const f = found.value;
  return (
    <details
      class="examples"
      onToggle={(e) => {
        if (e.currentTarget.open) void load();
      }}
    >
      <summary class="examples-summary">Which questions it answers</summary>
      {error.value ? <ErrorBox error={error.value} /> : null}
      {!f && !error.value && <p class="loading">Comparing recent visitor questions…</p>}
      {f && (
        <>
          <p class="muted">
            Of the last {f.scanned} distinct questions visitors asked ({"Try it"} left out):
          </p>
          <ExampleList
            title="Catches: these get this answer"
            kind="yes"
            items={f.wouldAnswer}
            empty="None yet: no recent question matches it."
          />
          <ExampleList
            title="Misses: close, but answered otherwise"
            kind="no"
            items={f.wouldNotAnswer}
            empty="No recent question shares its words."
            onAdd={add}
          />
        </>
      )}
    </details>
  );
}

function ExampleList(props: {
  title: string;
  kind: string;
  items: CorrectionMatch[];
  empty: string;
  onAdd?: (question: string) => Promise<void>;
}) {
  const { onAdd } = props;
  return (
    <div class={`example-list example-${props.kind}`}>
      <h4>{props.title}</h4>
      {props.items.length === 0 ? (
        <p class="muted">{props.empty}</p>
      ) : (
        <ul>
          {props.items.map((m) => (
            <li key={m.messageId} class="example">
              “{m.question}”{m.times > 1 && <span class="muted"> asked {m.times} times</span>}{" "}
              {onAdd && (
                <button
                  type="button"
                  class="small"
                  aria-label={`Also answers this: “${m.question}”`}
                  onClick={() => onAdd(m.question)}
                >
                  Also answers this
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
