// The workspace's model server (#/model): OpenAI or any OpenAI-compatible URL, its key stored
// encrypted by the server; its models listed from it, and one question sent to test one.
import type {
  ModelProvider,
  ModelProviderKind,
  ProviderModels,
  TestModelResponse,
  Workspace,
} from "@lore/shared";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { api } from "../api.ts";
import { bindInput, ErrorBox, Field, FormError, inputValue, Status, useFormState } from "./ui.tsx";
import { WorkspaceScreen } from "./workspace-screen.tsx";

const KINDS: [ModelProviderKind, string][] = [
  ["none", "None: answers quote the sources"],
  ["openai", "OpenAI (api.openai.com)"],
  ["compatible", "An OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp…)"],
];

export function ModelScreen() {
  return (
    <WorkspaceScreen title="Language model">
      {(_me, workspace) => (
        <>
          <p class="muted">
            Without a model, answers are quoted from your sources. Connect one here, then pick it in an
            agent's Settings ("Answers written by").
          </p>
          {workspace && <ProviderSettings key={workspace.id} workspace={workspace} />}
        </>
      )}
    </WorkspaceScreen>
  );
}

function ProviderSettings(props: { workspace: Workspace }) {
  const base = `/workspaces/${props.workspace.id}/model-provider/`;
  const provider = useSignal<ModelProvider | null>(null);
  const loadError = useSignal<unknown>(null);
  const kind = useSignal<ModelProviderKind>("none");
  const baseUrl = useSignal("");
  const apiKey = useSignal("");
  const saved = useSignal("");
  const form = useFormState();
  const canEdit = props.workspace.role === "admin" || props.workspace.role === "owner";
  const show = (found: ModelProvider) => {
    provider.value = found;
    kind.value = found.kind;
    baseUrl.value = found.kind === "compatible" ? (found.baseUrl ?? "") : "";
    apiKey.value = "";
  };
  useEffect(() => {
    api<ModelProvider>("GET", base).then(show, (e) => {
      loadError.value = e;
    });
  }, []);
  if (loadError.value) return <ErrorBox error={loadError.value} />;
  const p = provider.value;
  if (!p) return <p class="loading">Loading…</p>;
  const onSubmit = form.submit(async () => {
    saved.value = "";
    const body = {
      kind: kind.value,
      ...(kind.value === "compatible" ? { baseUrl: baseUrl.value } : {}),
      // Empty keeps the stored key; the server never sends it back whole.
      ...(apiKey.value.trim() ? { apiKey: apiKey.value.trim() } : {}),
    };
    show(await api<ModelProvider>("PUT", base, { body }));
    saved.value = kind.value === "none" ? "Disconnected." : "Saved. Load the models to test one.";
  });
  return (
    <>
      {p.environment && (
        <p class="info" role="note">
          This server's environment sets the model server (LORE_OPENAI_BASE_URL), which wins over the settings
          below: every workspace's agents use it, and the models and test below ask it.
        </p>
      )}
      <form class="card" aria-labelledby="provider-title" noValidate ref={form.ref} onSubmit={onSubmit}>
        <h2 id="provider-title">Model server</h2>
        <FormError error={form.error.value} />
        <fieldset class="filters" disabled={!canEdit}>
          <legend>Provider</legend>
          {KINDS.map(([value, label]) => (
            <span class="radio" key={value}>
              <input
                type="radio"
                id={`provider-${value}`}
                name="kind"
                value={value}
                checked={kind.value === value}
                onChange={() => {
                  kind.value = value;
                }}
              />
              <label for={`provider-${value}`}>{label}</label>
            </span>
          ))}
        </fieldset>
        {kind.value === "compatible" && (
          <Field
            label="Server URL"
            name="baseUrl"
            error={form.error.value}
            hint="Its API base, with /v1: e.g. http://localhost:11434/v1 for Ollama. A server on this machine or your network needs its host in LORE_OUTBOUND_ALLOWLIST."
          >
            {(c) => <input {...c} type="url" required disabled={!canEdit} {...bindInput(baseUrl)} />}
          </Field>
        )}
        {kind.value !== "none" && (
          <Field
            label="API key"
            name="apiKey"
            error={form.error.value}
            hint={
              p.apiKey
                ? `Stored encrypted: ${p.apiKey}. Leave empty to keep it.`
                : "Stored encrypted on the server. Leave empty if the server needs none."
            }
          >
            {(c) => (
              <input {...c} type="password" autocomplete="off" disabled={!canEdit} {...bindInput(apiKey)} />
            )}
          </Field>
        )}
        {canEdit ? (
          <div class="actions">
            <button type="submit" class="primary" disabled={form.busy.value}>
              Save model server
            </button>
          </div>
        ) : (
          <p class="muted">Admins and owners of {props.workspace.name} change the model server.</p>
        )}
        <Status tone="ok">{saved.value}</Status>
      </form>
      {(p.kind !== "none" || p.environment) && props.workspace.role !== "viewer" && (
        <TestModel key={p.updatedAt ?? "environment"} base={base} />
      )}
    </>
  );
}

/** The provider's models, fetched from it, and one question sent to the chosen one. */
function TestModel(props: { base: string }) {
  const models = useSignal<string[] | null>(null);
  const model = useSignal("");
  const question = useSignal("Say hello in five words.");
  const result = useSignal<TestModelResponse | null>(null);
  const listing = useFormState();
  const testing = useFormState();
  const load = listing.submit(async () => {
    const found = await api<ProviderModels>("GET", `${props.base}models/`);
    models.value = found.models;
    model.value = found.models[0] ?? "";
  });
  const onTest = testing.submit(async () => {
    result.value = null;
    result.value = await api<TestModelResponse>("POST", `${props.base}test/`, {
      body: { model: model.value, question: question.value },
    });
  });
  return (
    <section class="card" aria-labelledby="models-title">
      <h2 id="models-title">Models</h2>
      <div class="actions">
        <button type="button" class="small" disabled={listing.busy.value} onClick={load}>
          {models.value ? "Reload the models" : "Load the models"}
        </button>
      </div>
      {listing.error.value !== null && <ErrorBox error={listing.error.value} />}
      {models.value && (
        <Status>
          {models.value.length === 0
            ? "The server lists no chat model."
            : `${models.value.length} model${models.value.length === 1 ? "" : "s"}: pick one in an agent's Settings.`}
        </Status>
      )}
      {models.value && models.value.length > 0 && (
        <form class="test-model" aria-labelledby="test-title" noValidate ref={testing.ref} onSubmit={onTest}>
          <h3 id="test-title">Test a model</h3>
          <Field label="Model" name="model" error={testing.error.value}>
            {(c) => (
              <select
                {...c}
                value={model.value}
                onChange={(e) => {
                  model.value = inputValue(e);
                }}
              >
                {models.value?.map((id) => (
                  <option key={id} value={id}>
                    {id}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Question" name="question" error={testing.error.value}>
            {(c) => <input {...c} maxLength={500} {...bindInput(question)} />}
          </Field>
          <div class="actions">
            <button type="submit" class="primary" disabled={testing.busy.value}>
              Test
            </button>
          </div>
          {testing.error.value !== null && <ErrorBox error={testing.error.value} />}
          {result.value && (
            <div class="test-answer" data-testid="test-answer">
              <p class="muted">
                {result.value.model.replace(/^openai:/, "")} answered in {result.value.latencyMs} ms:
              </p>
              <blockquote>{result.value.answer || "(an empty answer)"}</blockquote>
            </div>
          )}
        </form>
      )}
    </section>
  );
}
