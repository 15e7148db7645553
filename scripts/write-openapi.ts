// `npm run openapi`: write docs/openapi.json from the route table (packages/core/src/routes/).
// packages/core/test/routes.test.ts fails when the committed file is not what this writes.
import { writeFileSync } from 'node:fs';
import { openApiDocument, ROUTES } from '@agentrun/core/api';

const path = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(path, `${JSON.stringify(openApiDocument(ROUTES), null, 2)}\n`);
console.log(`wrote ${path.pathname}`);
