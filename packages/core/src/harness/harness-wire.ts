import * as v from 'valibot';
import { HARNESS_TYPES } from './harness-types.js';

/** `GET /agent/harnesses` (docs/harnesses.md, "What a server runs"). */
export const HarnessListSchema = v.object({
  harnesses: v.array(
    v.object({
      type: v.picklist(HARNESS_TYPES),
      version: v.optional(v.string()),
      default: v.optional(v.boolean()),
    }),
  ),
});
