import type { Agent, Page } from "@lore/shared";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import {
  type Correction,
  createCorrection,
  deleteCorrection,
  listCorrections,
  updateCorrection,
} from "../loop-api.ts";
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
        Your own answers to questions visitors ask. A question that means the same, in any words, is answered
        from the correction and cites it.
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
                <Markdown text={c.answer} sources={[]} />
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
