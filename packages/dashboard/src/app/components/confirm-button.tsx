import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/**
 * A destructive action asked twice, inline (no modal to trap focus): the button, then
 * "question? [Yes, …] [No]"; focus moves to the confirming button and back on "No".
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  children,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  children?: ComponentChildren;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <fieldset class="confirm">
      <legend>{question}</legend>
      {children}
      <button
        type="button"
        class="danger"
        disabled={busy}
        ref={(el) => el?.focus()}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        No
      </button>
    </fieldset>
  );
}
