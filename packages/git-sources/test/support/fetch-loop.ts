// One process of the shared-cache test (concurrency.test.ts): resolves `ref` with refresh
// `times` times against one cache directory, concurrently within itself too, and prints the
// commits it saw as one JSON line (or the error).
import { gitSources } from '../../src/index.js';

const [cacheDir, url, times] = process.argv.slice(2) as [string, string, string];
const reader = gitSources({ cacheDir, allowLocalPaths: true });
try {
  const commits = await Promise.all(
    Array.from({ length: Number(times) }, () => reader.resolve({ url, team: 'team-a' }, 'main', { refresh: true })),
  );
  process.stdout.write(`${JSON.stringify({ commits })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
}
