// `npm run docs:server`: write docs/server.md from the reference server's table of settings
// (packages/server/src/settings.ts). packages/server/test/settings.test.ts fails when the
// committed file is not what this writes.
import { writeFileSync } from 'node:fs';
import { settingsMarkdown } from '@agentrun/server';

const path = new URL('../docs/server.md', import.meta.url);
writeFileSync(path, settingsMarkdown());
console.log(`wrote ${path.pathname}`);
