// Editing a source where it is shown: a text source's entries, an upload source's files.
import type { DataSource, Page, SourceDocument, StoredTextEntry, UploadLimits } from "@lore/shared";
import { signal, useSignal } from "@preact/signals";
import { useEffect, useId } from "preact/hooks";
import { api } from "../api.ts";
import { counted } from "../messages.ts";
import { bindInput, ErrorBox, Status } from "./ui.tsx";

/** The server's upload limits, read once per console load. */
const limits = signal<UploadLimits | null>(null);
let limitsAsked = false;
export function useUploadLimits(): UploadLimits | null {
  useEffect(() => {
    if (limitsAsked) return;
    limitsAsked = true;
    api<UploadLimits>("GET", "/data-sources/limits/").then(
      (l) => {
        limits.value = l;
      },
      () => {
        limitsAsked = false;
      },
    );
  }, []);
  return limits.value;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return counted(n, "byte");
}

/** "Up to 25 MB per upload: .pdf, .docx, …" once the limits are known. */
export function useLimitText(): string {
  const l = useUploadLimits();
  if (!l) return "PDF, DOCX, Markdown, HTML, TXT or CSV.";
  return `Up to ${formatBytes(l.maxUploadBytes)} per upload: ${l.supportedExtensions.join(", ")}.`;
}

export function LimitHint() {
  return <>{useLimitText()}</>;
}

/** A file name without its extension, as a source name ("pricing-2024.md" → "pricing-2024"). */
export function nameFromFile(fileName: string): string {
  return fileName.replace(/\.[^.]+$/, "").trim() || fileName;
}

/** Files dropped on an element; the drag is accepted only when it carries files. */
export function dropProps(onFiles: (files: File[]) => void, over: { value: boolean }) {
  const hasFiles = (e: DragEvent) => [...(e.dataTransfer?.types ?? [])].includes("Files");
  return {
    onDragOver: (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      over.value = true;
    },
    onDragLeave: () => {
      over.value = false;
    },
    onDrop: (e: DragEvent) => {
      over.value = false;
      const files = [...(e.dataTransfer?.files ?? [])];
      if (files.length === 0) return;
      e.preventDefault();
      onFiles(files);
    },
  };
}

/** An upload source's files: add more (picker or drop), replace one, remove one. */
export function FileTools(props: {
  source: DataSource;
  docs: SourceDocument[];
  changed: (text: string) => Promise<void>;
}) {
  const { source } = props;
  const busy = useSignal(false);
  const error = useSignal<unknown>(null);
  const over = useSignal(false);
  const inputId = useId();
  const run = async (work: () => Promise<string>) => {
    busy.value = true;
    error.value = null;
    try {
      await props.changed(await work());
    } catch (caught) {
      error.value = caught;
    } finally {
      busy.value = false;
    }
  };
  const add = (files: File[]) =>
    run(async () => {
      const body = new FormData();
      for (const f of files) body.append("files", f);
      await api("POST", `/data-sources/${source.id}/files/`, { body });
      return `${files.length === 1 ? "1 file" : `${files.length} files`} added to “${source.name}”; indexing.`;
    });
  const replace = (doc: SourceDocument, file: File) =>
    run(async () => {
      const body = new FormData();
      body.append("file", file);
      await api("PUT", `/data-sources/${source.id}/files/${doc.id}/`, { body });
      return `“${doc.title}” replaced by ${file.name}; indexing.`;
    });
  const remove = (doc: SourceDocument) => {
    if (!confirm(`Remove “${doc.title}” from “${source.name}”?`)) return;
    return run(async () => {
      await api("DELETE", `/data-sources/${source.id}/files/${doc.id}/`);
      return `“${doc.title}” removed.`;
    });
  };
  return (
    <div class={`file-tools${over.value ? " drop-over" : ""}`} {...dropProps(add, over)}>
      {error.value ? <ErrorBox error={error.value} /> : null}
      <label for={inputId}>Add files (or drop them here)</label>
      <input
        id={inputId}
        type="file"
        multiple
        disabled={busy.value}
        onChange={(e) => {
          const files = [...(e.currentTarget.files ?? [])];
          e.currentTarget.value = "";
          if (files.length > 0) void add(files);
        }}
      />
      <p class="hint">
        <LimitHint />
      </p>
      <ul class="file-list" aria-label={`Files of ${source.name}`}>
        {props.docs.map((doc) => (
          <li key={doc.id} class="file-item">
            <span class="file-title">{doc.title}</span>
            <label class="small button-like">
              Replace<span class="sr-only"> {doc.title}</span>
              <input
                type="file"
                class="sr-only"
                disabled={busy.value}
                onChange={(e) => {
                  const file = e.currentTarget.files?.[0];
                  e.currentTarget.value = "";
                  if (file) void replace(doc, file);
                }}
              />
            </label>
            <button type="button" class="small danger" disabled={busy.value} onClick={() => remove(doc)}>
              Remove<span class="sr-only"> {doc.title}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A text source's entries: search by title or content, edit, add, remove. */
export function TextEntries(props: { source: DataSource; changed: (text: string) => Promise<void> }) {
  const { source } = props;
  const entries = useSignal<StoredTextEntry[] | null>(null);
  const count = useSignal(0);
  const query = useSignal("");
  const editing = useSignal<string | null>(null);
  const error = useSignal<unknown>(null);
  const status = useSignal("");
  const searchId = useId();
  const load = async () => {
    try {
      const page = await api<Page<StoredTextEntry>>(
        "GET",
        `/data-sources/${source.id}/entries/?page_size=100`,
      );
      entries.value = page.results;
      count.value = page.count;
    } catch (caught) {
      error.value = caught;
    }
  };
  useEffect(() => {
    void load();
  }, [source.id]);
  const save = async (key: string | null, form: HTMLFormElement) => {
    const data = new FormData(form);
    const title = String(data.get("title") ?? "").trim();
    const content = String(data.get("content") ?? "");
    error.value = null;
    try {
      const entryKey = key ?? `${title}-${Date.now().toString(36)}`;
      await api("PUT", `/data-sources/${source.id}/entries/${encodeURIComponent(entryKey)}/`, {
        body: { title, content },
      });
      editing.value = null;
      const text = key ? `“${title}” saved; indexing.` : `“${title}” added; indexing.`;
      status.value = text;
      if (!key) form.reset();
      await load();
      await props.changed(text);
    } catch (caught) {
      error.value = caught;
    }
  };
  const remove = async (entry: StoredTextEntry) => {
    if (!confirm(`Remove the entry “${entry.title}”?`)) return;
    error.value = null;
    try {
      await api("DELETE", `/data-sources/${source.id}/entries/${encodeURIComponent(entry.key)}/`);
      status.value = `“${entry.title}” removed.`;
      await load();
      await props.changed(status.value);
    } catch (caught) {
      error.value = caught;
    }
  };
  const q = query.value.trim().toLowerCase();
  const shown = (entries.value ?? []).filter(
    (e) => !q || e.title.toLowerCase().includes(q) || e.content.toLowerCase().includes(q),
  );
  return (
    <section class="entries" aria-label={`Entries of ${source.name}`}>
      <h3>Entries ({count.value})</h3>
      <Status>{status.value}</Status>
      {error.value ? <ErrorBox error={error.value} /> : null}
      <label for={searchId}>Search entries</label>
      <input id={searchId} type="search" {...bindInput(query)} />
      {count.value > 100 && <p class="hint">The first 100 entries are listed; search to narrow them.</p>}
      <ul class="entry-list">
        {shown.map((entry) => (
          <li key={entry.key} class="entry-item" data-entry-key={entry.key}>
            {editing.value === entry.key ? (
              <EntryForm
                entry={entry}
                onSave={(form) => save(entry.key, form)}
                onCancel={() => {
                  editing.value = null;
                }}
              />
            ) : (
              <>
                <strong class="entry-title">{entry.title}</strong>
                <span class="muted"> · {entry.status}</span>
                <p class="entry-content">{entry.content}</p>
                <button
                  type="button"
                  class="small"
                  onClick={() => {
                    editing.value = entry.key;
                  }}
                >
                  Edit<span class="sr-only"> {entry.title}</span>
                </button>
                <button type="button" class="small danger" onClick={() => remove(entry)}>
                  Remove<span class="sr-only"> {entry.title}</span>
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
      <details class="new-entry">
        <summary>Add an entry</summary>
        <EntryForm onSave={(form) => save(null, form)} />
      </details>
    </section>
  );
}

function EntryForm(props: {
  entry?: StoredTextEntry;
  onSave: (form: HTMLFormElement) => Promise<void>;
  onCancel?: () => void;
}) {
  const id = useId();
  const { entry } = props;
  return (
    <form
      class="entry-form"
      onSubmit={(e) => {
        e.preventDefault();
        void props.onSave(e.currentTarget);
      }}
    >
      <label for={`${id}-t`}>Title</label>
      <input id={`${id}-t`} name="title" required maxLength={500} defaultValue={entry?.title ?? ""} />
      <label for={`${id}-c`}>Content</label>
      <textarea id={`${id}-c`} name="content" rows={5} required defaultValue={entry?.content ?? ""} />
      <div class="row-actions">
        <button type="submit" class="small primary">
          {entry ? "Save entry" : "Add entry"}
        </button>
        {props.onCancel && (
          <button type="button" class="small" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
