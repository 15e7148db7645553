import type * as v from 'valibot';
import { invalidRequest } from '../errors.js';
import { jsonBudget } from '../models/size-check.js';
import { parseJsonBodyInSlices, readBodyLimited } from './body.js';

/** How the API's handlers read a JSON body, under the handler's size limit. */
export interface JsonReaders {
  /**
   * The parsed body, or `undefined` when it is empty. With the route's body `schema`, a text
   * holding more values, or a larger array or object, than the schema admits is refused before
   * it is parsed (size-check.ts). `maxBytes`: the route's own body limit, when it has one
   * smaller than the handler's (docs/management-api.md, "Body limits").
   */
  readJson(request: Request, schema?: v.GenericSchema, maxBytes?: number): Promise<unknown>;
  /** `body`, or a 400 naming `what` when it is missing. */
  requireBody(body: unknown, what: string): unknown;
  /**
   * The body of a route that takes none (a cancel, a rotation, a resend): nothing, or an empty
   * JSON object, which it answers as read. Anything else is a 400 naming `what`, and a body that
   * is not JSON (cut short, not UTF-8, NUL, nested past the limit) the 400 every route gives, so
   * such a route does nothing on a request it could not read (docs/management-api.md, "Routes
   * without a body").
   */
  readEmpty(request: Request, what: string): Promise<Record<string, never> | undefined>;
}

/** Room for `{}` and whitespace around it (or the handler's limit, if smaller); more is a 413 before anything is parsed. */
const EMPTY_BODY_BYTES = 4096;

export function jsonReaders(maxBodyBytes: number): JsonReaders {
  return {
    readJson: async (request, schema, maxBytes = maxBodyBytes) =>
      parseJsonBodyInSlices(await readBodyLimited(request, maxBytes), schema && jsonBudget(schema)),
    requireBody(body, what) {
      if (body === undefined) throw invalidRequest(`a JSON ${what} body is required`);
      return body;
    },
    async readEmpty(request, what) {
      const bytes = await readBodyLimited(request, Math.min(EMPTY_BODY_BYTES, maxBodyBytes));
      // No value budget: 4 KiB is parsed at once, and the answer names what the route takes.
      const body = await parseJsonBodyInSlices(bytes);
      if (body === undefined) return undefined;
      if (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0) return {};
      throw invalidRequest(`${what} takes no body (or an empty JSON object)`);
    },
  };
}
