import { invalidRequest } from '../errors.js';
import { parseJsonBody, readBodyLimited } from './body.js';

/** How the API's handlers read a JSON body, under the handler's size limit. */
export interface JsonReaders {
  /** The parsed body, or `undefined` when it is empty. */
  readJson(request: Request): Promise<unknown>;
  /** `body`, or a 400 naming `what` when it is missing. */
  requireBody(body: unknown, what: string): unknown;
}

export function jsonReaders(maxBodyBytes: number): JsonReaders {
  return {
    readJson: async (request) => parseJsonBody(await readBodyLimited(request, maxBodyBytes)),
    requireBody(body, what) {
      if (body === undefined) throw invalidRequest(`a JSON ${what} body is required`);
      return body;
    },
  };
}
