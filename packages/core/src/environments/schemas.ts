import * as v from 'valibot';
import { SecretNameSchema } from '../control/schemas.js';
import { jsonMap, jsonObject } from '../models/json.js';
import { IMAGE_REFERENCE_MAX_LENGTH, imageReferenceProblem } from './image-reference.js';
import type { EnvironmentRecord, EnvironmentRepository } from './records.js';
import type { ContainerLimits } from './resolved.js';

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

/** An OCI image reference (image-reference.ts); the detail says which part is wrong. */
const ImageSchema = v.pipe(
  v.string(),
  v.maxLength(IMAGE_REFERENCE_MAX_LENGTH, `must be at most ${IMAGE_REFERENCE_MAX_LENGTH} characters`),
  v.check(
    (reference) => imageReferenceProblem(reference) === undefined,
    (issue) => imageReferenceProblem(String(issue.input)) ?? 'must be an image reference',
  ),
  v.description(
    'An OCI image reference, [registry/]path[:tag][@sha256:<64 hex>] with a lowercase path, that a container executor starts the run from; null or absent: the executor\'s own (docs/repositories.md, "Container image and limits").',
  ),
);

/** `none`, or the name of a network the container engine has (as engines name networks). */
const NetworkSchema = v.pipe(
  v.string(),
  v.regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/, 'must be none or a network name: 1-64 of A-Z a-z 0-9 _ . - starting with a letter or digit'),
);

/** A run container's limits (docs/repositories.md, "Container image and limits"); a key left out is the executor's default. */
const between = (min: number, max: number, unit: string) => {
  const message = `must be ${min}-${max}${unit}`;
  return [v.minValue<number, number, string>(min, message), v.maxValue<number, number, string>(max, message)] as const;
};
const LimitsSchema = jsonObject({
  memory_mb: v.optional(v.pipe(v.number(), v.integer('must be a whole number of MiB'), ...between(16, 1_048_576, ' MiB'))),
  cpus: v.optional(v.pipe(v.number(), ...between(0.01, 1024, ' CPUs'))),
  pids: v.optional(v.pipe(v.number(), v.integer('must be a whole number'), ...between(8, 1_000_000, ' processes'))),
  network: v.optional(NetworkSchema),
});
const LimitsWithDescription = v.pipe(
  LimitsSchema,
  v.description("The run container's limits; null, absent or a key absent: the executor's defaults. network: none or a network name."),
);

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
  /** `null`, as leaving it out: no image of the environment's own (the executor's). */
  image: v.optional(v.nullable(ImageSchema)),
  /** `null`, as leaving it out: the executor's defaults. */
  limits: v.optional(v.nullable(LimitsWithDescription)),
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

/** The image and limits as stored: set only when given (`null` and `{}` leave them unset). */
export function containerOf(body: Pick<EnvironmentBody, 'image' | 'limits'>): Pick<EnvironmentRecord, 'image' | 'limits'> {
  const l = body.limits ?? {};
  const limits: ContainerLimits = {
    ...(l.memory_mb !== undefined ? { memoryMb: l.memory_mb } : {}),
    ...(l.cpus !== undefined ? { cpus: l.cpus } : {}),
    ...(l.pids !== undefined ? { pids: l.pids } : {}),
    ...(l.network !== undefined ? { network: l.network } : {}),
  };
  return {
    ...(body.image != null ? { image: body.image } : {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
  };
}

const defaultDirectory = (repository: string): string =>
  repository
    .replace(/\/+$/, '')
    .split(/[/:]/)
    .pop()
    ?.replace(/\.git$/, '') || 'repository';
