import type { ReportedArtifact } from '../artifacts/report.js';
import { EnvironmentUnavailable, type ResolvedEnvironment } from '../environments/resolved.js';
import type { ExecutionContext, ExecutionOutcome } from '../executor/executor.js';
import type { RunRecord } from '../run/record.js';

/** How the worker opens a run's environment (`agentrun.worker()` passes one over its store and cipher); asked only for a run whose config names one (execute-run.ts). */
export type EnvironmentResolver = (run: RunRecord) => Promise<ResolvedEnvironment | undefined>;

/**
 * The environment the executor receives, or the outcome that ends the run without executing it:
 * FAILED `environment_unavailable` when its environment or a variable's team secret is gone since
 * the run was created (docs/repositories.md, "What an executor receives").
 */
export async function runEnvironment(
  resolve: EnvironmentResolver | undefined,
  run: RunRecord,
): Promise<{ environment: ResolvedEnvironment | undefined } | { outcome: ExecutionOutcome }> {
  try {
    return { environment: await resolve?.(run) };
  } catch (error) {
    if (!(error instanceof EnvironmentUnavailable)) throw error;
    return { outcome: { status: 'failed', message: error.message, error_code: error.code } };
  }
}

/** Values shorter than this are not looked for: replacing them would garble ordinary text. */
const MIN_REDACTED_LENGTH = 4;

/**
 * The execution context with the environment's secret values replaced by `[secret]` in everything
 * it writes (transcript entries, status messages, block messages), so an agent that prints a
 * variable does not put its value in the run's transcript (docs/repositories.md, "What an executor
 * receives"). Without secrets of at least 4 characters: the context unchanged.
 */
export function redactingContext(ctx: ExecutionContext, environment: ResolvedEnvironment | undefined): ExecutionContext {
  const scrub = scrubberOf(environment);
  if (!scrub) return ctx;
  const { record, reportUsage, reportArtifact } = ctx;
  return {
    signal: ctx.signal,
    report: (update) => ctx.report(scrub(update)),
    block: (message) => ctx.block(scrub(message)),
    resume: () => ctx.resume(),
    onFollowup: (listener) => ctx.onFollowup(listener),
    ...(record
      ? { record: (entries, options) => record.call(ctx, scrub(entries), options?.status ? { status: scrub(options.status) } : options) }
      : {}),
    // Usage is numbers only (models/request-usage.ts): nothing to scrub.
    ...(reportUsage ? { reportUsage: (usage: Readonly<Record<string, unknown>>) => reportUsage.call(ctx, usage) } : {}),
    // An artifact's text (title, description, path) is scrubbed; its bytes are the agent's file, kept as written.
    ...(reportArtifact
      ? {
          reportArtifact: (artifact: ReportedArtifact) =>
            reportArtifact.call(ctx, { ...scrub(withoutBytes(artifact)), ...bytesOf(artifact) } as ReportedArtifact),
        }
      : {}),
  };
}

const withoutBytes = (a: ReportedArtifact) => ('content' in a && a.content instanceof Uint8Array ? { ...a, content: undefined } : a);
const bytesOf = (a: ReportedArtifact) => ('content' in a && a.content instanceof Uint8Array ? { content: a.content } : {});

/** The outcome with the environment's secret values replaced in its message. */
export function redactedOutcome(outcome: ExecutionOutcome, environment: ResolvedEnvironment | undefined): ExecutionOutcome {
  const scrub = scrubberOf(environment);
  return scrub ? scrub(outcome) : outcome;
}

function scrubberOf(environment: ResolvedEnvironment | undefined): (<T>(value: T) => T) | undefined {
  // The variables' values and the repositories' credentials: a setup command may print either.
  const secrets = [...Object.values(environment?.variables ?? {}), ...(environment?.repositories ?? []).flatMap((r) => r.credential ?? [])];
  const values = secrets
    .map((v) => v.reveal())
    .filter((v) => v.length >= MIN_REDACTED_LENGTH)
    // Longest first, so a secret containing another is replaced whole.
    .sort((a, b) => b.length - a.length);
  if (values.length === 0) return undefined;
  const text = (s: string) => values.reduce((out, v) => out.replaceAll(v, '[secret]'), s);
  const deep = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(deep);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deep(v)]));
    return value;
  };
  return <T>(value: T) => deep(value) as T;
}
