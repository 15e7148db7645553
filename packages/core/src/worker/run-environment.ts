import type { ReportedArtifact } from '../artifacts/report.js';
import { EnvironmentUnavailable, type ResolvedEnvironment, type SecretValue } from '../environments/resolved.js';
import type { ExecutionContext, ExecutionOutcome } from '../executor/executor.js';
import { type HarnessAuth, HarnessAuthUnavailable } from '../harness/resolve-harness-auth.js';
import type { RunRecord } from '../run/record.js';

/** How the worker opens a run's environment (`agentrun.worker()` passes one over its store and cipher); asked only for a run whose config names one (execute-run.ts). */
export type EnvironmentResolver = (run: RunRecord) => Promise<ResolvedEnvironment | undefined>;

/** How the worker opens the team secrets a run's config names for its harness's key; asked only for a run that names one. */
export type HarnessAuthResolver = (run: RunRecord) => Promise<HarnessAuth | undefined>;

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

/**
 * The harness's auth secrets the executor receives, or the outcome that ends the run without
 * executing it: FAILED `auth_secret_unavailable` when one is gone since the run was created, or
 * cannot be a key (docs/harnesses.md, "Authentication").
 */
export async function runHarnessAuth(
  resolve: HarnessAuthResolver | undefined,
  run: RunRecord,
): Promise<{ harnessAuth: HarnessAuth | undefined } | { outcome: ExecutionOutcome }> {
  try {
    return { harnessAuth: await resolve?.(run) };
  } catch (error) {
    if (!(error instanceof HarnessAuthUnavailable)) throw error;
    return { outcome: { status: 'failed', message: error.message, error_code: error.code } };
  }
}

/** Every secret value an execution holds: its environment's variables and credentials, and its harness's keys. */
export function executionSecrets(environment: ResolvedEnvironment | undefined, harnessAuth: HarnessAuth | undefined): SecretValue[] {
  return [
    ...Object.values(environment?.variables ?? {}),
    ...(environment?.repositories ?? []).flatMap((r) => r.credential ?? []),
    ...Object.values(harnessAuth ?? {}).filter((v): v is SecretValue => v !== undefined),
  ];
}

/** Values shorter than this are not looked for: replacing them would garble ordinary text. */
const MIN_REDACTED_LENGTH = 4;

/**
 * The execution context with the execution's secret values (`executionSecrets`) replaced by `[secret]` in everything
 * it writes (transcript entries, status messages, block messages), so an agent that prints a
 * variable does not put its value in the run's transcript (docs/repositories.md, "What an executor
 * receives"). Without secrets of at least 4 characters: the context unchanged.
 */
export function redactingContext(ctx: ExecutionContext, secrets: readonly SecretValue[]): ExecutionContext {
  const scrub = scrubberOf(secrets);
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

/** The outcome with the execution's secret values replaced in its message. */
export function redactedOutcome(outcome: ExecutionOutcome, secrets: readonly SecretValue[]): ExecutionOutcome {
  const scrub = scrubberOf(secrets);
  return scrub ? scrub(outcome) : outcome;
}

function scrubberOf(secrets: readonly SecretValue[]): (<T>(value: T) => T) | undefined {
  // The variables' values, the repositories' credentials, the harness's keys: an agent or a setup command may print any.
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
