import { auditEvent } from '../audit/event.js';
import type { Principal } from '../auth/principal.js';
import { requireFactory, requireManage } from '../control/access.js';
import { type ControlContext, ingressOrigin, nowIso } from '../control/control-context.js';
import { decodeDeliveryCursor, encodeDeliveryCursor } from '../control/delivery-views.js';
import { AgentRunError, invalidRequest, notFound } from '../errors.js';
import { ListSourceAppliesQuerySchema } from '../models/list-queries.js';
import { parseOrThrow } from '../models/validate.js';
import { RepositoryError } from '../repositories/reader.js';
import { SOURCE_APPLIES_KEPT } from '../store/factory-sources.js';
import { keysetPage } from '../util/keyset-page.js';
import type { FactorySourceRecord } from './records.js';
import { PutSourceSchema } from './schemas.js';
import type { SourceSyncer } from './syncer.js';
import { type SourceSyncResult, type SourceView, sourceApplyView } from './wire.js';

/**
 * The factory source routes (docs/repositories.md, "Factories from a repository"): any key of the
 * team reads them; a change, and a sync, need `manage_factory`.
 */

/** Where a factory's push notifications go, under the ingress (routes/table.ts, `pushSource`). */
const pushUrl = (origin: string, factoryUid: string): string =>
  `${origin.replace(/\/+$/, '')}/webhooks/sources/${encodeURIComponent(factoryUid)}`;

export async function putSource(ctx: ControlContext, p: Principal, factoryUid: string, input: unknown, requestOrigin: string) {
  requireManage(p);
  const body = parseOrThrow(PutSourceSchema, input, 'source');
  await requireFactory(ctx, p, factoryUid);
  const repo = await ctx.store.repositories.get(p.team_uid, body.repository);
  if (!repo)
    throw invalidRequest(
      `invalid source: repository: no repository ${body.repository} registered for this team (POST /repositories first)`,
    );
  const pushSecret = body.push_secret ?? null;
  if (pushSecret !== null && !(await ctx.store.secrets.get(p.team_uid, pushSecret)))
    throw invalidRequest(
      `invalid source: push_secret: no team secret ${pushSecret}; create it first (agentrun secret create ${pushSecret} --team)`,
    );
  const now = nowIso(ctx);
  const existing = await ctx.store.factorySources.get(p.team_uid, factoryUid);
  const record: FactorySourceRecord = {
    teamUid: p.team_uid,
    factoryUid,
    repository: repo.name,
    branch: body.branch ?? repo.defaultBranch,
    directory: body.directory,
    pushScheme: body.push_scheme ?? null,
    pushSecret,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  await ctx.store.factorySources.put(
    record,
    auditEvent(p, 'source.written', { type: 'source', id: factoryUid, factoryUid }, now, {
      repository: record.repository,
      branch: record.branch,
      directory: record.directory,
      push_scheme: record.pushScheme,
    }),
  );
  return { created: existing === undefined, source: await sourceView(ctx, record, requestOrigin) };
}

export async function getSource(ctx: ControlContext, p: Principal, factoryUid: string, requestOrigin: string): Promise<SourceView> {
  return sourceView(ctx, await requireSource(ctx, p, factoryUid), requestOrigin);
}

export async function deleteSource(ctx: ControlContext, p: Principal, factoryUid: string): Promise<void> {
  requireManage(p);
  await requireFactory(ctx, p, factoryUid);
  const audit = auditEvent(p, 'source.deleted', { type: 'source', id: factoryUid, factoryUid }, nowIso(ctx));
  if (!(await ctx.store.factorySources.delete(p.team_uid, factoryUid, audit))) throw notFound(`factory ${factoryUid} has no source`);
}

export async function listSourceApplies(ctx: ControlContext, p: Principal, factoryUid: string, input: Record<string, unknown>) {
  const q = parseOrThrow(ListSourceAppliesQuerySchema, input, 'query');
  await requireSource(ctx, p, factoryUid);
  const cursor = q.cursor === undefined ? undefined : decodeDeliveryCursor(q.cursor);
  const rows = await ctx.store.factorySources.listApplies(p.team_uid, factoryUid, {
    limit: q.limit + 1,
    ...(cursor ? { after: { startedAt: cursor.receivedAt, id: cursor.id } } : {}),
  });
  const { page, pageInfo } = keysetPage(rows, q.limit, (last) => encodeDeliveryCursor({ receivedAt: last.startedAt, id: last.id }));
  return { applies: page.map(sourceApplyView), page_info: pageInfo };
}

/** `POST /factories/{uid}/source/sync`: fetch the branch and apply its head now, answering what happened. */
export async function syncSourceNow(
  ctx: ControlContext,
  syncer: SourceSyncer,
  p: Principal,
  factoryUid: string,
): Promise<SourceSyncResult> {
  requireManage(p);
  const source = await requireSource(ctx, p, factoryUid);
  try {
    const result = await syncer.sync(source, 'manual');
    if (!result) throw notFound(`factory ${factoryUid} has no source`);
    return { commit: result.commit, outcome: result.outcome, apply: result.apply ? sourceApplyView(result.apply) : null };
  } catch (error) {
    if (!(error instanceof RepositoryError)) throw error;
    const detail = `cannot read branch ${source.branch} of repository ${source.repository} (${error.code}): ${error.message}`;
    throw error.code === 'unreachable' ? new AgentRunError('unavailable', detail, { retryable: true }) : invalidRequest(detail);
  }
}

async function requireSource(ctx: ControlContext, p: Principal, factoryUid: string): Promise<FactorySourceRecord> {
  await requireFactory(ctx, p, factoryUid);
  const source = await ctx.store.factorySources.get(p.team_uid, factoryUid);
  if (!source) throw notFound(`factory ${factoryUid} has no source`);
  return source;
}

async function sourceView(ctx: ControlContext, s: FactorySourceRecord, requestOrigin: string): Promise<SourceView> {
  const [repo, applies] = await Promise.all([
    ctx.store.repositories.get(s.teamUid, s.repository),
    ctx.store.factorySources.listApplies(s.teamUid, s.factoryUid, { limit: SOURCE_APPLIES_KEPT }),
  ]);
  const last = applies[0];
  const good = applies.find((a) => a.status === 'applied');
  return {
    factory_uid: s.factoryUid,
    repository: s.repository,
    url: repo?.url ?? null,
    branch: s.branch,
    directory: s.directory,
    push:
      s.pushScheme !== null && s.pushSecret !== null
        ? { scheme: s.pushScheme, secret_name: s.pushSecret, url: pushUrl(ingressOrigin(ctx, requestOrigin), s.factoryUid) }
        : null,
    last_apply: last ? sourceApplyView(last) : null,
    last_applied: good ? sourceApplyView(good) : null,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}
