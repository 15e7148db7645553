import stableStringify from 'fast-json-stable-stringify';
import { appliedSecretName, isFileDefined, teamSecretNameOf } from '../control/applied-secret.js';
import type { AutomationRecord, SecretRecord, WebhookRecord, WebhookTrigger } from '../control/records.js';
import { secretUnfitFor } from '../control/secret-fit.js';
import { webhookView } from '../control/views.js';
import type { TeamNames } from '../environments/check.js';
import type { EnvironmentRecord } from '../environments/records.js';
import { type FieldError, isAgentRunError } from '../errors.js';
import { parseFilter } from '../filter/index.js';
import { newId } from '../util/ids.js';
import { planEnvironments } from './plan-environments.js';
import type { AppliedAutomation, AppliedWebhook, DefinitionSetRecord } from './records.js';
import { type ApplyDefinitions, type AutomationDefinition, triggerParts, type WebhookDefinition } from './schemas.js';
import type { DefinitionAction, PlannedAutomation, PlannedEnvironment, PlannedWebhook } from './wire.js';

// The plan of an apply (docs/definitions.md, "Applying"): what each file becomes, from the factory
// as it is now. Pure: apply.ts reads what it needs, asks for a plan, then writes it whole.

/** What the plan is computed from. */
export interface PlanInput {
  teamUid: string;
  factoryUid: string;
  body: ApplyDefinitions;
  set: DefinitionSetRecord | undefined;
  /** The factory's live webhooks and its automations. */
  webhooks: readonly WebhookRecord[];
  automations: readonly AutomationRecord[];
  /** The team secrets the files name, opened; absent: the team has none of that name. */
  secrets: ReadonlyMap<string, { record: SecretRecord; value: string }>;
  /** The team's environments, secret names and repository names, for the environment files (plan-environments.ts). */
  environments: readonly EnvironmentRecord[];
  teamNames: TeamNames;
  now: string;
  origin: string;
  maxWebhooksPerFactory: number;
  /**
   * Apply again each webhook whose team secret has a new value since it last applied, unchanged
   * file or not: a factory's source does, so a managed secret's new value takes effect at the
   * next applied commit (docs/repositories.md, "Managed secrets"; seed 4.9 item 4).
   */
  renewSecrets?: boolean;
}

/** A webhook to write, and the team secret whose value it is to verify with from now on. */
interface WebhookWrite {
  record: WebhookRecord;
  copyOf?: { secretName: string; value: string };
}

export interface Plan {
  errors: FieldError[];
  webhooks: PlannedWebhook[];
  automations: PlannedAutomation[];
  /** Whether applying it writes anything (a factory's first apply always does). */
  changes: boolean;
  /** The set after the apply, without its version. */
  set: Omit<DefinitionSetRecord, 'version'>;
  putWebhooks: WebhookWrite[];
  deleteSecrets: string[];
  putAutomations: AutomationRecord[];
  deleteAutomations: string[];
  environments: PlannedEnvironment[];
  putEnvironments: EnvironmentRecord[];
  deleteEnvironments: string[];
}

export function planApply(input: PlanInput): Plan {
  const plan: Plan = {
    errors: [],
    webhooks: [],
    automations: [],
    changes: input.set === undefined,
    set: { teamUid: input.teamUid, factoryUid: input.factoryUid, appliedAt: input.now, webhooks: [], automations: [] },
    putWebhooks: [],
    deleteSecrets: [],
    putAutomations: [],
    deleteAutomations: [],
    environments: [],
    putEnvironments: [],
    deleteEnvironments: [],
  };
  const uidByName = planWebhooks(input, plan);
  const environments = planEnvironments({ ...input, files: input.body.environments, prune: input.body.prune });
  plan.errors.push(...environments.errors);
  plan.environments = environments.planned;
  plan.putEnvironments = environments.put;
  plan.deleteEnvironments = environments.delete;
  if (environments.put.length > 0 || environments.delete.length > 0) plan.changes = true;
  planAutomations(input, plan, uidByName, environments.ids);
  return plan;
}

function planWebhooks(input: PlanInput, plan: Plan): Map<string, string> {
  const { body, now } = input;
  const error = (path: string, detail: string) => plan.errors.push({ path, detail });
  const applied = new Map((input.set?.webhooks ?? []).map((e) => [e.name, e]));
  // A webhook of a file's name made through the API (never applied) is taken over, keeping its UID and URL.
  const identity = identities(
    input.webhooks,
    (input.set?.webhooks ?? []).map((e) => ({ name: e.name, id: e.uid })),
    (w) => w.uid,
    (w) => !isFileDefined(w),
  );
  const claimed = new Set<string>();
  const uidByName = new Map<string, string>();
  const created: { index: number; definition: WebhookDefinition }[] = [];

  if (body.webhooks.length > input.maxWebhooksPerFactory)
    error('webhooks', `${body.webhooks.length} webhook files; a factory may have at most ${input.maxWebhooksPerFactory} webhooks`);

  for (const [i, d] of body.webhooks.entries()) {
    if (uidByName.has(d.name)) {
      error(`webhooks.${i}.name`, `a second webhook file named ${d.name}`);
      continue;
    }
    const entry = applied.get(d.name);
    const found = identity.find(d.name);
    if ('ambiguous' in found) {
      error(`webhooks.${i}.name`, `the factory has ${found.ambiguous} webhooks named ${d.name}; delete all but one first`);
      continue;
    }
    const { current } = found;
    let action: DefinitionAction = found.action;
    const uid = current?.uid ?? newId();
    uidByName.set(d.name, uid);
    if (current) claimed.add(current.uid);
    if (action === 'create') created.push({ index: i, definition: d });

    const record: WebhookRecord = {
      uid,
      teamUid: input.teamUid,
      factoryUid: input.factoryUid,
      name: d.name,
      authMode: d.auth_mode,
      signatureScheme: d.signature_scheme ?? null,
      secretName: appliedSecretName(d.secret_name, uid),
      deliveryIdHeader: d.delivery_id_header ?? null,
      enabled: d.enabled,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
      deletedAt: null,
    };
    const changes = current ? changedKeys(current, record, d.secret_name) : [];
    if (action === 'update' && changes.length === 0) action = 'unchanged';
    const secret = input.secrets.get(d.secret_name);
    if (action === 'unchanged' && input.renewSecrets && secret && secret.record.updatedAt !== entry?.secretUpdatedAt) {
      action = 'update';
      changes.push('secret_value');
    }

    let secretUpdatedAt = entry?.secretUpdatedAt ?? now;
    if (action !== 'unchanged') {
      plan.changes = true;
      if (!secret) {
        error(
          `webhooks.${i}.secret_name`,
          `no team secret named ${d.secret_name}; create it first (agentrun secret create ${d.secret_name} --team)`,
        );
      } else {
        const problem = secretUnfitFor(d.auth_mode, secret.value);
        if (problem) error(`webhooks.${i}.secret_name`, `team secret ${d.secret_name} ${problem}`);
        secretUpdatedAt = secret.record.updatedAt;
        plan.putWebhooks.push({ record, copyOf: { secretName: d.secret_name, value: secret.value } });
        // An adopted webhook's or a renamed secret's old copy is not needed any more.
        if (current && isFileDefined(current) && current.secretName !== record.secretName) plan.deleteSecrets.push(current.secretName);
      }
    }
    const shown = action === 'unchanged' && current ? current : record;
    plan.set.webhooks.push({ name: d.name, uid, secretName: d.secret_name, secretUpdatedAt } satisfies AppliedWebhook);
    plan.webhooks.push({
      name: d.name,
      action,
      uid,
      changes,
      ingress_url: webhookView(shown, input.origin).ingress_url,
      secret_pending: action === 'unchanged' && secret !== undefined && secret.record.updatedAt !== entry?.secretUpdatedAt,
    });
  }

  // The factory's webhooks that no file names.
  for (const w of input.webhooks) {
    if (claimed.has(w.uid)) continue;
    const renamed = created.find(
      ({ definition: d }) =>
        d.auth_mode === w.authMode && (d.signature_scheme ?? null) === w.signatureScheme && d.secret_name === teamSecretNameOf(w),
    );
    if (renamed) {
      error(
        `webhooks.${renamed.index}.name`,
        `webhooks/${renamed.definition.name}.yaml looks like webhooks/${w.name}.yaml renamed (same authMode, signatureScheme and secretName as webhook ${w.uid}): renaming a webhook is not supported. Keep webhooks/${w.name}.yaml; or roll over: add the new file beside the old one, apply, move the sender to the new URL, then delete the old file and apply with --prune`,
      );
      continue;
    }
    if (!input.body.prune) {
      error(
        'webhooks',
        `webhook ${w.name} (${w.uid}) has no file webhooks/${w.name}.yaml: restore the file, or apply with --prune to delete the webhook (its URL then answers 404)`,
      );
      continue;
    }
    plan.changes = true;
    plan.putWebhooks.push({ record: { ...w, updatedAt: now, deletedAt: now } });
    if (isFileDefined(w)) plan.deleteSecrets.push(w.secretName);
    plan.webhooks.push({
      name: w.name,
      action: 'delete',
      uid: w.uid,
      changes: [],
      ingress_url: webhookView(w, input.origin).ingress_url,
      secret_pending: false,
    });
  }
  return uidByName;
}

/**
 * How the files of one kind find what they are: the record their last apply made, else one record
 * of their name that no apply made (adopted), else a new one. Several such namesakes: ambiguous.
 */
function identities<R extends { name: string }>(
  records: readonly R[],
  applied: readonly { name: string; id: string }[],
  idOf: (record: R) => string,
  adoptable: (record: R) => boolean,
) {
  const byId = new Map(records.map((r) => [idOf(r), r]));
  const byName = new Map(applied.map((e) => [e.name, e.id]));
  const appliedIds = new Set(applied.map((e) => e.id));
  return {
    find(name: string): { current: R | undefined; action: 'create' | 'update' | 'adopt' } | { ambiguous: number } {
      const id = byName.get(name);
      const current = id === undefined ? undefined : byId.get(id);
      if (current) return { current, action: 'update' };
      const namesakes = records.filter((r) => r.name === name && !appliedIds.has(idOf(r)) && adoptable(r));
      if (namesakes.length > 1) return { ambiguous: namesakes.length };
      return namesakes[0] ? { current: namesakes[0], action: 'adopt' } : { current: undefined, action: 'create' };
    },
  };
}

/** The definition keys whose value the apply changes (snake_case, as the API names them). */
function changedKeys(current: WebhookRecord, next: WebhookRecord, secretName: string): string[] {
  const changes: string[] = [];
  if (current.authMode !== next.authMode) changes.push('auth_mode');
  if (current.signatureScheme !== next.signatureScheme) changes.push('signature_scheme');
  if (!isFileDefined(current) || teamSecretNameOf(current) !== secretName) changes.push('secret_name');
  if (current.deliveryIdHeader !== next.deliveryIdHeader) changes.push('delivery_id_header');
  if (current.enabled !== next.enabled) changes.push('enabled');
  return changes;
}

function planAutomations(input: PlanInput, plan: Plan, uidByName: ReadonlyMap<string, string>, environmentIds: ReadonlySet<string>): void {
  const { body, now } = input;
  const error = (path: string, detail: string) => plan.errors.push({ path, detail });
  const identity = identities(
    input.automations,
    input.set?.automations ?? [],
    (a) => a.id,
    () => true,
  );
  const claimed = new Set<string>();
  const seen = new Set<string>();

  for (const [i, d] of body.automations.entries()) {
    if (seen.has(d.name)) {
      error(`automations.${i}.name`, `a second automation file named ${d.name}`);
      continue;
    }
    seen.add(d.name);
    const found = identity.find(d.name);
    if ('ambiguous' in found) {
      error(`automations.${i}.name`, `the factory has ${found.ambiguous} automations named ${d.name}; delete all but one first`);
      continue;
    }
    const { current } = found;
    let action: DefinitionAction = found.action;
    const triggers = triggersOf(input, d, i, uidByName, error);
    const environmentId = d.config?.environment_id;
    if (environmentId !== undefined && !environmentIds.has(environmentId))
      error(`automations.${i}.config.environment_id`, `no environment ${environmentId} in this team`);
    const record: AutomationRecord = {
      id: current?.id ?? newId(),
      teamUid: input.teamUid,
      factoryUid: input.factoryUid,
      name: d.name,
      prompt: d.prompt,
      enabled: d.enabled,
      config: d.config ?? null,
      triggers,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    if (current) claimed.add(current.id);
    const changes = current ? automationChanges(current, record) : [];
    if (action === 'update' && changes.length === 0) action = 'unchanged';
    if (action !== 'unchanged') {
      plan.changes = true;
      plan.putAutomations.push(record);
    }
    plan.set.automations.push({ name: d.name, id: record.id } satisfies AppliedAutomation);
    plan.automations.push({ name: d.name, action, id: record.id, changes });
  }

  for (const a of input.automations) {
    if (claimed.has(a.id)) continue;
    if (!body.prune) {
      error(
        'automations',
        `automation ${a.name} (${a.id}) has no file automations/${a.name}.yaml: restore the file, or apply with --prune to delete it`,
      );
      continue;
    }
    plan.changes = true;
    plan.deleteAutomations.push(a.id);
    plan.automations.push({ name: a.name, action: 'delete', id: a.id, changes: [] });
  }
}

/**
 * The triggers as stored, from either shape (docs/definitions.md, "Triggers"): webhook file names
 * turned into UIDs, or UIDs checked against the webhooks the factory has after this apply; each
 * payload filter checked. Both shapes store the same trigger, so switching shapes changes nothing.
 */
function triggersOf(
  input: PlanInput,
  d: AutomationDefinition,
  i: number,
  uidByName: ReadonlyMap<string, string>,
  error: (path: string, detail: string) => void,
): WebhookTrigger[] {
  // The webhooks the factory keeps: each has a file in this apply (an adopted one keeps the UID it was made with).
  const kept = new Set(uidByName.values());
  return d.triggers.map((t, j) => {
    const at = `automations.${i}.triggers.${j}`;
    const { byName, webhooks, webhooksPath, payload, payloadPath } = triggerParts(t);
    const ids = webhooks.map((named, k) => {
      const uid = byName ? uidByName.get(named) : kept.has(named) ? named : undefined;
      if (uid === undefined)
        error(`${at}.${webhooksPath}.${k}`, byName ? `no webhook file webhooks/${named}.yaml` : unknownUid(input, named));
      return uid ?? named;
    });
    const filter: WebhookTrigger['filter'] = { webhook_ids: [...new Set(ids)] };
    if (payload !== undefined && payload !== null) {
      try {
        filter.payload = parseFilter(payload, `${at}.${payloadPath}`) as Record<string, unknown>;
      } catch (cause) {
        if (!isAgentRunError(cause)) throw cause;
        // The detail is `<path>: <problem>`, the path down to the failing key of the filter.
        const split = cause.detail.indexOf(': ');
        error(cause.detail.slice(0, split), cause.detail.slice(split + 2));
      }
    }
    return { provider: 'webhook', event: 'received', filter };
  });
}

/** Why a trigger's UID names no webhook the factory keeps: none of that UID, or one this apply leaves without a file. */
function unknownUid(input: PlanInput, uid: string): string {
  const live = input.webhooks.find((w) => w.uid === uid);
  return live
    ? `webhook ${uid} (${live.name}) has no file webhooks/${live.name}.yaml, so this apply does not keep it; add the file, or name a webhook that has one`
    : `no webhook ${uid} in factory ${input.factoryUid}`;
}

function automationChanges(current: AutomationRecord, next: AutomationRecord): string[] {
  const changes: string[] = [];
  if (current.name !== next.name) changes.push('name');
  if (current.prompt !== next.prompt) changes.push('prompt');
  if (current.enabled !== next.enabled) changes.push('enabled');
  if (stableStringify(current.config) !== stableStringify(next.config)) changes.push('config');
  if (stableStringify(current.triggers) !== stableStringify(next.triggers)) changes.push('triggers');
  return changes;
}
