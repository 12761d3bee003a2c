// A source's settings after creation: its name, a website's mode, page limit, depth and page rules
// (with a preview of the pages the rules keep), and the sync schedule. Saving a website's settings
// queues a sync (the server does, on a changed config).
import type { DataSource, RulesPreview } from "@lore/shared";
import { useSignal } from "@preact/signals";
import { api } from "../api.ts";
import { counted } from "../messages.ts";
import { bindInput, Field, FormError, inputValue, Status, splitLines, useFormState } from "./ui.tsx";

const MODES: [string, string][] = [
  ["page", "This page only"],
  ["sitemap", "The pages its sitemap lists"],
  ["crawl", "Follow links from this page"],
];

const SCHEDULES: [string, string][] = [
  ["", "Only when I sync"],
  ["60", "Every hour"],
  ["1440", "Every day"],
  ["10080", "Every week"],
];

interface WebSettings {
  url: string;
  mode: string;
  maxPages: number;
  maxDepth: number;
  include: string[];
  exclude: string[];
}

function webSettings(source: DataSource): WebSettings {
  const c = source.config;
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  return {
    url: String(c.url ?? ""),
    mode: String(c.mode ?? "page"),
    maxPages: Number(c.maxPages ?? 100),
    maxDepth: Number(c.maxDepth ?? 2),
    include: list(c.include),
    exclude: list(c.exclude),
  };
}

/** The page rule that leaves out exactly one page: its path (and query), as a website's `exclude` takes it. */
export function pageRule(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/** Adds `rule` to a website source's exclude rules and saves (the server queues a sync). */
export async function excludePage(source: DataSource, url: string): Promise<DataSource> {
  const web = webSettings(source);
  const rule = pageRule(url);
  const exclude = web.exclude.includes(rule) ? web.exclude : [...web.exclude, rule];
  return api<DataSource>("PATCH", `/data-sources/${source.id}/`, {
    body: { config: { ...web, exclude } },
  });
}

export function SourceSettings(props: { source: DataSource; changed: (text: string) => Promise<void> }) {
  const { source } = props;
  const web = source.type === "web" ? webSettings(source) : null;
  const name = useSignal(source.name);
  const mode = useSignal(web?.mode ?? "page");
  const maxPages = useSignal(String(web?.maxPages ?? 100));
  const maxDepth = useSignal(String(web?.maxDepth ?? 2));
  const include = useSignal(web?.include.join("\n") ?? "");
  const exclude = useSignal(web?.exclude.join("\n") ?? "");
  const schedule = useSignal(source.schedule ? String(source.schedule.intervalMinutes) : "");
  const preview = useSignal<RulesPreview | null>(null);
  const form = useFormState();
  const previewing = useFormState();
  const saved = useSignal("");
  const id = `settings-${source.id}`;

  const onSubmit = form.submit(async () => {
    saved.value = "";
    const body: Record<string, unknown> = {
      name: name.value,
      schedule: schedule.value ? { intervalMinutes: Number(schedule.value) } : null,
    };
    if (web)
      body.config = {
        url: web.url,
        mode: mode.value,
        maxPages: Number(maxPages.value),
        maxDepth: Number(maxDepth.value),
        include: splitLines(include.value),
        exclude: splitLines(exclude.value),
      };
    await api<DataSource>("PATCH", `/data-sources/${source.id}/`, { body });
    saved.value = web ? "Saved. A sync with the new settings is queued." : "Saved.";
    await props.changed(`“${name.value}” saved.`);
  });
  const onPreview = previewing.submit(async () => {
    preview.value = await api<RulesPreview>("POST", `/data-sources/${source.id}/rules-preview/`, {
      body: { include: splitLines(include.value), exclude: splitLines(exclude.value) },
    });
  });
  return (
    <form
      class="source-settings-form"
      aria-label={`Settings of ${source.name}`}
      noValidate
      ref={form.ref}
      onSubmit={onSubmit}
    >
      <FormError error={form.error.value} />
      <Field label="Name" name="name" error={form.error.value}>
        {(p) => <input {...p} required maxLength={200} {...bindInput(name)} />}
      </Field>
      {web && (
        <>
          <p class="muted">
            Site: <code>{web.url}</code>
          </p>
          <fieldset class="filters">
            <legend>Read</legend>
            {MODES.map(([value, label]) => (
              <span class="radio" key={value}>
                <input
                  type="radio"
                  id={`${id}-mode-${value}`}
                  name={`${id}-mode`}
                  value={value}
                  checked={mode.value === value}
                  onChange={() => {
                    mode.value = value;
                  }}
                />
                <label for={`${id}-mode-${value}`}>{label}</label>
              </span>
            ))}
          </fieldset>
          <Field label="At most this many pages" name="config.maxPages" error={form.error.value}>
            {(p) => <input {...p} type="number" min={1} max={10000} {...bindInput(maxPages)} />}
          </Field>
          <Field label="Links followed at most this deep" name="config.maxDepth" error={form.error.value}>
            {(p) => <input {...p} type="number" min={0} max={10} {...bindInput(maxDepth)} />}
          </Field>
          <Field
            label="Only pages matching (one per line)"
            name="config.include"
            error={form.error.value}
            hint="A path like /docs/** or a whole address; empty keeps every page."
          >
            {(p) => <textarea {...p} rows={3} {...bindInput(include)} />}
          </Field>
          <Field
            label="Leave out pages matching (one per line)"
            name="config.exclude"
            error={form.error.value}
            hint="e.g. /blog/** or one page's path."
          >
            {(p) => <textarea {...p} rows={3} {...bindInput(exclude)} />}
          </Field>
          <div class="actions">
            <button type="button" class="small" disabled={previewing.busy.value} onClick={onPreview}>
              Preview the pages these rules keep
            </button>
          </div>
          <FormError error={previewing.error.value} />
          {preview.value && <RulesPreviewList preview={preview.value} />}
        </>
      )}
      {source.type !== "file" && source.type !== "text" && (
        <Field label="Sync again" name="schedule" error={form.error.value}>
          {(p) => (
            <select
              {...p}
              value={schedule.value}
              onChange={(e) => {
                schedule.value = inputValue(e);
              }}
            >
              {SCHEDULES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
              {schedule.value && !SCHEDULES.some(([v]) => v === schedule.value) && (
                <option value={schedule.value}>Every {schedule.value} minutes</option>
              )}
            </select>
          )}
        </Field>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy.value}>
          {web ? "Save and sync" : "Save"}
        </button>
      </div>
      <Status tone="ok">{saved.value}</Status>
    </form>
  );
}

function RulesPreviewList(props: { preview: RulesPreview }) {
  const { kept, dropped, keptCount, droppedCount } = props.preview;
  return (
    <div class="rules-preview" data-testid="rules-preview">
      <Status>
        Of the pages read so far, these rules keep {counted(keptCount, "page")} and leave out{" "}
        {counted(droppedCount, "page")}.
      </Status>
      {kept.length > 0 && (
        <details open>
          <summary>Kept ({keptCount})</summary>
          <ul class="plain" data-list="kept">
            {kept.map((u) => (
              <li key={u}>{u}</li>
            ))}
          </ul>
        </details>
      )}
      {dropped.length > 0 && (
        <details open>
          <summary>Left out ({droppedCount})</summary>
          <ul class="plain" data-list="dropped">
            {dropped.map((u) => (
              <li key={u}>{u}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
