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
}

export function jsonReaders(maxBodyBytes: number): JsonReaders {
  return {
    readJson: async (request, schema, maxBytes = maxBodyBytes) =>
      parseJsonBodyInSlices(await readBodyLimited(request, maxBytes), schema && jsonBudget(schema)),
    requireBody(body, what) {
      if (body === undefined) throw invalidRequest(`a JSON ${what} body is required`);
      return body;
    },
  };
}
