import type { Agent, ApiKey, Page } from "@lore/shared";
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import { api } from "../api.ts";
import {
  bindInput,
  CopyButton,
  ErrorBox,
  Field,
  FormError,
  Status,
  Table,
  TimeAgo,
  useFormState,
} from "./ui.tsx";

type CreatedKey = ApiKey & { key: string };

export function KeysTab(props: { agent: Agent }) {
  const { agent } = props;
  const keys = useSignal<Page<ApiKey> | null>(null);
  const listError = useSignal<unknown>(null);
  const status = useSignal("");
  const name = useSignal("Server key");
  const created = useSignal<CreatedKey | null>(null);
  const copyStatus = useSignal("");
  const form = useFormState();
  const nameInput = useRef<HTMLInputElement>(null);
  const reveal = useRef<HTMLElement>(null);

  const load = async () => {
    try {
      keys.value = await api<Page<ApiKey>>("GET", `/agents/${agent.id}/api-keys/`);
      listError.value = null;
    } catch (error) {
      listError.value = error;
    }
  };
  useEffect(() => {
    void load();
  }, []);
  useEffect(() => {
    if (created.value) reveal.current?.focus();
  }, [created.value]);

  const onSubmit = form.submit(async () => {
    created.value = await api<CreatedKey>("POST", `/agents/${agent.id}/api-keys/`, {
      body: { name: name.value },
    });
    copyStatus.value = "";
    await load();
  });
  const revoke = async (key: ApiKey) => {
    if (!confirm(`Revoke the key “${key.name}”? Programs using it stop working at once.`)) return;
    try {
      await api("DELETE", `/agents/${agent.id}/api-keys/${key.id}/`);
      status.value = `Key “${key.name}” revoked.`;
      await load();
    } catch (error) {
      listError.value = error;
    }
  };

  return (
    <>
      <form class="card" aria-labelledby="new-key-title" noValidate ref={form.ref} onSubmit={onSubmit}>
        <h2 id="new-key-title">New API key</h2>
        <p class="muted">
          A key gives full access to this agent only (settings, questions, conversations, analytics). Keep it
          on your server.
        </p>
        <FormError error={form.error.value} />
        <Field label="Key name" name="name" error={form.error.value}>
          {(p) => <input {...p} ref={nameInput} maxLength={100} {...bindInput(name)} />}
        </Field>
        <div class="actions">
          <button type="submit" class="primary" disabled={form.busy.value}>
            Create key
          </button>
        </div>
      </form>
      {created.value && (
        <section class="key-reveal" aria-labelledby="key-reveal-title" tabIndex={-1} ref={reveal}>
          <h3 id="key-reveal-title">Your new key “{created.value.name}”</h3>
          <p class="warning">Copy it now: it is shown only once and cannot be recovered.</p>
          <code class="secret" data-secret="api-key">
            {created.value.key}
          </code>
          <div class="actions">
            <CopyButton text={created.value.key} label="Copy key" status={copyStatus} class="primary" />
            <button
              type="button"
              onClick={() => {
                created.value = null;
                nameInput.current?.focus();
              }}
            >
              I have stored it
            </button>
            <Status>{copyStatus.value}</Status>
          </div>
        </section>
      )}
      <Status>{status.value}</Status>
      <div class="keys">
        {listError.value ? <ErrorBox error={listError.value} /> : null}
        {keys.value && (
          <Table
            caption={`Keys (${keys.value.count})`}
            headers={["Name", "Key", "Created", "Last used", ""]}
            rows={keys.value.results.map((key) => [
              key.name,
              <code key="p">{key.prefix}…</code>,
              <TimeAgo key="c" iso={key.createdAt} />,
              <TimeAgo key="u" iso={key.lastUsedAt} />,
              <button
                key="r"
                type="button"
                class="small danger"
                aria-label={`Revoke ${key.name}`}
                onClick={() => revoke(key)}
              >
                Revoke
              </button>,
            ])}
          />
        )}
      </div>
    </>
  );
}
