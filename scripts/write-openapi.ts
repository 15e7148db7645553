// `npm run openapi`: write docs/openapi.json from the route table (packages/core/src/routes/), and
// the Python client's generated modules from that document (scripts/python-client/).
// packages/core/test/routes.test.ts and clients/python/generated.test.ts fail when a committed
// file is not what this writes.
import { writeFileSync } from 'node:fs';
import { openApiDocument, ROUTES } from '@agentrun/core/api';
import { pythonClientFiles } from './python-client/files.js';
import type { OpenApi } from './python-client/openapi.js';

const root = new URL('../', import.meta.url);
const text = `${JSON.stringify(openApiDocument(ROUTES), null, 2)}\n`;
const files = [{ path: 'docs/openapi.json', text }, ...pythonClientFiles(JSON.parse(text) as OpenApi)];
for (const file of files) {
  writeFileSync(new URL(file.path, root), file.text);
  console.log(`wrote ${file.path}`);
}
