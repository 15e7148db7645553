import type {
  AuditEventRecord,
  AutomationRecord,
  AutomationStore,
  DefinitionSetRecord,
  DefinitionStore,
  DeliveryContext,
  FactoryRecord,
  FactoryStore,
  ScheduleRecord,
  SecretRecord,
  SecretStore,
  WebhookRecord,
  WebhookSelection,
  WebhookStore,
} from '@agentrun/core/store';
import { copy as clone } from './copy.js';
import type { EnvironmentWrites } from './environments.js';
import { selectsWebhook } from './ingress.js';

const key = (...parts: string[]) => parts.join('\u0000');
const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
};
const byCreated = <T extends { createdAt: string }>(a: T, b: T) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);

/**
 * What the ingress and the evaluation read about a webhook, taken in one synchronous step (see
 * `DeliveryStore.context` and `DeliveryStore.selections`).
 */
export type WebhookSnapshot = Pick<DeliveryContext, 'webhook' | 'secret'> & Pick<WebhookSelection, 'automations'>;

/**
 * Factories, team secrets, webhooks, automations and definition sets in memory; each operation is
 * synchronous, so atomic. `webhookSnapshot` is for the memory ingress, not part of the Store.
 */
export function createMemoryControlPlane(
  audit: (event: AuditEventRecord | undefined) => void,
  environmentWrites?: EnvironmentWrites,
  /** The definitions write's schedules (schedules.ts), in the same synchronous step. */
  scheduleWrites?: (puts: readonly ScheduleRecord[], deletes: readonly string[], teamUid: string, factoryUid: string) => void,
): {
  factories: FactoryStore;
  secrets: SecretStore;
  webhooks: WebhookStore;
  automations: AutomationStore;
  definitions: DefinitionStore;
  webhookSnapshot(uid: string): WebhookSnapshot | undefined;
} {
  const factories = new Map<string, FactoryRecord>();
  const secrets = new Map<string, SecretRecord>();
  const webhooks = new Map<string, WebhookRecord>();
  const automations = new Map<string, AutomationRecord>();
  const definitionSets = new Map<string, DefinitionSetRecord>();
  /**
   * What `listForWebhook` answered, by webhook, until any automation changes: the ingress asks on
   * every delivery, and scanning every automation each time costs more than all else it does.
   * Frozen snapshots, so callers cannot alias (or change) what is stored.
   */
  const forWebhook = new Map<string, readonly AutomationRecord[]>();
  /** One frozen snapshot per automation, shared by every answer it is part of. */
  const snapshots = new Map<string, AutomationRecord>();
  /**
   * The ingress's view of a webhook and its secret (`webhookSnapshot`), frozen, by webhook UID,
   * until any webhook or secret is written: asked on every delivery and at every evaluation,
   * where copying both records each time was a cost of its own. Holds only webhooks that exist.
   */
  const webhookSnapshots = new Map<string, { webhook: WebhookRecord; secret: SecretRecord | undefined }>();
  const webhooksChanged = () => webhookSnapshots.clear();
  const changed = () => {
    forWebhook.clear();
    snapshots.clear();
    webhooksChanged();
  };
  const snapshotOf = (a: AutomationRecord) => {
    let snapshot = snapshots.get(a.id);
    if (snapshot === undefined) {
      snapshot = deepFreeze(clone(a));
      snapshots.set(a.id, snapshot);
    }
    return snapshot;
  };

  return {
    factories: {
      async create(record) {
        if (factories.has(record.uid)) throw new Error(`factory ${record.uid} already exists`);
        const foreman = record.foremanAgentIdentityUid;
        if (
          foreman !== null &&
          [...factories.values()].some((f) => f.teamUid === record.teamUid && f.foremanAgentIdentityUid === foreman)
        ) {
          return { created: false, reason: 'foreman_taken' };
        }
        factories.set(record.uid, clone(record));
        return { created: true };
      },
      async get(teamUid, uid) {
        const f = factories.get(uid);
        return f && f.teamUid === teamUid ? clone(f) : undefined;
      },
      async list(teamUid) {
        return [...factories.values()]
          .filter((f) => f.teamUid === teamUid)
          .sort(byCreated)
          .map(clone);
      },
      async findByForeman(teamUid, agentIdentityUid) {
        const f = [...factories.values()].find((f) => f.teamUid === teamUid && f.foremanAgentIdentityUid === agentIdentityUid);
        return f ? clone(f) : undefined;
      },
    },

    secrets: {
      async put(record, event) {
        const k = key(record.teamUid, record.name);
        const existing = secrets.get(k);
        secrets.set(k, clone(existing ? { ...record, createdAt: existing.createdAt } : record));
        webhooksChanged();
        audit(event);
        return { created: !existing };
      },
      async get(teamUid, name) {
        // SecretRecord is flat (strings only): a spread is a full copy, far cheaper than a clone.
        const s = secrets.get(key(teamUid, name));
        return s ? { ...s } : undefined;
      },
      async list(teamUid) {
        return [...secrets.values()]
          .filter((s) => s.teamUid === teamUid)
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map(clone);
      },
      async delete(teamUid, name, event) {
        const deleted = secrets.delete(key(teamUid, name));
        webhooksChanged();
        if (deleted) audit(event);
        return deleted;
      },
      async scan(after, limit) {
        const beyond = (s: SecretRecord) => !after || s.teamUid > after.teamUid || (s.teamUid === after.teamUid && s.name > after.name);
        return [...secrets.values()]
          .filter(beyond)
          .sort((a, b) => (a.teamUid !== b.teamUid ? (a.teamUid < b.teamUid ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .slice(0, limit)
          .map(clone);
      },
      async reseal(teamUid, name, expected, ciphertext) {
        const existing = secrets.get(key(teamUid, name));
        if (existing?.ciphertext !== expected) return false;
        secrets.set(key(teamUid, name), { ...existing, ciphertext });
        webhooksChanged();
        return true;
      },
    },

    webhooks: {
      async create({ webhook, secret, maxPerFactory, audit: event }) {
        const live = [...webhooks.values()].filter((w) => w.factoryUid === webhook.factoryUid && w.deletedAt === null).length;
        if (live >= maxPerFactory) return { created: false, reason: 'limit' };
        if (secret && secrets.has(key(secret.teamUid, secret.name))) return { created: false, reason: 'secret_exists' };
        if (secret) secrets.set(key(secret.teamUid, secret.name), clone(secret));
        webhooks.set(webhook.uid, clone(webhook));
        webhooksChanged();
        audit(event);
        return { created: true };
      },
      async get(teamUid, factoryUid, uid) {
        const w = webhooks.get(uid);
        return w && w.teamUid === teamUid && w.factoryUid === factoryUid ? clone(w) : undefined;
      },
      async getByUid(uid) {
        // Asked on every delivery. WebhookRecord is flat (strings, booleans, null): a spread copies it.
        const w = webhooks.get(uid);
        return w ? { ...w } : undefined;
      },
      async list(teamUid, factoryUid) {
        return liveWebhooksOf(teamUid, factoryUid);
      },
      async update(teamUid, factoryUid, uid, patch, now, event) {
        const w = webhooks.get(uid);
        if (!w || w.teamUid !== teamUid || w.factoryUid !== factoryUid || w.deletedAt !== null) return undefined;
        if (patch.enabled !== undefined) w.enabled = patch.enabled;
        if (patch.deliveryIdHeader !== undefined) w.deliveryIdHeader = patch.deliveryIdHeader;
        if (patch.deletedAt !== undefined) w.deletedAt = patch.deletedAt;
        w.updatedAt = now;
        webhooksChanged();
        audit(event);
        return clone(w);
      },
    },

    automations: {
      async create(record, event) {
        if (automations.has(record.id)) throw new Error(`automation ${record.id} already exists`);
        automations.set(record.id, clone(record));
        audit(event);
        changed();
      },
      async get(teamUid, factoryUid, id) {
        const a = automations.get(id);
        return a && a.teamUid === teamUid && a.factoryUid === factoryUid ? clone(a) : undefined;
      },
      async list(teamUid, factoryUid) {
        return automationsOf(teamUid, factoryUid);
      },
      async replace(record, event) {
        const a = automations.get(record.id);
        if (!a || a.teamUid !== record.teamUid || a.factoryUid !== record.factoryUid) return false;
        automations.set(record.id, clone({ ...record, createdAt: a.createdAt }));
        changed();
        audit(event);
        return true;
      },
      async delete(teamUid, factoryUid, id, event) {
        const a = automations.get(id);
        if (!a || a.teamUid !== teamUid || a.factoryUid !== factoryUid) return false;
        changed();
        audit(event);
        return automations.delete(id);
      },
      async listForWebhook(webhookUid) {
        return automationsFor(webhookUid) as AutomationRecord[];
      },
    },

    definitions: {
      async get(teamUid, factoryUid) {
        const set = definitionSets.get(key(teamUid, factoryUid));
        return set ? clone(set) : undefined;
      },
      async snapshot(teamUid, factoryUid) {
        // Synchronous, so of one moment: no write can come between the three reads.
        const set = definitionSets.get(key(teamUid, factoryUid));
        return {
          set: set ? clone(set) : undefined,
          webhooks: liveWebhooksOf(teamUid, factoryUid),
          automations: automationsOf(teamUid, factoryUid),
        };
      },
      async write(change) {
        const { set } = change;
        const k = key(set.teamUid, set.factoryUid);
        if ((definitionSets.get(k)?.version ?? 0) !== change.expectedVersion) return { applied: false, reason: 'stale' };
        // The limit is checked on the factory as it would be, before anything is written.
        const after = new Map([...webhooks].filter(([, w]) => w.factoryUid === set.factoryUid));
        for (const w of change.putWebhooks) after.set(w.uid, w);
        if ([...after.values()].filter((w) => w.deletedAt === null).length > change.maxWebhooksPerFactory)
          return { applied: false, reason: 'limit' };
        const putEnvironments = change.putEnvironments ?? [];
        const deleteEnvironments = change.deleteEnvironments ?? [];
        if (environmentWrites && !environmentWrites.fits(putEnvironments, deleteEnvironments, set.teamUid))
          return { applied: false, reason: 'stale' };
        environmentWrites?.write(putEnvironments, deleteEnvironments, set.teamUid);
        scheduleWrites?.(change.putSchedules ?? [], change.deleteSchedules ?? [], set.teamUid, set.factoryUid);
        for (const s of change.putSecrets) {
          const existing = secrets.get(key(s.teamUid, s.name));
          secrets.set(key(s.teamUid, s.name), clone(existing ? { ...s, createdAt: existing.createdAt } : s));
        }
        for (const name of change.deleteSecrets) secrets.delete(key(set.teamUid, name));
        for (const w of change.putWebhooks) webhooks.set(w.uid, clone(w));
        for (const a of change.putAutomations) {
          const existing = automations.get(a.id);
          automations.set(a.id, clone(existing ? { ...a, createdAt: existing.createdAt } : a));
        }
        for (const id of change.deleteAutomations) automations.delete(id);
        changed();
        definitionSets.set(k, clone(set));
        audit(change.audit);
        return { applied: true };
      },
    },

    webhookSnapshot(uid) {
      let held = webhookSnapshots.get(uid);
      if (held === undefined) {
        const webhook = webhooks.get(uid);
        if (!webhook) return undefined;
        const secret = secrets.get(key(webhook.teamUid, webhook.secretName));
        // Both records are flat: a frozen spread is a full copy no caller can change.
        held = { webhook: Object.freeze({ ...webhook }), secret: secret && Object.freeze({ ...secret }) };
        webhookSnapshots.set(uid, held);
      }
      return { webhook: held.webhook, secret: held.secret, automations: automationsFor(uid) as AutomationRecord[] };
    },
  };

  function liveWebhooksOf(teamUid: string, factoryUid: string): WebhookRecord[] {
    return [...webhooks.values()]
      .filter((w) => w.teamUid === teamUid && w.factoryUid === factoryUid && w.deletedAt === null)
      .sort(byCreated)
      .map(clone);
  }

  function automationsOf(teamUid: string, factoryUid: string): AutomationRecord[] {
    return [...automations.values()]
      .filter((a) => a.teamUid === teamUid && a.factoryUid === factoryUid)
      .sort(byCreated)
      .map(clone);
  }

  function automationsFor(webhookUid: string): readonly AutomationRecord[] {
    let answer = forWebhook.get(webhookUid);
    if (answer === undefined) {
      answer = Object.freeze(
        [...automations.values()]
          .filter((a) => selectsWebhook(a, webhookUid))
          .sort(byCreated)
          .map(snapshotOf),
      );
      // Bounded by the webhooks asked about; a caller asking for endless unknown uids starts it over.
      if (forWebhook.size >= 10_000) forWebhook.clear();
      forWebhook.set(webhookUid, answer);
    }
    return answer;
  }
}
