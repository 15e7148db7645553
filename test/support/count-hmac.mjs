// Preload for test/examples.test.ts (`node --import ./test/support/count-hmac.mjs`): wraps
// node:crypto's createHmac to count its calls and says each on stderr, so the test can tell which
// implementation verified a signature (docs/signatures.md, "Hashing").
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';

const original = crypto.createHmac;
let calls = 0;
crypto.createHmac = function createHmac(...args) {
  calls += 1;
  process.stderr.write(`count-hmac: createHmac call ${calls}\n`);
  return original.apply(this, args);
};
// Named ESM imports of node:crypto (`import { createHmac } from 'node:crypto'`) see the wrapper too.
syncBuiltinESMExports();
