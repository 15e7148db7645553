import * as v from 'valibot';
import { jsonObject } from '../models/json.js';
import { API_KEY_SCOPES } from './scopes.js';

/** The body of `POST /api-keys` (docs/management-api.md, "API keys"). */
export const CreateApiKeySchema = jsonObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(100)),
  scopes: v.pipe(
    v.array(v.picklist(API_KEY_SCOPES, `must be one of ${API_KEY_SCOPES.join(', ')}`)),
    v.minLength(1, 'give at least one scope'),
    v.maxLength(API_KEY_SCOPES.length),
    v.check((s) => new Set(s).size === s.length, 'must not repeat a scope'),
  ),
  /** RFC 3339 with an offset; must be in the future (checked against the clock by the service). */
  expires_at: v.optional(v.pipe(v.string(), v.isoTimestamp('must be an RFC 3339 timestamp, e.g. 2027-01-31T00:00:00Z'))),
});

export type CreateApiKey = v.InferOutput<typeof CreateApiKeySchema>;
