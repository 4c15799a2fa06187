import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { GatewayError } from './admin-client.ts';

/**
 * A modal dialog on the browser's own <dialog>: it traps focus, closes on Escape and returns focus to the control
 * that opened it, with no code of ours for any of that.
 *
 * Its closing is reported once, as soon as it is known: on Escape, from the `cancel` event, which the browser fires
 * at once (the `close` event comes later, in a task of its own); the dialog is closed there first, which returns
 * focus to the opener. Otherwise a quick Escape then Enter on the control that opened it reopened the form and the
 * late `close` then shut it again. A `close` reaching a dialog already taken down (saved, or cancelled with the
 * button) is not reported at all.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const reported = useRef(false);
  const report = () => {
    if (reported.current) return;
    reported.current = true;
    props.onClose();
  };
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      reported.current = true;
      dialog?.close();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-label={props.title}
      onCancel={(event) => {
        // Closed here and now, so the browser puts focus back on the opener before the form is taken down.
        event.preventDefault();
        event.currentTarget.close();
        report();
      }}
      onClose={report}
    >
      <h2 class="dialog-title">{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/**
 * A save the gateway refused because someone else changed the record since the form read it (409
 * `version_conflict`): said once, in an alert with the code, beside the way back to the record as now stored.
 */
export function ConflictNotice(props: { subject: string; onReload: () => void }) {
  return (
    <div class="conflict" role="alert">
      <p>Someone changed {props.subject} since you opened it (version_conflict).</p>
      <button type="button" class="button-quiet" onClick={props.onReload}>
        Reload their version
      </button>
    </div>
  );
}

/** The gateway's own message, with its code, in an alert (screen readers announce it). */
export function ErrorMessage(props: { error: unknown }) {
  if (!props.error) return null;
  const message =
    props.error instanceof GatewayError
      ? `${props.error.message} (${props.error.code})`
      : props.error instanceof Error
        ? props.error.message
        : String(props.error);
  return (
    <p class="error-text" role="alert">
      {message}
    </p>
  );
}

/** A labelled input; the label is the field's accessible name. */
export function Field(props: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: 'text' | 'password' | 'datetime-local';
  hint?: string;
  required?: boolean;
  autoComplete?: string;
}) {
  const id = useId(props.label);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        // Preact types each input type's attributes apart; these three take the same ones here.
        type={(props.type ?? 'text') as 'text'}
        value={props.value}
        required={props.required}
        autoComplete={props.autoComplete ?? 'off'}
        spellcheck={false}
        onInput={(event) => props.onInput(event.currentTarget.value)}
        {...(props.hint ? { 'aria-describedby': `${id}-hint` } : {})}
      />
      {props.hint ? (
        <small id={`${id}-hint`} class="muted">
          {props.hint}
        </small>
      ) : null}
    </div>
  );
}

let idCounter = 0;
/** A stable, unique element id for a label/field pair. */
export function useId(label: string): string {
  const [id] = useState(() => `field-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${++idCounter}`);
  return id;
}

/**
 * A destructive action's button: it asks first, in a dialog naming what will happen, and runs the action only on
 * "Yes, …". The gateway's refusal is shown in the dialog.
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  action: () => Promise<void>;
  describedBy?: string;
}) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.action();
      setOpen(false);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class="button-quiet" onClick={() => setOpen(true)} aria-describedby={props.describedBy}>
        {props.label}
      </button>
      {open ? (
        <Dialog title={`${props.label}?`} onClose={() => setOpen(false)}>
          <p>{props.question}</p>
          <ErrorMessage error={error} />
          <div class="dialog-actions">
            <button type="button" class="button-danger" disabled={busy} onClick={() => void run()}>
              {`Yes, ${props.label.toLowerCase()}`}
            </button>
            <button type="button" class="button-quiet" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </Dialog>
      ) : null}
    </>
  );
}

/** The one-time secret: a read-only field named "New key" with a copy button; it is never shown again. */
export function NewSecret(props: { secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="new-secret">
      <label for="new-key-field">New key</label>
      <div class="new-secret-row">
        <input id="new-key-field" type="text" readOnly value={props.secret} spellcheck={false} autoComplete="off" />
        <button
          type="button"
          class="button-primary"
          onClick={() =>
            void navigator.clipboard.writeText(props.secret).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          Copy
        </button>
      </div>
      <p class="muted" role="status">
        {copied ? 'Copied. ' : ''}This key is shown once: store it now. The gateway keeps only its hash.
      </p>
      <button type="button" class="button-quiet" onClick={props.onDone}>
        Done
      </button>
    </div>
  );
}

/** The first zod issue as a sentence, with the field it concerns. */
export function describeProblem(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const first = issues[0];
  if (!first) return 'The form is not valid.';
  const where = first.path.map(String).join('.');
  return where ? `${where}: ${first.message}` : first.message;
}

/** A whole number typed into a field: blank is "not set". */
export function parseOptionalInteger(text: string): number | undefined {
  const trimmed = text.replace(/[,_\s]/g, '');
  if (trimmed === '') return undefined;
  return Number(trimmed);
}

export function StateBadge(props: { state: string }) {
  return <span class={`badge state-badge state-${props.state}`}>{props.state}</span>;
}

/** A wide table's scroll box: focusable and named, so a keyboard user can scroll it too (axe: scrollable-region-focusable). */
export function TableScroll(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to be scrolled by keyboard
    <section class="table-scroll" tabIndex={0} aria-label={props.label}>
      {props.children}
    </section>
  );
}
