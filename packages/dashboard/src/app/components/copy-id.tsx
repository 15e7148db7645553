import { useState } from 'preact/hooks';

/**
 * An ID shown short (its first 8 characters; the whole one in its tooltip) with a button that
 * copies the whole of it, named for what it copies so each row's button says which ID.
 */
export function CopyId({ id, what }: { id: string; what: string }) {
  const [done, setDone] = useState<string | undefined>();
  return (
    <span class="copy-id">
      <code title={id}>{id.length > 8 ? id.slice(0, 8) : id}</code>
      <button
        type="button"
        class="small"
        aria-label={`Copy ${what} ${id}`}
        title={`Copy ${id}`}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(id);
            setDone('Copied');
          } catch {
            setDone('The browser refused the clipboard');
          }
        }}
      >
        Copy
      </button>
      <span role="status" class="copy-status">
        {done ?? ''}
      </span>
    </span>
  );
}
