import type { OpenApi } from './openapi.js';
import { operationsModule } from './operations-module.js';
import { typesModule } from './types-module.js';

/**
 * The Python client's generated modules (docs/python.md, "Generated from the API's document"), by
 * their path from the repository's root: written by `npm run openapi` (scripts/write-openapi.ts),
 * and compared with the committed files by clients/python/generated.test.ts. The shapes come from
 * docs/openapi.json; the names, and the terminal states the document does not say, from names.ts.
 */
export const pythonClientFiles = (document: OpenApi): { path: string; text: string }[] => [
  { path: 'clients/python/src/agentrun/types.py', text: typesModule(document) },
  { path: 'clients/python/src/agentrun/_operations.py', text: operationsModule(document) },
];
