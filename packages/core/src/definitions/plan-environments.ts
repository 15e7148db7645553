import stableStringify from 'fast-json-stable-stringify';
import { environmentProblems, type TeamNames } from '../environments/check.js';
import type { EnvironmentRecord } from '../environments/records.js';
import { containerOf, repositoriesOf } from '../environments/schemas.js';
import type { FieldError } from '../errors.js';
import { newId } from '../util/ids.js';
import type { EnvironmentDefinition } from './schemas.js';
import type { DefinitionAction, PlannedEnvironment } from './wire.js';

// The environment files of an apply (docs/repositories.md, "Environment files"): what each
// `environments/<name>.yaml` becomes. A file's environment is the one of its name this factory's
// files made, else one of its name made through the API (adopted, keeping its id), else a new one.

export interface EnvironmentPlanInput {
  teamUid: string;
  factoryUid: string;
  files: readonly EnvironmentDefinition[];
  /** The team's environments, every factory's and the API's. */
  environments: readonly EnvironmentRecord[];
  teamNames: TeamNames;
  prune: boolean;
  now: string;
}

export interface EnvironmentPlan {
  errors: FieldError[];
  planned: PlannedEnvironment[];
  put: EnvironmentRecord[];
  delete: string[];
  /** The ids of the team's environments after the apply: what automations may name. */
  ids: Set<string>;
}

export function planEnvironments(input: EnvironmentPlanInput): EnvironmentPlan {
  const plan: EnvironmentPlan = { errors: [], planned: [], put: [], delete: [], ids: new Set(input.environments.map((e) => e.id)) };
  const error = (path: string, detail: string) => plan.errors.push({ path, detail });
  const claimed = new Set<string>();
  const seen = new Set<string>();
  for (const [i, d] of input.files.entries()) {
    if (seen.has(d.name)) {
      error(`environments.${i}.name`, `a second environment file named ${d.name}`);
      continue;
    }
    seen.add(d.name);
    const namesake = input.environments.find((e) => e.name === d.name);
    if (namesake && namesake.factoryUid !== null && namesake.factoryUid !== input.factoryUid) {
      error(
        `environments.${i}.name`,
        `environment ${d.name} is defined by factory ${namesake.factoryUid}'s files; names are unique in a team`,
      );
      continue;
    }
    const current = namesake;
    let action: DefinitionAction = !current ? 'create' : current.factoryUid === null ? 'adopt' : 'update';
    const repositories = repositoriesOf(d);
    plan.errors.push(...environmentProblems({ repositories, variables: d.variables }, input.teamNames, `environments.${i}.`));
    const record: EnvironmentRecord = {
      id: current?.id ?? newId(),
      teamUid: input.teamUid,
      factoryUid: input.factoryUid,
      name: d.name,
      repositories,
      setup: d.setup,
      variables: d.variables,
      setupTimeoutSeconds: d.setup_timeout_seconds,
      ...containerOf(d),
      createdAt: current?.createdAt ?? input.now,
      updatedAt: input.now,
    };
    if (current) claimed.add(current.id);
    plan.ids.add(record.id);
    const changes = current ? changedKeys(current, record) : [];
    if (action === 'update' && changes.length === 0) action = 'unchanged';
    if (action !== 'unchanged') plan.put.push(record);
    plan.planned.push({ name: d.name, action, id: record.id, changes });
  }
  for (const e of input.environments) {
    if (e.factoryUid !== input.factoryUid || claimed.has(e.id)) continue;
    if (!input.prune) {
      error(
        'environments',
        `environment ${e.name} (${e.id}) has no file environments/${e.name}.yaml: restore the file, or apply with --prune to delete it`,
      );
      continue;
    }
    plan.delete.push(e.id);
    plan.ids.delete(e.id);
    plan.planned.push({ name: e.name, action: 'delete', id: e.id, changes: [] });
  }
  return plan;
}

/** The keys (snake_case, as the API names them) whose value the apply changes. */
function changedKeys(current: EnvironmentRecord, next: EnvironmentRecord): string[] {
  const changes: string[] = [];
  if (current.factoryUid !== next.factoryUid) changes.push('factory_uid');
  if (stableStringify(current.repositories) !== stableStringify(next.repositories)) changes.push('repositories');
  if (stableStringify(current.setup) !== stableStringify(next.setup)) changes.push('setup');
  if (stableStringify(current.variables) !== stableStringify(next.variables)) changes.push('variables');
  if (current.setupTimeoutSeconds !== next.setupTimeoutSeconds) changes.push('setup_timeout_seconds');
  if (current.image !== next.image) changes.push('image');
  if (stableStringify(current.limits ?? {}) !== stableStringify(next.limits ?? {})) changes.push('limits');
  return changes;
}
