// `npm run generate:key-sites -w @agentrun/core`: write src/filter/key-sites.ts from
// render-key-sites.ts. packages/core/test/key-sites.test.ts fails when the committed file differs.
import { writeFileSync } from 'node:fs';
import { renderKeySites } from './render-key-sites.js';

const path = new URL('../src/filter/key-sites.ts', import.meta.url);
writeFileSync(path, renderKeySites());
console.log(`wrote ${path.pathname}`);
