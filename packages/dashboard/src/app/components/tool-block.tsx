import { toolInputText, toolSummary } from '@agentrun/core/api';
import type { ComponentChildren } from 'preact';
import type { ToolCallData, ToolResultData } from '../transcript-items.js';

/**
 * A tool the agent called, folded to one line (its name, what it was asked, how it went) and
 * opened to its whole input and its output. Native `<details>`, so the keyboard opens it; it is
 * not told whether it is open, so a block stays open while the transcript grows around it.
 */
export function ToolBlock({ call, result }: { call?: ToolCallData; result?: ToolResultData }) {
  const name = call?.name ?? result?.name ?? 'tool';
  const summary = call ? toolSummary(call.name, call.input, call.input_truncated) : `result of call ${result?.call_id ?? ''}`;
  return (
    <details class={`tool-block${result?.is_error ? ' tool-block-error' : ''}`}>
      <summary>
        <span class="tool-name">{name}</span>
        <code class="tool-summary" title={summary}>
          {summary}
        </code>
        <ToolStatus result={result} />
      </summary>
      <div class="tool-body">
        {call ? (
          <>
            <p class="tool-label">Input</p>
            <Scroll label={`Input of ${name}`}>
              <pre class="tool-input">{toolInputText(call.input, call.input_truncated)}</pre>
            </Scroll>
            {call.input_truncated ? <p class="hint">Truncated: the input was longer; this is the start of its JSON.</p> : null}
          </>
        ) : null}
        {result ? (
          <>
            <p class="tool-label">{result.is_error ? 'Error' : 'Output'}</p>
            <Scroll label={`Output of ${name}`} error={result.is_error}>
              <pre class={`tool-output${result.is_error ? ' tool-output-error' : ''}`}>
                {result.output === '' ? '(no output)' : result.output}
              </pre>
            </Scroll>
            {result.truncated ? <p class="hint">Truncated: the output was longer; this is its start.</p> : null}
          </>
        ) : (
          <p class="empty">No result yet.</p>
        )}
      </div>
    </details>
  );
}

/** How the call went, in a word and a colour: running (no result yet), ok, or error. */
function ToolStatus({ result }: { result?: ToolResultData }) {
  if (!result) return <span class="label label-neutral">running</span>;
  return result.is_error ? <span class="label label-bad">error</span> : <span class="label label-ok">ok</span>;
}

/**
 * A long input or output scrolls in its own box; the box takes the focus so the keyboard can
 * scroll it too, and is a named region so that focus says what it is.
 */
function Scroll({ label, error, children }: { label: string; error?: boolean; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take the focus for the keyboard to scroll it (WCAG 2.1.1; axe's scrollable-region-focusable)
    <section class={`tool-scroll${error ? ' tool-scroll-error' : ''}`} aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
