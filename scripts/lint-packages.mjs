// `npm run lint:packages`: every published package, as npm would pack it, passes publint (its
// package.json agrees with its files) and arethetypeswrong (its types resolve under node10,
// node16 CJS and ESM, and bundler resolution; a program with only a `bin` has none to check).
// Needs `npm run build` first.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const bin = (name) => join('node_modules', '.bin', name);
const packages = readdirSync('packages')
  .map((dir) => join('packages', dir))
  .filter((dir) => existsSync(join(dir, 'package.json')) && !JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private);

let failed = false;
for (const dir of packages) {
  if (!existsSync(join(dir, 'dist'))) {
    console.error(`${dir}: no dist/; run \`npm run build\` first`);
    process.exit(1);
  }
  // A program only (a `bin`, nothing to import, such as @agentrun/cli) has no types to check.
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const importable = manifest.exports !== undefined || manifest.main !== undefined;
  for (const [tool, args] of [
    ['publint', [dir, '--strict']],
    ...(importable ? [['attw', ['--pack', dir, '--format', 'table-flipped']]] : []),
  ]) {
    try {
      execFileSync(bin(tool), args, { stdio: 'pipe' });
      console.log(`${dir}: ${tool} clean`);
    } catch (error) {
      failed = true;
      console.error(`${dir}: ${tool} found problems:\n${error.stdout}${error.stderr}`);
    }
  }
}
process.exit(failed ? 1 : 0);
