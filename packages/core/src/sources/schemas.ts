import * as v from 'valibot';
import { SecretNameSchema } from '../control/schemas.js';
import { jsonObject } from '../models/json.js';
import { BranchSchema, RepositoryNameSchema } from '../repositories/schemas.js';
import { PUSH_SCHEMES } from './records.js';

/** A directory in a repository: `''` (the root) or `a/b` (no `.` or `..` part, no leading or trailing slash). */
const DirectorySchema = v.pipe(
  v.string(),
  v.maxLength(500),
  v.check(
    (s) => s === '' || s.split('/').every((part) => /^[A-Za-z0-9_.@+-]+$/.test(part) && part !== '.' && part !== '..'),
    'must be a relative path in the repository (a/b, no . or .. parts), or empty for its root',
  ),
);

/** `PUT /factories/{factoryUid}/source` (docs/repositories.md, "Factories from a repository"). */
export const PutSourceSchema = v.pipe(
  jsonObject({
    /** The `<owner>/<repo>` name of a repository the team registered (`POST /repositories`). */
    repository: RepositoryNameSchema,
    /** The production branch; default: the repository's `default_branch`. */
    branch: v.optional(BranchSchema),
    /** The definitions directory in the repository; default its root. */
    directory: v.optional(DirectorySchema, ''),
    /** How push notifications are verified: `github`, `gitlab` or `standard-webhooks`; absent: polling only. */
    push_scheme: v.optional(v.nullable(v.picklist(PUSH_SCHEMES, `must be one of ${PUSH_SCHEMES.join(', ')}`))),
    /** The team secret push notifications are verified with (with `push_scheme`). */
    push_secret: v.optional(v.nullable(SecretNameSchema)),
  }),
  v.forward(
    v.check((b) => (b.push_scheme == null) === (b.push_secret == null), 'is required with push_scheme, and only then'),
    ['push_secret'],
  ),
);
export type PutSource = v.InferOutput<typeof PutSourceSchema>;
