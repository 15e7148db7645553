import * as v from 'valibot';
import { SecretNameSchema } from '../control/schemas.js';
import { jsonMap, jsonObject } from '../models/json.js';
import type { EnvironmentRepository } from './records.js';

// The body of an environment (docs/repositories.md, "Environments"): the API's create and replace
// take it as is; a definition file `environments/<name>.yaml` is the same keys without `name`.

/** An environment's name: as a definition file's name, so that a file can always hold one. */
const EnvironmentNameSchema = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'must be 1-100 of A-Z a-z 0-9 _ - . and start with a letter or digit'),
);

/** `https://…`, `http://…`, `file://…`, `ssh://…`, `git@host:path`, or a registered `<owner>/<repo>`. */
const RepositorySchema = v.pipe(
  v.string(),
  v.maxLength(2048),
  v.regex(
    /^(?:(?:https?|file|ssh):\/\/\S+|[A-Za-z0-9_.-]+@[A-Za-z0-9.-]+:\S+|[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)$/,
    'must be a clone URL (https://, http://, file://, ssh://, user@host:path) or <owner>/<repo>',
  ),
);

/** Whether an environment's `repository` is the `<owner>/<repo>` name of a registered repository (else a clone URL). */
export const isRepositoryName = (repository: string): boolean => /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository);

/** A relative path inside the workspace: no `..`, no leading `/`, no empty segment. */
const DirectorySchema = v.pipe(
  v.string(),
  v.maxLength(512),
  v.check(
    (d) => d.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('\\')),
    'must be a relative path inside the workspace (no .., no leading /, no empty part)',
  ),
);

/** A ref as git takes one (`git check-ref-format` rules, in short) or a commit SHA. */
const RefSchema = v.pipe(
  v.string(),
  v.regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]{1,255}(?<![./])$/, 'must be a branch, tag or commit SHA'),
);

const VariableNameSchema = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name'));

const ENVIRONMENT_LIMITS = { repositories: 20, setup: 50, commandLength: 10_000, variables: 100, maxTimeoutSeconds: 7200 } as const;

export const environmentFields = {
  repositories: v.optional(
    v.pipe(
      v.array(
        jsonObject({
          repository: RepositorySchema,
          ref: v.optional(RefSchema, 'HEAD'),
          directory: v.optional(DirectorySchema),
        }),
      ),
      v.maxLength(ENVIRONMENT_LIMITS.repositories),
    ),
    [],
  ),
  setup: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(ENVIRONMENT_LIMITS.commandLength))),
      v.maxLength(ENVIRONMENT_LIMITS.setup),
    ),
    [],
  ),
  variables: v.optional(v.pipe(jsonMap(VariableNameSchema, SecretNameSchema), v.maxEntries(ENVIRONMENT_LIMITS.variables)), {}),
  setup_timeout_seconds: v.optional(
    v.pipe(v.number(), v.integer('must be a whole number of seconds'), v.minValue(1), v.maxValue(ENVIRONMENT_LIMITS.maxTimeoutSeconds)),
    600,
  ),
};

/** `POST /environments` and `PUT /environments/{environmentId}`. */
export const EnvironmentBodySchema = jsonObject({ name: EnvironmentNameSchema, ...environmentFields });
export type EnvironmentBody = v.InferOutput<typeof EnvironmentBodySchema>;

/** The repositories as stored: each with its directory (default: the repository's last path part, without `.git`). */
export function repositoriesOf(body: Pick<EnvironmentBody, 'repositories'>): EnvironmentRepository[] {
  return body.repositories.map((r) => ({
    repository: r.repository,
    ref: r.ref,
    directory: r.directory ?? defaultDirectory(r.repository),
  }));
}

const defaultDirectory = (repository: string): string =>
  repository
    .replace(/\/+$/, '')
    .split(/[/:]/)
    .pop()
    ?.replace(/\.git$/, '') || 'repository';
