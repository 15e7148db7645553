import type { RunRecord } from '@agentrun/core/store';
import { copy } from './copy.js';

/**
 * A deep copy of a run record, written out for its shape: `copy` (copy.ts) walks any record, and
 * on a run, with its dozen nested fields, that walk costs about 4 µs, four times per webhook
 * delivery that starts four runs (bench/README.md, "What was tried"). Here one spread copies
 * the record and each field that holds an object is copied as its type says: flat ones (only
 * primitives inside) by a spread, the agent config and artifacts (free-form) by `copy`. The
 * checks below fail to compile when RunRecord gains a field holding an object that this function
 * does not copy, or when a field copied by a spread stops being flat.
 */
export function copyRun(run: RunRecord): RunRecord {
  return {
    ...run,
    statusMessage: flat(run.statusMessage),
    creator: flat(run.creator),
    config: copy(run.config),
    ancestorRunIds: [...run.ancestorRunIds],
    skill: flat(run.skill),
    trigger: flat(run.trigger),
    schedule: flat(run.schedule),
    attachments: run.attachments.map((a) => ({ ...a })),
    artifacts: run.artifacts.length === 0 ? [] : copy(run.artifacts),
    requestUsage: flat(run.requestUsage),
    lease: flat(run.lease),
  };
}

const flat = <T extends object | null>(value: T): T => value && { ...value };

type Primitive = string | number | boolean | null | undefined;
/** Whether every field of `T` holds a primitive. */
type IsFlat<T> = { [K in keyof T]-?: T[K] extends Primitive ? true : false }[keyof T] extends true ? true : false;
/** The fields of a run that hold an object (or an array). */
type NestedField = { [K in keyof RunRecord]-?: RunRecord[K] extends Primitive ? never : K }[keyof RunRecord];
/** Those `copyRun` copies by a spread, then all it copies. */
type FlatField = 'statusMessage' | 'creator' | 'skill' | 'trigger' | 'schedule' | 'requestUsage' | 'lease';
type CopiedField = FlatField | 'config' | 'ancestorRunIds' | 'attachments' | 'artifacts';
type FlatFieldsAreFlat = { [K in FlatField]: IsFlat<NonNullable<RunRecord[K]>> }[FlatField] extends true ? true : false;
const everyNestedFieldCopied: [Exclude<NestedField, CopiedField>] extends [never] ? true : false = true;
const spreadFieldsAreFlat: [FlatFieldsAreFlat, IsFlat<RunRecord['attachments'][number]>] extends [true, true] ? true : false = true;
void everyNestedFieldCopied;
void spreadFieldsAreFlat;
