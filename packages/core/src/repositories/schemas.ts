import * as v from 'valibot';
import { SecretNameSchema } from '../control/schemas.js';
import { jsonObject } from '../models/json.js';

/** `<owner>/<repo>`, as a skill spec names a repository (run/skill.ts has the same segments). */
const REPOSITORY_NAME = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const isDots = (s: string) => s === '.' || s === '..';

export const RepositoryNameSchema = v.pipe(
  v.string(),
  v.maxLength(200),
  v.regex(REPOSITORY_NAME, 'must be <owner>/<repo> (letters, digits, _ - .)'),
  v.check((s) => !s.split('/').some(isDots), 'must not have . or .. as owner or repo'),
);

/**
 * A clone URL's form: https, http, ssh, file, or an absolute path. Which of them are read is the
 * host reader's decision (`RepositoryReader.checkUrl`, asked at registration: docs/repositories.md, "URLs").
 */
const UrlSchema = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(2048),
  v.regex(/^(?:(?:https?|ssh|file):\/\/\S+|\/\S*)$/, 'must be an https://, http://, ssh:// or file:// URL, or an absolute path'),
  // A credential belongs in a team secret, never in a URL that lists and logs show.
  v.check(
    (s) => !/^[a-z]+:\/\/[^/@]*@/.test(s) || s.startsWith('ssh://'),
    'must not carry a credential: name a team secret in credential_secret',
  ),
);

/** A branch name (git check-ref-format, in short). */
export const BranchSchema = v.pipe(
  v.string(),
  v.regex(/^(?!\/|.*(?:\.\.|\/\/|@\{|\.lock$|\/$))[A-Za-z0-9._/-]{1,200}$/, 'must be a git branch name'),
);

export const CreateRepositorySchema = jsonObject({
  name: RepositoryNameSchema,
  url: UrlSchema,
  default_branch: v.optional(BranchSchema, 'main'),
  credential_secret: v.optional(v.nullable(SecretNameSchema)),
});

const flag = v.optional(
  v.pipe(
    v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
    v.transform((s) => s === 'true' || s === '1'),
  ),
  'false',
);

/** Query of `GET /agent` (docs/run-api.md, "List agents"), as the published clients send it. */
export const ListAgentsQuerySchema = v.strictObject({
  repo: v.optional(RepositoryNameSchema),
  sort_by: v.optional(v.picklist(['name', 'last_run'], 'must be name or last_run'), 'name'),
  include_malformed_skills: flag,
  refresh: flag,
});
