import { EVENT_PAYLOAD_FILE, type Store } from '@agentrun/core';
import type {
  AcceptDeliveryResult,
  AutomationRecord,
  CreateRunInput,
  DeliveryContext,
  DeliveryRecord,
  DeliveryStore,
  PendingDelivery,
  RateAdmission,
  RateLimitStore,
} from '@agentrun/core/store';
import { retryAfterMs } from '@agentrun/core/store';
import type { RawBuilder } from 'kysely';
import { createBatcher } from './batcher.js';
import type { Db, Tx } from './db.js';
import {
  type AcceptRow,
  type AdmissionArgs,
  type ContextRow,
  ingressQueries,
  ingressStatements,
  type SelectionsRow,
} from './ingress-sql.js';
import { type PreparedQuery, preparer } from './prepared.js';
import { automationFromRow, type DeliveryRow, deliveryFromRow, requestJson, runToRow, secretFromRow, webhookFromRow } from './rows.js';
import type { Statements } from './statements.js';
import { recordRefusals } from './stats.js';
import type { Tables } from './tables.js';

/**
 * The delivery log and the rate-limit windows, over the statements of ingress-sql.ts. Every
 * operation is one statement: the reads plainly, the writes through the ingress's functions, so a
 * delivery costs one read and one write, each a single round trip; concurrent reads and accepts
 * go together in batches (batcher.ts).
 */
export function createIngress(db: Db, t: Tables, statements: Statements): Pick<Store, 'deliveries' | 'rateLimits'> {
  const rows = async <R>(query: RawBuilder<R>, executor: Db | Tx = db): Promise<R[]> => (await query.execute(executor)).rows;

  /**
   * Run a statement calling the ingress's functions, which need READ COMMITTED: on a session whose
   * default is stricter they refuse, and the statement runs again in a transaction that sets it.
   */
  async function readCommitted<R>(query: RawBuilder<R> | PreparedQuery<R>, values: readonly unknown[] = []): Promise<R[]> {
    const run = (executor?: Tx) => (typeof query === 'function' ? query(values, executor) : rows<R>(query, executor));
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('agentrun: READ COMMITTED required')) throw error;
      return db
        .transaction()
        .setIsolationLevel('read committed')
        .execute((tx) => run(tx));
    }
  }

  const text = ingressStatements(t.schema);
  const prepare = preparer(statements);
  const contextRead = prepare<ContextRow>(text.context);
  const contextsRead = prepare<ContextRow & { ord: number }>(text.contexts);
  const acceptWrite = prepare<AcceptRow>(text.accept);
  const acceptsWrite = prepare<AcceptRow & { ord: number }>(text.accepts);
  const claimWrite = prepare<DeliveryRow>(text.claimEvaluations);
  const completeWrite = prepare<{ id: string }>(text.completeEvaluations);
  const selectionsRead = prepare<SelectionsRow>(text.selections);
  const queries = ingressQueries(t);

  /** Milliseconds until the oldest event of a full window leaves it (core's rule, store/rate-window.ts). */
  const retryAfter = (oldest: Date | string | null, { windowMs, now }: Pick<RateAdmission, 'windowMs' | 'now'>) =>
    retryAfterMs(oldest === null ? undefined : new Date(oldest).getTime(), windowMs, Date.parse(now));

  /** The context as one row read it (`undefined`: no webhook has the UID). */
  function contextOf(row: ContextRow | undefined, { windowMs, now }: ContextInput): DeliveryContext | undefined {
    if (!row) return undefined;
    const { secret_ciphertext: ciphertext, secret_created_at: createdAt, secret_updated_at: updatedAt } = row;
    return {
      webhook: webhookFromRow(row),
      secret:
        ciphertext === null
          ? undefined
          : secretFromRow({ team_uid: row.team_uid, name: row.secret_name, ciphertext, created_at: createdAt, updated_at: updatedAt }),
      authFailures: { count: row.auth_count, retryAfterMs: retryAfter(row.auth_oldest, { windowMs, now }) },
    };
  }

  /**
   * Context reads queue behind the ones in flight and go together, as the accepts do: each is
   * still read after its request arrived (the batch's statement starts after every read in it was
   * asked for), so a change committed before a delivery is seen by it, as when read alone.
   */
  const contextBatched = createBatcher<ContextInput, DeliveryContext | undefined>({
    one: async (input) => {
      const [row] = await contextRead([input.webhookUid, input.authBudgetKey, windowStart(input.now, input.windowMs)]);
      return contextOf(row, input);
    },
    many: async (inputs) => {
      const rows = await contextsRead([
        inputs.map((i) => i.webhookUid),
        inputs.map((i) => i.authBudgetKey),
        inputs.map((i) => windowStart(i.now, i.windowMs)),
      ]);
      const byOrd = new Map(rows.map((row) => [row.ord, row]));
      return inputs.map((input, i) => contextOf(byOrd.get(i + 1), input));
    },
    maxInFlight: IN_FLIGHT,
    maxBatch: BATCH,
  });

  /**
   * One accept, alone (`agentrun_accept_delivery`), the resend's runs with it if given: their ids
   * are its `run_ids` at once (none: filtered out, in the stats from its commit).
   */
  async function acceptOne({ delivery: d, runs, admit }: AcceptInput): Promise<AcceptDeliveryResult> {
    const values = [
      d.id,
      d.teamUid,
      d.factoryUid,
      d.webhookUid,
      d.identity,
      d.size,
      d.receivedAt,
      d.payload === null ? null : bufferOf(d.payload),
      runs ? JSON.stringify(runs.map((r) => runToRow(r.run))) : null,
      runs ? JSON.stringify(attachmentRows(runs, d.payload)) : null,
      admit?.key ?? null,
      admit?.limit ?? null,
      admit ? windowStart(admit.now, admit.windowMs) : null,
      admit?.now ?? null,
      d.request ? JSON.stringify(requestJson(d.request)) : null,
    ];
    const [result] = await readCommitted(acceptWrite, values);
    if (result?.outcome === 'rate_limited') await recordRefusals(db, t, [d]);
    return acceptResult(d, admit, result);
  }

  /**
   * Accepts awaiting evaluation, in one statement (agentrun_accept_deliveries: set-based, so a
   * batch costs a few statements inside the function, whatever its length), ordered by
   * rate key and webhook: a batch holds its keys' admission locks until its commit, so batches
   * taking them in one order cannot deadlock. The order within a key is kept (the sort is
   * stable); the accepts of a batch were all in flight at once, so any order is one they could
   * have had one after another.
   */
  async function acceptMany(inputs: readonly AcceptInput[]): Promise<AcceptDeliveryResult[]> {
    const order = inputs.map((_, i) => i);
    const sortKey = (i: number) => {
      const { delivery, admit } = inputs[i] as AcceptInput;
      return `${admit?.key ?? ''}\u0000${delivery.webhookUid}`;
    };
    order.sort((a, b) => {
      const ka = sortKey(a);
      const kb = sortKey(b);
      return ka < kb ? -1 : ka > kb ? 1 : a - b;
    });
    const sorted = order.map((i) => inputs[i] as AcceptInput);
    const column = <T>(f: (input: AcceptInput) => T) => sorted.map(f);
    const rows = await readCommitted(acceptsWrite, [
      column(({ delivery }) => delivery.id),
      column(({ delivery }) => delivery.teamUid),
      column(({ delivery }) => delivery.factoryUid),
      column(({ delivery }) => delivery.webhookUid),
      column(({ delivery }) => delivery.identity),
      column(({ delivery }) => delivery.size),
      column(({ delivery }) => delivery.receivedAt),
      Buffer.concat(sorted.flatMap(({ delivery }) => (delivery.payload === null ? [] : [delivery.payload]))),
      column(({ delivery }) => delivery.payload?.byteLength ?? null),
      column(({ admit }) => admit?.key ?? null),
      column(({ admit }) => admit?.limit ?? null),
      column(({ admit }) => (admit ? windowStart(admit.now, admit.windowMs) : null)),
      column(({ admit }) => admit?.now ?? null),
      JSON.stringify(sorted.map(({ delivery }) => (delivery.request ? requestJson(delivery.request) : null))),
    ]);
    if (rows.length !== inputs.length) throw new Error(`agentrun: a batch of ${inputs.length} accepts answered ${rows.length}`);
    const results: AcceptDeliveryResult[] = new Array(inputs.length);
    const refused: DeliveryRecord[] = [];
    for (const row of rows) {
      const at = order[row.ord - 1];
      if (at === undefined) throw new Error(`agentrun: an accept batch answered for element ${row.ord} of ${inputs.length}`);
      const { delivery, admit } = inputs[at] as AcceptInput;
      results[at] = acceptResult(delivery, admit, row);
      if (row.outcome === 'rate_limited') refused.push(delivery);
    }
    // Counted for the stats once refused (one statement per batch that has refusals): the log keeps none.
    await recordRefusals(db, t, refused);
    return results;
  }

  const acceptBatched = createBatcher<AcceptInput, AcceptDeliveryResult>({
    one: acceptOne,
    many: acceptMany,
    maxInFlight: IN_FLIGHT,
    maxBatch: BATCH,
  });

  function acceptResult(d: DeliveryRecord, admit: RateAdmission | undefined, result: AcceptRow | undefined): AcceptDeliveryResult {
    if (result?.outcome === 'accepted') return { accepted: true };
    if (result?.outcome === 'duplicate' && result.duplicate_of !== null) return { accepted: false, duplicateOf: result.duplicate_of };
    if (result?.outcome === 'rate_limited' && admit) {
      return { accepted: false, rateLimited: true, retryAfterMs: retryAfter(result.window_oldest, admit) };
    }
    throw new Error(`delivery ${d.id}: unexpected outcome ${JSON.stringify(result)}`);
  }

  const deliveries: DeliveryStore = {
    context: (input) => contextBatched(input),

    accept: ({ delivery, runs, admit }) => (runs ? acceptOne({ delivery, runs, admit }) : acceptBatched({ delivery, admit })),

    async claimEvaluations({ limit, leaseMs, now }) {
      const claimed = await claimWrite([new Date(Date.parse(now) + leaseMs).toISOString(), now, limit]);
      return claimed
        .map((row) => deliveryFromRow(row) as PendingDelivery)
        .filter((d) => d.payload !== null)
        .sort((a, b) => (a.receivedAt < b.receivedAt ? -1 : a.receivedAt > b.receivedAt ? 1 : a.id < b.id ? -1 : 1));
    },

    async completeEvaluations(evaluations) {
      if (evaluations.length === 0) return [];
      const ids = evaluations.map((e) => e.deliveryId);
      const runs = evaluations.flatMap((e) => e.runs);
      const done = await completeWrite([
        ids,
        JSON.stringify(runs.map((r) => runToRow(r.run))),
        JSON.stringify(attachmentRows(runs, null, true)),
        JSON.stringify(Object.fromEntries(evaluations.map((e) => [e.deliveryId, e.runs.map(({ run }) => run.id)]))),
      ]);
      return done.map((r) => r.id);
    },

    async selections(webhookUids) {
      if (webhookUids.length === 0) return [];
      const [found] = await selectionsRead([[...webhookUids]]);
      if (!found) return [];
      // Which automation selects which webhook, from their triggers (in the automations' order).
      const selecting = new Map<string, AutomationRecord[]>();
      for (const automation of found.automations.map(automationFromRow)) {
        for (const uid of new Set(automation.triggers.flatMap((t) => (t.provider === 'webhook' ? t.filter.webhook_ids : [])))) {
          const list = selecting.get(uid);
          if (list) list.push(automation);
          else selecting.set(uid, [automation]);
        }
      }
      return found.webhooks.map((row) => ({ webhook: webhookFromRow(row), automations: selecting.get(row.uid) ?? [] }));
    },

    async log(entry, admit) {
      if (!admit) {
        await queries.insertDelivery(entry).execute(db);
        return { logged: true };
      }
      const [result] = await readCommitted(queries.insertDeliveryAdmitted(entry, admission(admit)));
      if (result?.admitted) return { logged: true };
      await recordRefusals(db, t, [entry]);
      return { logged: false, rateLimited: true, retryAfterMs: retryAfter(result?.window_oldest ?? null, admit) };
    },

    async list(teamUid, webhookUid, page) {
      return (await rows(queries.list(teamUid, webhookUid, page))).map(deliveryFromRow);
    },

    async get(teamUid, webhookUid, id) {
      const [row] = await rows(queries.get(teamUid, webhookUid, id));
      return row ? deliveryFromRow(row) : undefined;
    },

    async find(teamUid, id) {
      const [row] = await rows(queries.find(teamUid, id));
      return row ? deliveryFromRow(row) : undefined;
    },

    async sweep(olderThan, keepNewest) {
      const [result] = await rows(queries.sweep(olderThan, keepNewest));
      return result?.n ?? 0;
    },
  };

  /** The start of the window `(now - windowMs, now]`: events at or before it are out. */
  const windowStart = (now: string, windowMs: number) => new Date(Date.parse(now) - windowMs).toISOString();

  /** An admission as the SQL takes it. */
  const admission = ({ key, limit, windowMs, now }: RateAdmission): AdmissionArgs => ({
    key,
    limit,
    windowStart: windowStart(now, windowMs),
    now,
  });

  const rateLimits: RateLimitStore = {
    async peek({ key, windowMs, now }) {
      const [row] = await rows(queries.windowCount(key, windowStart(now, windowMs)));
      return { count: row?.n ?? 0, retryAfterMs: retryAfter(row?.oldest ?? null, { windowMs, now }) };
    },

    async admit(input) {
      const [result] = await readCommitted(queries.admit(admission(input)));
      return result?.admitted ? { allowed: true } : { allowed: false, retryAfterMs: retryAfter(result?.window_oldest ?? null, input) };
    },
  };

  return { deliveries, rateLimits };
}

type AcceptInput = Parameters<DeliveryStore['accept']>[0];

type ContextInput = Parameters<DeliveryStore['context']>[0];

/**
 * Statements of one kind (accepts, context reads) out at once from one store before calls queue
 * into batches, and the most in one batch (batcher.ts). A few in flight keep the idle path one
 * round trip and let a busy ingress send many deliveries per statement (docs/production.md,
 * "Group commit"). A batch costs the database a fixed few statements whatever its length, so
 * fewer in flight pay: 2 sends 0.68 statements per delivery where 4 sends 1.12, for a third less
 * CPU per delivery in the server and in its backends; 1 sends 0.40 but doubles the p99; 16 (the
 * bench's pool) never batches (bench/README.md, "What was tried").
 */
const IN_FLIGHT = 2;
const BATCH = 64;

/** The payload as a Buffer over the same bytes (no copy): `pg` sends a Buffer parameter as binary bytea. */
const bufferOf = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The attachments of a delivery's runs as rows for agentrun_accept_delivery: bytes that are the
 * delivery's own payload (the `event-payload.json` of every run) travel once, as the payload;
 * any others as hex.
 */
function attachmentRows(runs: readonly CreateRunInput[], payload: Uint8Array | null, eventPayloadIsDelivery = false) {
  return runs.flatMap(({ attachments }) =>
    attachments.map((a) => ({
      run_id: a.runId,
      file_name: a.fileName,
      mime_type: a.mimeType,
      data_hex:
        a.data === payload || (eventPayloadIsDelivery && a.fileName === EVENT_PAYLOAD_FILE)
          ? null
          : Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength).toString('hex'),
    })),
  );
}
