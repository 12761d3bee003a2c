import { useSignal } from "@preact/signals";
import { useLayoutEffect, useRef } from "preact/hooks";
import { bindInput, Field, FormError, useFormState } from "./ui.tsx";

export interface CorrectionFormProps {
  title: string;
  question: string;
  answer?: string;
  /** Other wordings it answers: the field shows when given (the Corrections tab). */
  alsoAnswers?: string[];
  submitLabel: string;
  onSave: (values: { question: string; answer: string; alsoAnswers?: string[] }) => Promise<void>;
  onCancel: () => void;
}

/**
 * An answer as the start of the owner's own: without its [n] markers, which would cite nothing (a
 * correction is answered without sources). Markdown links stay.
 */
export function withoutCitations(answer: string): string {
  return answer.replace(/[ \t]*\[\d+(?:\s*,\s*\d+)*\](?!\()/g, "");
}

/**
 * A question and the owner's answer to it (Markdown). The answer field takes focus, since the
 * question is usually the visitor's own.
 */
export function CorrectionForm(props: CorrectionFormProps) {
  const question = useSignal(props.question);
  const answer = useSignal(props.answer ?? "");
  const wordings = useSignal((props.alsoAnswers ?? []).join("\n"));
  const form = useFormState();
  const answerRef = useRef<HTMLTextAreaElement>(null);
  // Focus before the browser paints, so nothing typed into the form can land in another field first.
  useLayoutEffect(() => answerRef.current?.focus(), []);
  const onSubmit = form.submit(() =>
    props.onSave({
      question: question.value,
      answer: answer.value,
      ...(props.alsoAnswers
        ? { alsoAnswers: wordings.value.split("\n").filter((w) => w.trim().length > 0) }
        : {}),
    }),
  );
  const error = form.error.value;
  return (
    <form class="correction-form card" aria-label={props.title} noValidate ref={form.ref} onSubmit={onSubmit}>
      <h3>{props.title}</h3>
      <FormError error={error} />
      <Field
        label="Question"
        name="question"
        error={error}
        hint="Visitors asking this question, or a close rewording of it, get your answer."
      >
        {(p) => <input {...p} required maxLength={2000} {...bindInput(question)} />}
      </Field>
      {props.alsoAnswers && (
        <Field
          label="Other ways to ask it"
          name="alsoAnswers"
          error={error}
          hint="Wordings visitors use that it should answer too, one a line (at most 20)."
        >
          {(p) => <textarea {...p} rows={3} {...bindInput(wordings)} />}
        </Field>
      )}
      <Field label="Answer" name="answer" error={error} hint="Markdown: **bold**, lists, [links](https://…).">
        {(p) => <textarea {...p} ref={answerRef} rows={5} required {...bindInput(answer)} />}
      </Field>
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy.value}>
          {props.submitLabel}
        </button>
        <button type="button" class="ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
