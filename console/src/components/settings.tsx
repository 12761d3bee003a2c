import type { Agent, ModelsResponse, RetrievalMode, SuggestedQuestionCheck } from "@lore/shared";
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { checkSuggestedQuestions } from "../loop-api.ts";
import { counted } from "../messages.ts";
import { agents, go, patchAgent } from "../state.ts";
import { Markdown } from "./markdown.tsx";
import { bindInput, ErrorBox, Field, FormError, Status, splitLines, useFormState } from "./ui.tsx";

const HEX = /^#[0-9a-f]{6}$/i;

const modeLabels: Record<RetrievalMode, string> = {
  hybrid: "Meaning and keywords",
  keyword: "Keywords",
  semantic: "Meaning",
};
const modeWords: Record<RetrievalMode, string> = {
  hybrid: "meaning and keywords",
  keyword: "keywords only",
  semantic: "meaning only",
};

/** What a model id means to an owner: the built-in answerer, or a model of the model server. */
function modelLabel(id: string): string {
  if (id === "extractive") return "Built in: quotes the sources (no model server needed)";
  return id.startsWith("openai:") ? `${id.slice("openai:".length)} (writes answers from the sources)` : id;
}

/** The model, chosen from what this server is configured with; a stored one it no longer has stays, marked. */
function ModelField(props: {
  agent: Agent;
  models: ModelsResponse | null;
  listFailed: boolean;
  error: unknown;
}) {
  const { agent, models } = props;
  const ids = models ? models.chat.map((m) => m.id) : [agent.model];
  const missing = models !== null && !ids.includes(agent.model);
  const hint = missing
    ? `This server does not offer ${agent.model.replace(/^openai:/, "")} (kept until you choose another).`
    : props.listFailed
      ? "The list of models could not be loaded, so only the current one is shown; reload the page to choose another."
      : models?.modelServer === "unreachable"
        ? "The model server did not answer, so only the configured models are listed."
        : models?.modelServer === "none"
          ? "Connect a model server under Model (at the top) to let a language model write the answers."
          : "The built-in answerer quotes the sources; a model writes answers from them.";
  return (
    <Field label="Answers written by" name="model" error={props.error} hint={hint}>
      {(p) => (
        // Keyed by the list, so the stored selection is applied once the list has arrived.
        <select {...p} key={ids.join(" ")}>
          {missing && (
            <option
              value={agent.model}
              selected
            >{`Not available on this server: ${agent.model.replace(/^openai:/, "")}`}</option>
          )}
          {ids.map((id) => (
            // A select has no defaultValue property: the stored choice is marked selected.
            <option key={id} value={id} selected={id === agent.model}>
              {modelLabel(id)}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** "Spanish and Polish": language codes in English words. */
function languageList(codes: readonly string[]): string {
  const names = new Intl.DisplayNames(["en"], { type: "language" });
  const words = codes.map((code) => names.of(code) ?? code);
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words.at(-1)}` : (words[0] ?? "");
}

/**
 * Says when questions in another language than the documents' are searched untranslated: no
 * dictionary is installed at all, or visitors asked in languages that have none (issue #53).
 */
function TranslationNotice(props: { models: ModelsResponse | null }) {
  const translation = props.models?.translation;
  if (!translation) return null;
  const { dictionaries, missing } = translation;
  if (dictionaries.length > 0 && missing.length === 0) return null;
  const asked =
    missing.length > 0
      ? ` Visitors have asked in ${languageList(missing)}, which this server cannot translate.`
      : "";
  const what =
    dictionaries.length === 0
      ? "No translation dictionaries are installed on this server, so a question asked in another language than your documents' is searched as written and often gets the fallback message."
      : `This server translates questions in ${languageList(dictionaries)} for search; others are searched as written.`;
  return (
    <p class="warning" role="status">
      {what}
      {asked} A language model (Answers written by) translates any language; otherwise the server's operator
      can install dictionaries (docs/operations.md, “Questions in another language”).
    </p>
  );
}

export function SettingsTab(props: { agent: Agent }) {
  const { agent } = props;
  const form = useFormState();
  const saved = useSignal("");
  const color = useSignal(agent.theme.primaryColor);
  const checks = useSignal<SuggestedQuestionCheck[] | null>(null);
  const checkError = useSignal<unknown>(null);
  const checking = useSignal(false);
  const models = useSignal<ModelsResponse | null>(null);
  const listFailed = useSignal(false);
  useEffect(() => {
    api<ModelsResponse>("GET", `/models/?workspace_id=${agent.workspaceId}`).then(
      (list) => {
        models.value = list;
      },
      () => {
        listFailed.value = true;
      },
    );
  }, []);
  // Without the list, the agent's own word decides: a mode that runs as keywords means no embeddings.
  const embeddings =
    models.value?.embeddings.available ?? agent.effectiveRetrievalMode === agent.retrieval.mode;
  const effective = modeWords[agent.effectiveRetrievalMode];

  const checkSuggestions = async () => {
    checking.value = true;
    checkError.value = null;
    try {
      checks.value = (await checkSuggestedQuestions(agent.id)).results;
    } catch (error) {
      checkError.value = error;
    } finally {
      checking.value = false;
    }
  };

  const onSubmit = form.submit(async () => {
    saved.value = "";
    const formElement = form.ref.current;
    if (!formElement) return;
    const data = new FormData(formElement);
    const text = (name: string) => String(data.get(name) ?? "");
    const next = await patchAgent(agent.id, {
      name: text("name"),
      description: text("description"),
      instructions: text("instructions"),
      welcomeMessage: text("welcomeMessage"),
      suggestedQuestions: splitLines(text("suggestedQuestions")),
      fallbackMessage: text("fallbackMessage"),
      answerPolicy: text("answerPolicy"),
      handoff: {
        mode: text("handoff.mode"),
        url: text("handoff.mode") === "link" ? text("handoff.url").trim() || null : null,
      },
      model: text("model").trim(),
      retrieval: {
        topK: Number(text("retrieval.topK")),
        mode: text("retrieval.mode"),
        minScore: Number(text("retrieval.minScore")),
      },
      theme: {
        primaryColor: color.value.trim(),
        position: text("theme.position"),
        title: text("theme.title"),
        colorScheme: text("theme.colorScheme"),
        launcherLabel: text("theme.launcherLabel").trim(),
        greeting: text("theme.greeting").trim(),
      },
      allowedOrigins: splitLines(text("allowedOrigins")).map((o) => o.replace(/\/+$/, "")),
    });
    saved.value = "Saved.";
    checks.value = null;
    // Saving runs the suggested questions, so a question that gets no good answer shows at once.
    if (next.suggestedQuestions.length > 0) void checkSuggestions();
  });

  const error = form.error.value;
  return (
    <>
      <form class="settings" aria-label="Agent settings" noValidate ref={form.ref} onSubmit={onSubmit}>
        <FormError error={error} />
        <fieldset>
          <legend>Assistant</legend>
          <Field
            label="Name"
            name="name"
            error={error}
            hint="Shown to visitors at the top of the chat, unless the widget theme sets a title."
          >
            {(p) => <input {...p} required maxLength={200} defaultValue={agent.name} />}
          </Field>
          <Field
            label="Description"
            name="description"
            error={error}
            hint="A note for your team about what this assistant is for; visitors don't see it."
          >
            {(p) => <input {...p} defaultValue={agent.description} />}
          </Field>
          <Field
            label="Instructions"
            name="instructions"
            error={error}
            hint="How the assistant should answer: tone, scope, what to avoid."
          >
            {(p) => <textarea {...p} rows={4} defaultValue={agent.instructions} />}
          </Field>
          <Field
            label="Welcome message"
            name="welcomeMessage"
            error={error}
            hint="The first thing visitors read when they open the chat. Empty: none."
          >
            {(p) => <textarea {...p} rows={2} defaultValue={agent.welcomeMessage} />}
          </Field>
          <Field
            label="Suggested questions"
            name="suggestedQuestions"
            error={error}
            hint="One per line, up to 10. Saving asks each one and shows the answer below."
          >
            {(p) => <textarea {...p} rows={3} defaultValue={agent.suggestedQuestions.join("\n")} />}
          </Field>
          <Field
            label="Fallback message"
            name="fallbackMessage"
            error={error}
            hint="Said when the knowledge base has nothing relevant."
          >
            {(p) => <textarea {...p} rows={2} defaultValue={agent.fallbackMessage} />}
          </Field>
          <Field
            label="When to answer"
            name="answerPolicy"
            error={error}
            hint="How sure the sources must make the assistant before it states an answer. Below that it says it is not sure and links articles that may help, or gives the fallback message."
          >
            {(p) => (
              <select {...p}>
                <option value="strict" selected={agent.answerPolicy === "strict"}>
                  Answer only when sure
                </option>
                <option value="balanced" selected={agent.answerPolicy === "balanced"}>
                  Balanced (recommended)
                </option>
                <option value="lenient" selected={agent.answerPolicy === "lenient"}>
                  Answer more, say when unsure
                </option>
                <option value="always" selected={agent.answerPolicy === "always"}>
                  Always try
                </option>
              </select>
            )}
          </Field>
          <div class="row">
            <Field
              label="Way out for visitors"
              name="handoff.mode"
              error={error}
              hint="Offered with unsure and fallback answers, after a thumbs-down, and as Contact us in the widget."
            >
              {(p) => (
                <select {...p}>
                  <option value="none" selected={agent.handoff.mode === "none"}>
                    None
                  </option>
                  <option value="link" selected={agent.handoff.mode === "link"}>
                    A link (a page or mailto:)
                  </option>
                  <option value="form" selected={agent.handoff.mode === "form"}>
                    A contact form (e-mail and message)
                  </option>
                </select>
              )}
            </Field>
            <Field
              label="Contact link"
              name="handoff.url"
              error={error}
              hint="For a link: https://… or mailto:…"
            >
              {(p) => <input {...p} spellcheck={false} defaultValue={agent.handoff.url ?? ""} />}
            </Field>
          </div>
          <ModelField agent={agent} models={models.value} listFailed={listFailed.value} error={error} />
          <TranslationNotice models={models.value} />
        </fieldset>
        {/* Numbers for tuning search; the defaults suit most sites, so they stay folded away. */}
        <details class="advanced">
          {/* The mode searches really run in is readable with the section folded. */}
          <summary>
            Advanced: how passages are found <span class="summary-note">· searches use {effective}</span>
          </summary>
          <p class="muted">
            Searches run by {effective}
            {agent.effectiveRetrievalMode !== agent.retrieval.mode &&
              ` (this server has no embedding model, so “${modeLabels[agent.retrieval.mode]}” runs as keywords)`}
            .
          </p>
          <div class="row">
            <Field
              label="Passages read per question"
              name="retrieval.topK"
              error={error}
              hint="How many of the best-matching passages the answer is built from (1 to 50)."
            >
              {(p) => (
                <input {...p} type="number" min={1} max={50} defaultValue={String(agent.retrieval.topK)} />
              )}
            </Field>
            <Field
              label="Search by"
              name="retrieval.mode"
              error={error}
              hint={
                embeddings
                  ? "Meaning finds rewordings; keywords find exact terms; both is usually best."
                  : "Matching by meaning needs an embedding model (LORE_EMBEDDING_MODEL), which this server has not."
              }
            >
              {(p) => (
                <select {...p}>
                  {(["hybrid", "keyword", "semantic"] as const).map((mode) => (
                    <option
                      key={mode}
                      value={mode}
                      selected={mode === agent.retrieval.mode}
                      disabled={!embeddings && mode !== "keyword" && mode !== agent.retrieval.mode}
                    >
                      {modeLabels[mode]}
                      {!embeddings && mode !== "keyword" ? " (needs an embedding model)" : ""}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field
              label="Closest match required"
              name="retrieval.minScore"
              error={error}
              hint="From 0 (any passage may be used) to 1 (only near-exact matches); passages below it are ignored."
            >
              {(p) => (
                <input
                  {...p}
                  type="number"
                  min={0}
                  max={1}
                  step={0.01}
                  defaultValue={String(agent.retrieval.minScore)}
                />
              )}
            </Field>
          </div>
        </details>
        <fieldset>
          <legend>Widget theme</legend>
          <div class="row">
            <Field
              label="Primary colour"
              name="theme.primaryColor"
              error={error}
              hint="A hex colour like #2563eb."
              after={
                <input
                  type="color"
                  aria-label="Colour picker"
                  class="picker"
                  value={HEX.test(color.value) ? color.value.toLowerCase() : "#000000"}
                  onInput={(e) => {
                    color.value = e.currentTarget.value;
                  }}
                />
              }
            >
              {(p) => <input {...p} spellcheck={false} {...bindInput(color)} />}
            </Field>
            <Field label="Position" name="theme.position" error={error}>
              {(p) => (
                <select {...p}>
                  <option value="bottom-right" selected={agent.theme.position === "bottom-right"}>
                    Bottom right
                  </option>
                  <option value="bottom-left" selected={agent.theme.position === "bottom-left"}>
                    Bottom left
                  </option>
                </select>
              )}
            </Field>
            <Field label="Colour scheme" name="theme.colorScheme" error={error}>
              {(p) => (
                <select {...p}>
                  <option value="auto" selected={agent.theme.colorScheme === "auto"}>
                    Follow the visitor's system
                  </option>
                  <option value="light" selected={agent.theme.colorScheme === "light"}>
                    Light
                  </option>
                  <option value="dark" selected={agent.theme.colorScheme === "dark"}>
                    Dark
                  </option>
                </select>
              )}
            </Field>
          </div>
          <Field
            label="Title"
            name="theme.title"
            error={error}
            hint="Shown in the widget's header; the agent's name when empty."
          >
            {(p) => <input {...p} maxLength={80} defaultValue={agent.theme.title} />}
          </Field>
          <Field
            label="Launcher label"
            name="theme.launcherLabel"
            error={error}
            hint="Text beside the chat button, like “Ask us”. Empty: the icon alone."
          >
            {(p) => <input {...p} maxLength={40} defaultValue={agent.theme.launcherLabel ?? ""} />}
          </Field>
          <Field
            label="Greeting"
            name="theme.greeting"
            error={error}
            hint="A short line shown beside the chat button once per visit, until the visitor opens or dismisses it. Empty: none."
          >
            {(p) => <input {...p} maxLength={200} defaultValue={agent.theme.greeting ?? ""} />}
          </Field>
        </fieldset>
        <fieldset>
          <legend>Security</legend>
          <Field
            label="Allowed origins"
            name="allowedOrigins"
            error={error}
            hint="One site per line, like https://www.example.com or example.com (http for localhost and 127.0.0.1) — pages elsewhere can't use the widget; Embed lists the sites it was refused on. This server's own origin is no exception; Embed → Preview works without it."
          >
            {(p) => (
              <textarea {...p} rows={3} spellcheck={false} defaultValue={agent.allowedOrigins.join("\n")} />
            )}
          </Field>
        </fieldset>
        <div class="actions">
          <button type="submit" class="primary" disabled={form.busy.value}>
            Save settings
          </button>
          <Status>{saved.value}</Status>
        </div>
      </form>
      <SuggestedQuestionChecks
        checks={checks.value}
        checking={checking.value}
        error={checkError.value}
        onRun={agent.suggestedQuestions.length > 0 ? checkSuggestions : null}
      />
      <DangerZone agent={agent} />
    </>
  );
}

/** Each suggested question's answer, with the fallback and weak ones flagged. */
function SuggestedQuestionChecks(props: {
  checks: SuggestedQuestionCheck[] | null;
  checking: boolean;
  error: unknown;
  onRun: (() => Promise<void>) | null;
}) {
  const { checks, error } = props;
  const flagged = checks?.filter((c) => c.fallback || c.weak).length ?? 0;
  return (
    <section class="checks" aria-labelledby="checks-title" aria-busy={props.checking ? "true" : undefined}>
      <h2 id="checks-title">Suggested questions checked</h2>
      {/* Green only when every question gets a sure answer. */}
      <Status tone={flagged > 0 ? "warn" : "ok"}>
        {props.checking
          ? "Asking the suggested questions…"
          : checks
            ? flagged === 0
              ? checks.length === 1
                ? "The suggested question gets an answer."
                : `All ${checks.length} suggested questions get an answer.`
              : `Suggested questions that need attention: ${flagged} of ${checks.length}.`
            : ""}
      </Status>
      {error instanceof ApiError && error.status === 404 && error.details.resource === "endpoint" ? (
        <p class="empty">This server cannot check suggested questions yet.</p>
      ) : error ? (
        <ErrorBox error={error} />
      ) : null}
      {!checks && !props.checking && (
        <p class="muted">
          Saving the settings asks each suggested question as a visitor would and shows the answer here.
        </p>
      )}
      {checks && (
        <ul class="check-list">
          {checks.map((check) => {
            const verdict = check.fallback ? "fallback" : check.weak ? "weak" : "ok";
            return (
              <li key={check.question} class="suggested-check" data-verdict={verdict}>
                <p class="check-question">
                  <span class={`flag flag-${verdict}`}>
                    {verdict === "fallback" ? "No answer" : verdict === "weak" ? "Weak" : "Answered"}
                  </span>{" "}
                  {check.question}
                </p>
                <Markdown text={check.response} sources={check.sources} />
                <p class="muted meta">
                  {check.correctionId
                    ? "From your correction"
                    : `Best source score ${check.score.toFixed(2)} · ${counted(check.sources.length, "source")}`}
                </p>
              </li>
            );
          })}
        </ul>
      )}
      {props.onRun && !props.checking && (
        <button type="button" class="small" onClick={props.onRun}>
          Check suggested questions again
        </button>
      )}
    </section>
  );
}

function DangerZone(props: { agent: Agent }) {
  const { agent } = props;
  const error = useSignal<unknown>(null);
  const ref = useRef<HTMLButtonElement>(null);
  const remove = async () => {
    if (!confirm(`Delete the agent “${agent.name}”? This cannot be undone.`)) return;
    try {
      await api("DELETE", `/agents/${agent.id}/`);
      agents.value = agents.value.filter((a) => a.id !== agent.id);
      const next = agents.value[0];
      if (next) go(next.id);
      else location.hash = "";
    } catch (caught) {
      error.value = caught;
    }
  };
  return (
    <section class="danger-zone" aria-labelledby="danger-title">
      <h2 id="danger-title">Delete agent</h2>
      <p>Deletes the agent, its conversations and its API keys. Data sources stay in the workspace.</p>
      {error.value ? <ErrorBox error={error.value} /> : null}
      <button type="button" class="danger" ref={ref} onClick={remove}>
        Delete this agent
      </button>
    </section>
  );
}
