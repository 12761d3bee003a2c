// Small building blocks: labelled fields that show their own API errors, the form's error summary,
// status badges, relative times and tables. Text from the API is only ever rendered as text.
import { type Signal, useSignal } from "@preact/signals";
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import { ApiError, messageOf } from "../api.ts";
import { fieldSentence, formOf } from "../messages.ts";

/** Sentences of `error` for the control `name`: its `details.fields` key or any key below it (`allowedOrigins.1`). */
function fieldMessages(error: unknown, name: string): string[] {
  if (!(error instanceof ApiError)) return [];
  const form = formOf(error.path);
  const sentences = Object.entries(error.fields)
    .filter(([key]) => key === name || key.startsWith(`${name}.`))
    .flatMap(([key, messages]) => messages.map((m) => fieldSentence(key, m, form)));
  return [...new Set(sentences)];
}

/** Every field error of `error` as sentences, for the form's summary. */
function allFieldSentences(error: ApiError): string[] {
  const form = formOf(error.path);
  const sentences = Object.entries(error.fields).flatMap(([key, messages]) =>
    messages.map((m) => fieldSentence(key, m, form)),
  );
  return [...new Set(sentences)];
}

export interface ControlProps {
  id: string;
  name: string;
  "aria-invalid"?: "true";
  "aria-describedby"?: string;
}

export interface FieldProps {
  label: string;
  name: string;
  hint?: string;
  /** The form's last error (ApiError with `details.fields`, or anything else). */
  error?: unknown;
  class?: string;
  children: (props: ControlProps) => ComponentChildren;
  after?: ComponentChildren;
}

/** A label, its control, an optional hint and the API's messages for this field. */
export function Field(props: FieldProps) {
  const id = useId();
  const messages = fieldMessages(props.error, props.name);
  const describedBy = [props.hint ? `${id}-hint` : "", messages.length > 0 ? `${id}-err` : ""]
    .filter(Boolean)
    .join(" ");
  return (
    <div class={`field ${props.class ?? ""}`}>
      <label for={id}>{props.label}</label>
      {props.children({
        id,
        name: props.name,
        "aria-invalid": messages.length > 0 ? "true" : undefined,
        "aria-describedby": describedBy || undefined,
      })}
      {props.after}
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {messages.length > 0 && (
        <p class="field-error" id={`${id}-err`}>
          {messages.join(" ")}
        </p>
      )}
    </div>
  );
}

/** The error summary at the top of a form (field messages show beside their fields). */
export function FormError(props: { error: unknown }) {
  const { error } = props;
  if (error === null || error === undefined) return null;
  return (
    <div
      class="form-error"
      role="alert"
      tabIndex={-1}
      data-code={error instanceof ApiError ? error.code : "error"}
    >
      {error instanceof ApiError && error.code === "validation_error" ? (
        <p>Check the form: {allFieldSentences(error).join(" ") || messageOf(error)}</p>
      ) : (
        <p>{messageOf(error)}</p>
      )}
    </div>
  );
}

export interface FormState {
  error: Signal<unknown>;
  busy: Signal<boolean>;
  /** Runs `work` as the form's submission: busy while it runs, its error kept for the fields. */
  submit: (work: () => Promise<void>) => (event?: Event) => Promise<void>;
}

/** A form's busy flag and last error; the first invalid field gets focus after an error. */
export function useFormState(): FormState & { ref: preact.RefObject<HTMLFormElement> } {
  const error = useSignal<unknown>(null);
  const busy = useSignal(false);
  const ref = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (error.value === null) return;
    const form = ref.current;
    const invalid = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
    // A field folded away (an "Advanced" section) is unfolded so its message can be read.
    invalid?.closest("details")?.setAttribute("open", "");
    (invalid ?? form?.querySelector<HTMLElement>(".form-error"))?.focus?.();
  }, [error.value]);
  const submit = (work: () => Promise<void>) => async (event?: Event) => {
    event?.preventDefault();
    if (busy.value) return;
    error.value = null;
    busy.value = true;
    try {
      await work();
    } catch (caught) {
      error.value = caught;
    } finally {
      busy.value = false;
    }
  };
  return { error, busy, submit, ref };
}

const statusLabels: Record<string, string> = {
  queued: "Queued",
  syncing: "Syncing",
  ready: "Ready",
  failed: "Failed",
  processing: "Processing",
  empty: "No sources",
};

/** A coloured status pill with its word (never colour alone). */
export function Badge(props: { status: string }) {
  return (
    <span class={`badge badge-${props.status}`} data-status={props.status}>
      {statusLabels[props.status] ?? props.status}
    </span>
  );
}

const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
];
const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "3 minutes ago"-style time text. */
export function ago(iso: string): string {
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return relative.format(-Math.round(seconds / size), unit);
  }
  return "just now";
}

/** A relative time with the exact time in a title. */
export function TimeAgo(props: { iso: string | null | undefined }) {
  if (!props.iso) return <span>—</span>;
  return (
    <time dateTime={props.iso} title={new Date(props.iso).toLocaleString()}>
      {ago(props.iso)}
    </time>
  );
}

export function ErrorBox(props: { error: unknown }) {
  return (
    <div class="form-error" role="alert">
      <p>{messageOf(props.error)}</p>
    </div>
  );
}

/** A polite status line for "Saved." and the like. */
export function Status(props: { children?: ComponentChildren; tone?: "ok" | "warn" }) {
  return (
    <p class={props.tone === "warn" ? "status status-warn" : "status"} role="status">
      {props.children}
    </p>
  );
}

/** A small table with a caption; "Nothing yet." when there are no rows. */
export function Table(props: { caption: string; headers: string[]; rows: ComponentChildren[][] }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.headers.map((text, i) => (
              <th key={i} scope="col">
                {text || <span class="sr-only">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((cells, i) => (
            <tr key={i}>
              {cells.map((cell, j) => (
                <td key={j}>{cell}</td>
              ))}
            </tr>
          ))}
          {props.rows.length === 0 && (
            <tr>
              <td colSpan={props.headers.length}>Nothing yet.</td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/** A button that copies `text` and reports it in `status`. */
export function CopyButton(props: { text: string; label: string; status: Signal<string>; class?: string }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      props.status.value = "Copied to the clipboard.";
    } catch {
      props.status.value = "Copy failed — select the text and copy it by hand.";
    }
  };
  return (
    <button type="button" class={props.class ?? "small"} onClick={copy}>
      {props.label}
    </button>
  );
}

/** Splits a textarea's lines, trimmed, blanks dropped. */
export function splitLines(text: string): string[] {
  return text
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);
}

export type InputEvent = JSX.TargetedEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>;

/** The value of an input/textarea/select event. */
export function inputValue(event: InputEvent): string {
  return event.currentTarget.value;
}

/** An input's or textarea's `value` and `onInput`, kept in `text`: spread onto the control. */
export function bindInput(text: Signal<string>) {
  return {
    value: text.value,
    onInput: (event: InputEvent) => {
      text.value = inputValue(event);
    },
  };
}
