import { mintApiKey } from '../auth/api-keys.js';
import type { Principal } from '../auth/principal.js';
import { AgentRunError, invalidRequest, notFound } from '../errors.js';
import { parseOrThrow } from '../models/validate.js';
import type { ApiKeyRecord, ApiKeyStore } from '../store/api-keys.js';
import { type Clock, isoTime } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { CreateApiKeySchema } from './schemas.js';
import { type ApiKeyScope, allows } from './scopes.js';
import type { ApiKeyView } from './wire.js';

/**
 * What happened to a key, for whoever records it (the audit log): the seam is
 * `createAgentRun({ onApiKeyEvent })`. Carries the key's view, never the key.
 */
export interface ApiKeyEvent {
  kind: 'api_key.created' | 'api_key.revoked';
  principal: Principal;
  key: ApiKeyView;
  at: string;
}

const apiKeyView = (r: ApiKeyRecord): ApiKeyView => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  scopes: r.scopes,
  created_by: r.createdBy,
  created_at: r.createdAt,
  last_used_at: r.lastUsedAt,
  expires_at: r.expiresAt,
});

function requireKeyManagement(p: Principal): void {
  if (!allows(p, 'manage_keys')) throw new AgentRunError('forbidden', 'managing API keys needs the manage_keys scope');
}

/**
 * API keys as a resource (docs/management-api.md, "API keys"): create (the key shown once), list,
 * revoke; each scoped to the caller's team. A key gets no scope its creator lacks.
 */
export class ApiKeyService {
  constructor(
    private readonly deps: {
      store: ApiKeyStore;
      clock: Clock;
      onEvent?: (event: ApiKeyEvent) => void | Promise<void>;
      /** A failing `onEvent` is reported here; the change it reports is made and answered anyway. */
      onError: (error: unknown) => void;
    },
  ) {}

  /** Tell the hook; its failure must not turn a made change into an error answer (the key would be lost unseen). */
  private async tell(event: ApiKeyEvent): Promise<void> {
    try {
      await this.deps.onEvent?.(event);
    } catch (error) {
      this.deps.onError(error);
    }
  }

  async create(p: Principal, input: unknown): Promise<ApiKeyView & { key: string }> {
    requireKeyManagement(p);
    const body = parseOrThrow(CreateApiKeySchema, input, 'API key');
    const missing = body.scopes.filter((s: ApiKeyScope) => !allows(p, s));
    if (missing.length > 0) throw new AgentRunError('forbidden', `a key cannot get a scope its creator lacks: ${missing.join(', ')}`);
    const now = this.deps.clock.now();
    const expiresMs = body.expires_at === undefined ? undefined : Date.parse(body.expires_at);
    if (expiresMs !== undefined && !(expiresMs > now)) throw invalidRequest('API key: expires_at must be in the future');
    const creator = { type: p.type, uid: p.uid, ...(p.display_name !== undefined ? { display_name: p.display_name } : {}) };
    const id = newId();
    const { key, record } = await mintApiKey(
      this.deps.store,
      // The key acts as a service account of the creator's team, named after it.
      { type: 'service_account', uid: `api-key:${id}`, display_name: body.name, team_uid: p.team_uid },
      {
        id,
        clock: this.deps.clock,
        name: body.name,
        scopes: body.scopes,
        createdBy: creator,
        ...(expiresMs !== undefined ? { expiresAt: isoTime(expiresMs) } : {}),
      },
    );
    const view = apiKeyView(record);
    await this.tell({ kind: 'api_key.created', principal: p, key: view, at: record.createdAt });
    return { ...view, key };
  }

  async list(p: Principal): Promise<{ api_keys: ApiKeyView[] }> {
    requireKeyManagement(p);
    return { api_keys: (await this.deps.store.list(p.team_uid)).map(apiKeyView) };
  }

  /** Revoking a revoked key changes nothing and is not an error; another team's key is not found. */
  async revoke(p: Principal, id: string): Promise<void> {
    requireKeyManagement(p);
    const at = isoTime(this.deps.clock.now());
    const answer = await this.deps.store.revoke(p.team_uid, id, at);
    if (!answer) throw notFound(`API key ${id} not found`);
    if (answer.revoked) await this.tell({ kind: 'api_key.revoked', principal: p, key: apiKeyView(answer.record), at });
  }
}
