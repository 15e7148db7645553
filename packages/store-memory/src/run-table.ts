import type { AttachmentRecord, RunRecord } from '@agentrun/core/store';

/** A stored run with the files stored with it (written once, with the run). */
interface Row {
  run: RunRecord;
  files: readonly AttachmentRecord[];
}

const NO_FILES: readonly AttachmentRecord[] = Object.freeze([]);

/**
 * The memory store's runs by id, each with its attachments in the same entry: one insert into
 * one map per run written, where a map for runs and another for their files took two (a busy
 * ingress writes four runs per delivery into maps that hold every run the process has made, so
 * each insert is a cache miss, and growth a rehash: bench/README.md, "What was tried").
 */
export class RunTable {
  readonly #rows = new Map<string, Row>();

  has(runId: string): boolean {
    return this.#rows.has(runId);
  }

  /** The stored run itself (callers copy it before it leaves the store). */
  get(runId: string): RunRecord | undefined {
    return this.#rows.get(runId)?.run;
  }

  /** The stored attachments of a run (never changed; callers copy them before they leave the store). */
  files(runId: string): readonly AttachmentRecord[] {
    return this.#rows.get(runId)?.files ?? NO_FILES;
  }

  insert(run: RunRecord, files: readonly AttachmentRecord[]): void {
    this.#rows.set(run.id, { run, files: files.length === 0 ? NO_FILES : files });
  }

  *values(): IterableIterator<RunRecord> {
    for (const row of this.#rows.values()) yield row.run;
  }
}
