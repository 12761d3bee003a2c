import type { Agent, DataSource, Page, SourceDocument, SyncRun } from "@lore/shared";
import { useSignal } from "@preact/signals";
import { useEffect, useId, useRef } from "preact/hooks";
import { api, listAll } from "../api.ts";
import { counted } from "../messages.ts";
import { agent as currentAgent, openAgent, patchAgent } from "../state.ts";
import { dropProps, FileTools, nameFromFile, TextEntries, useLimitText } from "./source-edit.tsx";
import { excludePage, pageRule, SourceSettings } from "./source-settings.tsx";
import { Badge, ErrorBox, Field, FormError, Status, Table, TimeAgo, useFormState } from "./ui.tsx";

const syncing = (s: DataSource) => s.status === "queued" || s.status === "syncing";

export function SourcesTab(props: { agent: Agent }) {
  const { agent } = props;
  const sources = useSignal<DataSource[] | null>(null);
  const listError = useSignal<unknown>(null);
  const status = useSignal("");
  /** The source just added: the status line follows its sync until it is ready or failed. */
  const added = useSignal<string | null>(null);
  /** Open "documents and history" panels by source id, kept across refreshes. */
  const open = useRef(new Set<string>());
  const timer = useRef(0);

  const refresh = async () => {
    if (timer.current < 0) return;
    clearTimeout(timer.current);
    try {
      sources.value = await listAll<DataSource>(`/data-sources/?workspace_id=${agent.workspaceId}`);
      listError.value = null;
    } catch (error) {
      listError.value = error;
      return;
    }
    // Watch the sync: poll while anything is queued or syncing, and keep the agent's status current.
    if (timer.current < 0) return;
    if (sources.value.some(syncing) || currentAgent.peek()?.status === "processing") {
      timer.current = window.setTimeout(async () => {
        await openAgent(agent.id);
        await refresh();
      }, 1000);
    }
  };
  useEffect(() => {
    void refresh();
    return () => {
      clearTimeout(timer.current);
      timer.current = -1;
    };
  }, []);

  const attached = new Set(currentAgent.value?.dataSourceIds ?? agent.dataSourceIds);
  return (
    <>
      <h2>Knowledge</h2>
      <p class="muted">
        Tick the sources this agent answers from. Sources belong to the workspace, so agents can share them.
      </p>
      <Status>{addedStatus(sources.value?.find((s) => s.id === added.value)) ?? status.value}</Status>
      <div class="source-list">
        {listError.value ? <ErrorBox error={listError.value} /> : null}
        {sources.value?.length === 0 && (
          <p class="empty">This workspace has no data sources yet. Add one below.</p>
        )}
        {sources.value && sources.value.length > 0 && (
          <ul class="sources" aria-label="Data sources">
            {sources.value.map((source) => (
              <SourceRow
                key={source.id}
                agent={agent}
                source={source}
                attached={attached.has(source.id)}
                open={open.current}
                say={(text) => {
                  added.value = null;
                  status.value = text;
                }}
                refresh={refresh}
              />
            ))}
          </ul>
        )}
      </div>
      <AddSourceForm
        agent={agent}
        onCreated={async (created) => {
          status.value = `“${created.name}” added; syncing now.`;
          added.value = created.id;
          await refresh();
        }}
      />
    </>
  );
}

/** What a just-added source is doing, in words that follow its real state. */
function addedStatus(source: DataSource | undefined): string | null {
  if (!source) return null;
  if (syncing(source)) return `“${source.name}” added; syncing now.`;
  if (source.status === "failed")
    // The server's reason ends its own sentence (and says what to do).
    return `“${source.name}” could not be synced: ${(source.lastError ?? "see below").replace(/\.$/, "")}.`;
  return `“${source.name}” is ready: ${counted(source.documentCount, "document")}, ${counted(source.chunkCount, "chunk")}.`;
}

function SourceRow(props: {
  agent: Agent;
  source: DataSource;
  attached: boolean;
  open: Set<string>;
  say: (text: string) => void;
  refresh: () => Promise<void>;
}) {
  const { agent, source } = props;
  const action = useFormState();
  const error = action.error;
  const busy = action.busy;
  const checkId = `use-${source.id}`;
  const run = (work: () => Promise<void>) => action.submit(work)();
  const toggle = (on: boolean) =>
    run(async () => {
      const ids = new Set(currentAgent.peek()?.dataSourceIds ?? agent.dataSourceIds);
      if (on) ids.add(source.id);
      else ids.delete(source.id);
      await patchAgent(agent.id, { dataSourceIds: [...ids] });
      props.say(
        on
          ? `“${source.name}” is now used by this agent.`
          : `“${source.name}” is no longer used by this agent.`,
      );
    });
  const sync = () =>
    run(async () => {
      await api("POST", `/data-sources/${source.id}/sync/`);
      props.say(`Sync of “${source.name}” queued.`);
      await props.refresh();
    });
  const remove = () => {
    if (!confirm(`Delete the data source “${source.name}” and everything indexed from it?`)) return;
    return run(async () => {
      await api("DELETE", `/data-sources/${source.id}/`);
      props.say(`“${source.name}” deleted.`);
      await openAgent(agent.id);
      await props.refresh();
    });
  };
  const { total, processed } = source.progress;
  const isOpen = useSignal(props.open.has(source.id));
  return (
    <li class="source-row" data-source-id={source.id} data-status={source.status}>
      <div class="source-main">
        <input
          type="checkbox"
          id={checkId}
          checked={props.attached}
          disabled={busy.value}
          onChange={(e) => toggle(e.currentTarget.checked)}
        />
        <label for={checkId} class="source-name">
          {source.name}
          <span class="sr-only"> — use in this agent</span>
        </label>
        <span class="type">{source.type}</span>
        <Badge status={source.status} />
        {syncing(source) && (
          <span class="progress">
            <progress
              max={Math.max(total, 1)}
              value={processed}
              aria-label={`Sync progress of ${source.name}`}
            />
            <span>{total > 0 ? `${processed} / ${total}` : "starting…"}</span>
          </span>
        )}
      </div>
      <p class="muted counts">
        {counted(source.documentCount, "document")} · {counted(source.chunkCount, "chunk")} · last synced{" "}
        <TimeAgo iso={source.lastSyncedAt} />
      </p>
      {source.lastError && <p class="source-error">Last error: {source.lastError}</p>}
      {error.value ? <ErrorBox error={error.value} /> : null}
      <div class="row-actions">
        <button type="button" class="small" disabled={busy.value || syncing(source)} onClick={sync}>
          Sync now
        </button>
        <button type="button" class="small danger" disabled={busy.value} onClick={remove}>
          Delete
        </button>
      </div>
      <details class="source-settings">
        <summary>Settings</summary>
        <SourceSettings
          source={source}
          changed={async (text) => {
            props.say(text);
            await props.refresh();
          }}
        />
      </details>
      <details
        class="source-more"
        open={isOpen.value}
        onToggle={(e) => {
          const now = e.currentTarget.open;
          isOpen.value = now;
          if (now) props.open.add(source.id);
          else props.open.delete(source.id);
        }}
      >
        <summary>{MORE_LABELS[source.type] ?? "Documents and sync history"}</summary>
        {isOpen.value && (
          <SourceMore
            source={source}
            changed={async (text) => {
              props.say(text);
              await props.refresh();
            }}
          />
        )}
      </details>
    </li>
  );
}

/** What a source's second disclosure holds, by type: where its entries or files are edited. */
const MORE_LABELS: Record<string, string> = {
  text: "Entries (edit, add, delete), documents and sync history",
  file: "Files (add, replace, delete), documents and sync history",
  web: "Pages (leave one out) and sync history",
};

function SourceMore(props: { source: DataSource; changed: (text: string) => Promise<void> }) {
  const { source } = props;
  const version = useSignal(0);
  const changed = async (text: string) => {
    version.value += 1;
    await props.changed(text);
  };
  const data = useSignal<{ docs: Page<SourceDocument>; runs: Page<SyncRun> } | null>(null);
  const error = useSignal<unknown>(null);
  useEffect(() => {
    void (async () => {
      try {
        const [docs, runs] = await Promise.all([
          api<Page<SourceDocument>>("GET", `/data-sources/${source.id}/documents/?page_size=50`),
          api<Page<SyncRun>>("GET", `/data-sources/${source.id}/syncs/?page_size=10`),
        ]);
        data.value = { docs, runs };
      } catch (caught) {
        error.value = caught;
      }
    })();
  }, [source.updatedAt, source.status, version.value]);
  if (error.value) return <ErrorBox error={error.value} />;
  if (!data.value) return <p class="loading">Loading…</p>;
  const { docs, runs } = data.value;
  return (
    <div class="more-body">
      {source.type === "text" && <TextEntries source={source} changed={changed} />}
      {source.type === "file" && <FileTools source={source} docs={docs.results} changed={changed} />}
      <Table
        caption={`Documents (${docs.count})`}
        headers={["Title", "Kind", "Status", "Chunks", "Sections", ...(source.type === "web" ? [""] : [])]}
        rows={docs.results.map((d) => [
          d.sourceUrl && /^https?:\/\//.test(d.sourceUrl) ? (
            <a href={d.sourceUrl} rel="noopener noreferrer" target="_blank">
              {d.title}
            </a>
          ) : (
            d.title
          ),
          d.kind,
          d.error ? `${d.status}: ${d.error}` : d.status,
          String(d.chunkCount),
          d.sections && d.sections.length > 0 ? (
            <ul class="sections">
              {d.sections.map((title) => (
                <li key={title}>{title}</li>
              ))}
            </ul>
          ) : (
            "—"
          ),
          ...(source.type === "web" && d.sourceUrl
            ? [
                <button
                  key="x"
                  type="button"
                  class="small ghost"
                  aria-label={`Leave out ${d.title}`}
                  onClick={async () => {
                    if (!d.sourceUrl) return;
                    await excludePage(source, d.sourceUrl);
                    await changed(`${pageRule(d.sourceUrl)} is left out; a sync is queued.`);
                  }}
                >
                  Leave out
                </button>,
              ]
            : []),
        ])}
      />
      <Table
        caption="Sync history"
        headers={[
          "Queued",
          "Trigger",
          "Status",
          "Added",
          "Updated",
          "Removed",
          "Unchanged",
          "Failed",
          "Duration",
        ]}
        rows={runs.results.map((r) => [
          <TimeAgo key="q" iso={r.queuedAt} />,
          r.trigger,
          r.error ? `${r.status}: ${r.error}` : r.status,
          String(r.added),
          String(r.updated),
          String(r.removed),
          String(r.unchanged),
          String(r.failed),
          r.durationMs === null ? "—" : `${(r.durationMs / 1000).toFixed(1)} s`,
        ])}
      />
    </div>
  );
}

const KINDS = [
  ["text", "Text"],
  ["web", "Web address"],
  ["file", "Upload files"],
  ["notion", "Notion"],
] as const;
type Kind = (typeof KINDS)[number][0];

/** The "add a data source" form: text entries, a web address, files (multipart) or Notion pages. */
function AddSourceForm(props: { agent: Agent; onCreated: (created: DataSource) => Promise<void> }) {
  const form = useFormState();
  const kind = useSignal<Kind>("text");
  const entries = useSignal([0]);
  const attach = useSignal(true);
  const attachId = useId();
  const kindName = useId();
  // Bumped after a source is added: the fields start empty again, with the kind still selected.
  const generation = useSignal(0);
  const over = useSignal(false);
  const limitText = useLimitText();
  /** The name field follows the first file until the owner types a name of their own. */
  const nameFromFiles = (files: readonly File[]) => {
    const input = form.ref.current?.elements.namedItem("name");
    const first = files[0];
    if (!(input instanceof HTMLInputElement) || !first) return;
    if (!input.value.trim() || input.dataset.fromFile === "1") {
      input.value = nameFromFile(first.name);
      input.dataset.fromFile = "1";
    }
  };
  const dropped = (files: File[]) => {
    const input = form.ref.current?.elements.namedItem("files");
    if (!(input instanceof HTMLInputElement)) return;
    const transfer = new DataTransfer();
    for (const f of files) transfer.items.add(f);
    input.files = transfer.files;
    nameFromFiles(files);
  };

  const onSubmit = form.submit(async () => {
    const element = form.ref.current;
    if (!element) return;
    const data = new FormData(element);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    const ids = (name: string) =>
      text(name)
        .split(/[\s,]+/)
        .filter(Boolean);
    let body: unknown;
    switch (kind.value) {
      case "file": {
        const upload = new FormData();
        upload.set("name", text("name"));
        upload.set("type", "file");
        for (const file of data.getAll("files"))
          if (file instanceof File && file.name) upload.append("files", file);
        body = upload;
        break;
      }
      case "web":
        body = {
          name: text("name"),
          type: "web",
          config: {
            url: text("config.url"),
            mode: text("config.mode"),
            maxPages: Number(text("config.maxPages")),
            maxDepth: Number(text("config.maxDepth")),
          },
        };
        break;
      case "notion":
        body = {
          name: text("name"),
          type: "notion",
          config: {
            token: text("config.token"),
            rootPageIds: ids("config.rootPageIds"),
            databaseIds: ids("config.databaseIds"),
          },
        };
        break;
      case "text":
        body = {
          name: text("name"),
          type: "text",
          config: {
            entries: entries.value.map((_, i) => ({
              title: String(data.get(`config.entries.${i}.title`) ?? ""),
              content: String(data.get(`config.entries.${i}.content`) ?? ""),
            })),
          },
        };
        break;
      default:
        kind.value satisfies never;
    }
    const created = await api<DataSource>("POST", "/data-sources/", { body });
    if (attach.value) {
      const current = currentAgent.peek()?.dataSourceIds ?? props.agent.dataSourceIds;
      await patchAgent(props.agent.id, { dataSourceIds: [...new Set([...current, created.id])] });
    }
    // Remounted rather than form.reset(): a reset form would leave no kind chosen.
    generation.value += 1;
    entries.value = [0];
    attach.value = true;
    await props.onCreated(created);
  });

  const error = form.error.value;
  return (
    <form
      class="card add-source"
      aria-labelledby="add-source-title"
      noValidate
      ref={form.ref}
      onSubmit={onSubmit}
    >
      <h2 id="add-source-title">Add a data source</h2>
      <FormError error={error} />
      <div class="fields" key={generation.value}>
        <Field label="Name" name="name" error={error}>
          {(p) => (
            <input
              {...p}
              required
              maxLength={200}
              onInput={(e) => {
                delete e.currentTarget.dataset.fromFile;
              }}
            />
          )}
        </Field>
        <fieldset class="kinds">
          <legend>Kind</legend>
          {KINDS.map(([value, label]) => (
            <span class="radio" key={value}>
              <input
                type="radio"
                name={kindName}
                id={`${kindName}-${value}`}
                value={value}
                checked={kind.value === value}
                onChange={() => {
                  kind.value = value;
                }}
              />
              <label for={`${kindName}-${value}`}>{label}</label>
            </span>
          ))}
        </fieldset>
        {kind.value === "text" && (
          <div class="kind-part" data-kind="text">
            {entries.value.map((n, i) => (
              <fieldset class="entry" key={n}>
                <legend>Entry {i + 1}</legend>
                <Field label="Title" name={`config.entries.${i}.title`} error={error}>
                  {(p) => <input {...p} required />}
                </Field>
                <Field label="Content" name={`config.entries.${i}.content`} error={error}>
                  {(p) => <textarea {...p} rows={5} required />}
                </Field>
              </fieldset>
            ))}
            <button
              type="button"
              class="small"
              onClick={() => {
                entries.value = [...entries.value, entries.value.length];
              }}
            >
              Add another entry
            </button>
          </div>
        )}
        {kind.value === "web" && (
          <div class="kind-part" data-kind="web">
            <Field
              label="Address"
              name="config.url"
              error={error}
              hint="robots.txt is honoured; private and local addresses are refused."
            >
              {(p) => <input {...p} type="url" placeholder="https://docs.example.com/" />}
            </Field>
            <div class="row">
              <Field label="Mode" name="config.mode" error={error}>
                {(p) => (
                  <select {...p} defaultValue="page">
                    <option value="page">This page only</option>
                    <option value="sitemap">Pages of a sitemap</option>
                    <option value="crawl">Crawl links from this page</option>
                  </select>
                )}
              </Field>
              <Field label="Max pages" name="config.maxPages" error={error}>
                {(p) => <input {...p} type="number" min={1} max={10000} defaultValue="100" />}
              </Field>
              <Field label="Max depth" name="config.maxDepth" error={error}>
                {(p) => <input {...p} type="number" min={0} max={10} defaultValue="2" />}
              </Field>
            </div>
          </div>
        )}
        {kind.value === "file" && (
          <div
            class={`kind-part drop-zone${over.value ? " drop-over" : ""}`}
            data-kind="file"
            {...dropProps(dropped, over)}
          >
            <Field label="Files (or drop them here)" name="files" error={error} hint={limitText}>
              {(p) => (
                <input
                  {...p}
                  type="file"
                  multiple
                  accept=".pdf,.docx,.md,.markdown,.html,.htm,.txt,.csv"
                  onChange={(e) => nameFromFiles([...(e.currentTarget.files ?? [])])}
                />
              )}
            </Field>
          </div>
        )}
        {kind.value === "notion" && (
          <div class="kind-part" data-kind="notion">
            <Field
              label="Integration token"
              name="config.token"
              error={error}
              hint="An internal integration's secret; share the pages with that integration in Notion."
            >
              {(p) => <input {...p} type="password" autocomplete="off" spellcheck={false} />}
            </Field>
            <Field
              label="Page ids"
              name="config.rootPageIds"
              error={error}
              hint="Separated by spaces or commas."
            >
              {(p) => <input {...p} spellcheck={false} />}
            </Field>
            <Field label="Database ids" name="config.databaseIds" error={error}>
              {(p) => <input {...p} spellcheck={false} />}
            </Field>
          </div>
        )}
        <div class="check">
          <input
            type="checkbox"
            id={attachId}
            checked={attach.value}
            onChange={(e) => {
              attach.value = e.currentTarget.checked;
            }}
          />
          <label for={attachId}>Use it in this agent</label>
        </div>
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy.value}>
          Add source
        </button>
      </div>
    </form>
  );
}
