import { useState } from 'preact/hooks';

/** Copies `text`; says whether it did (a browser may refuse the clipboard: then select and copy). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState<string | undefined>();
  return (
    <span class="copy">
      <button
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setDone('Copied');
          } catch {
            setDone('The browser refused the clipboard: select the text and copy it');
          }
        }}
      >
        {label}
      </button>
      <span role="status" class="copy-status">
        {done ?? ''}
      </span>
    </span>
  );
}
