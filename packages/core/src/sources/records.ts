/**
 * A factory backed by a source repository (docs/repositories.md, "Factories from a repository"):
 * the definition files in `directory` of a registered repository's `branch` are the factory's
 * definitions; each new commit of the branch applies once, as `agentrun apply --prune` would.
 */
export interface FactorySourceRecord {
  teamUid: string;
  factoryUid: string;
  /** The `<owner>/<repo>` name of a repository the team registered (its URL and credential come from there). */
  repository: string;
  /** The production branch; the repository's `default_branch` when the source was set without one. */
  branch: string;
  /** The definitions directory in the repository, `''` for its root. */
  directory: string;
  /** How a push notification is verified, or `null`: no push endpoint (polling only). */
  pushScheme: PushScheme | null;
  /** The team secret a push notification is verified with (with `pushScheme`). */
  pushSecret: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The verifiers a push notification may be checked with (docs/signatures.md): GitHub, GitLab, a generic signed POST. */
export const PUSH_SCHEMES = ['github', 'gitlab', 'standard-webhooks'] as const;
export type PushScheme = (typeof PUSH_SCHEMES)[number];

/** What started a sync. */
export const SOURCE_TRIGGERS = ['push', 'poll', 'manual'] as const;
export type SourceTrigger = (typeof SOURCE_TRIGGERS)[number];

/**
 * The outcome of one commit: `applying` while a process applies it, then `applied` (the factory is
 * what the commit says) or `failed` (nothing written; `errors` at file and line).
 */
export const SOURCE_APPLY_STATUSES = ['applying', 'applied', 'failed'] as const;
export type SourceApplyStatus = (typeof SOURCE_APPLY_STATUSES)[number];

/** A problem of a failed commit, at its file (relative to the repository) and line (0: the file or directory as a whole). */
export interface SourceApplyError {
  path: string;
  line: number;
  message: string;
}

/** One commit of a factory's source, applied (or being applied) once: unique per factory and commit. */
export interface SourceApplyRecord {
  id: string;
  teamUid: string;
  factoryUid: string;
  commit: string;
  triggeredBy: SourceTrigger;
  status: SourceApplyStatus;
  errors: SourceApplyError[];
  /** The factory's definitions version after the apply (`applied`). */
  version: number | null;
  startedAt: string;
  finishedAt: string | null;
}
