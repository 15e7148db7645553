import * as v from 'valibot';
import { PageInfoSchema } from '../models/run.js';
import { PUSH_SCHEMES, SOURCE_APPLY_STATUSES, SOURCE_TRIGGERS, type SourceApplyRecord } from './records.js';

// Answers of the factory source routes (docs/repositories.md, "Factories from a repository").

export const SourceApplyViewSchema = v.object({
  id: v.string(),
  /** The full SHA applied. */
  commit: v.string(),
  triggered_by: v.picklist(SOURCE_TRIGGERS),
  /** `applying` while a process applies it; `applied`; or `failed` (nothing written; see `errors`). */
  status: v.picklist(SOURCE_APPLY_STATUSES),
  /** Why it failed, each at its file (relative to the repository) and line (0: the file or directory as a whole). */
  errors: v.array(v.object({ path: v.string(), line: v.number(), message: v.string() })),
  /** The factory's definitions version after it applied. */
  version: v.nullable(v.number()),
  started_at: v.string(),
  finished_at: v.nullable(v.string()),
});
export type SourceApplyView = v.InferOutput<typeof SourceApplyViewSchema>;

export const SourceViewSchema = v.object({
  factory_uid: v.string(),
  repository: v.string(),
  /** The registered repository's clone URL (null when it is no longer registered: the source cannot sync). */
  url: v.nullable(v.string()),
  branch: v.string(),
  directory: v.string(),
  /** Where push notifications go and how they are verified; null: polling only. */
  push: v.nullable(v.object({ scheme: v.picklist(PUSH_SCHEMES), secret_name: v.string(), url: v.string() })),
  /** The newest apply, whatever its outcome. */
  last_apply: v.nullable(SourceApplyViewSchema),
  /** The newest commit that applied: the factory is what it says. */
  last_applied: v.nullable(SourceApplyViewSchema),
  created_at: v.string(),
  updated_at: v.string(),
});
export type SourceView = v.InferOutput<typeof SourceViewSchema>;

export const SourceAppliesSchema = v.object({
  applies: v.array(SourceApplyViewSchema),
  page_info: PageInfoSchema,
});

/** `POST /factories/{factoryUid}/source/sync`: what the sync found at the branch head, and the apply it made or found. */
export const SourceSyncResultSchema = v.object({
  commit: v.string(),
  /**
   * `applied` or `failed`: this sync applied the commit; `already`: the commit has an apply
   * (shown); `superseded`: a sync that fetched the branch later applied what it found;
   * `busy`: another commit of the factory is being applied (try again).
   */
  outcome: v.picklist(['applied', 'failed', 'already', 'superseded', 'busy']),
  apply: v.nullable(SourceApplyViewSchema),
});
export type SourceSyncResult = v.InferOutput<typeof SourceSyncResultSchema>;

export const sourceApplyView = (a: SourceApplyRecord): SourceApplyView => ({
  id: a.id,
  commit: a.commit,
  triggered_by: a.triggeredBy,
  status: a.status,
  errors: a.errors.map((e) => ({ ...e })),
  version: a.version,
  started_at: a.startedAt,
  finished_at: a.finishedAt,
});
