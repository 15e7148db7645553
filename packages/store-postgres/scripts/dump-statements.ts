import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderStatements } from '../src/render-statements.js';

/**
 * `npm run statements:dump -w @agentrun/store-postgres`: write statements.sql, the hot statements
 * as the store sends them and the SQL functions they call (render-statements.ts). No database:
 * the text comes from the code. Commit the result with every change to those statements;
 * test/statements.test.ts fails on drift.
 */
const target = fileURLToPath(new URL('../statements.sql', import.meta.url));
await writeFile(target, renderStatements());
console.log(`wrote ${target}`);
