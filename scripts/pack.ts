// `npm run pack -- [--out DIR] [--no-build] [@agentrun/NAME ...]`: the packages as the registry
// will serve them, from this clone, for an app that embeds agentrun before it is published
// (README, "Embed it"; docs/development.md, "Packing"). Writes one tarball per package
// (`npm pack`) into DIR (default ./packed): the named packages and every @agentrun package they
// depend on, or every published package when none is named. Then prints the `npm install` line
// that installs them together, so the dependencies between them resolve to the tarballs and never
// to the registry: the tarballs by absolute path, so the line works wherever it is pasted (the
// app's directory), and the named packages' peers (the framework an adapter mounts into), which
// the app imports itself. It builds what it packs first (`npm run build` of those packages:
// JavaScript and declarations) unless --no-build says `dist/` is already what should ship.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../', import.meta.url));

/** A published workspace package: its folder, the @agentrun packages it needs, and what the app brings. */
interface Published {
  folder: string;
  needs: string[];
  /** Its peer dependencies outside @agentrun that are not optional, as `name@range`: `express@>=4.18`. */
  peers: string[];
}

/** What was packed, and the arguments of the `npm install` that installs it into an app. */
export interface Packed {
  /** The tarballs' absolute paths. */
  tarballs: string[];
  /** `npm install`'s arguments: the tarballs, then the named packages' peers. */
  install: string[];
}

export interface PackOptions {
  /** Packages to pack with what they need; every published package when empty. */
  names?: readonly string[];
  /** Where the tarballs go (default ./packed). */
  out?: string;
  /** `npm run build` first (default true); false packs `dist/` as it is. */
  build?: boolean;
}

/** The published workspace packages by name. */
function publishedPackages(): Map<string, Published> {
  const found = new Map<string, Published>();
  for (const folder of readdirSync(join(root, 'packages')).sort()) {
    const path = join(root, 'packages', folder, 'package.json');
    if (!existsSync(path)) continue;
    const manifest = JSON.parse(readFileSync(path, 'utf8'));
    if (manifest.private) continue;
    const needs = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter((name) => name.startsWith('@agentrun/'));
    const peers = Object.entries<string>(manifest.peerDependencies ?? {})
      .filter(([name]) => !name.startsWith('@agentrun/') && !manifest.peerDependenciesMeta?.[name]?.optional)
      .map(([name, range]) => `${name}@${range}`);
    found.set(manifest.name, { folder: join(root, 'packages', folder), needs, peers });
  }
  return found;
}

/** `names` and everything they need, in a stable order. */
function closure(packages: Map<string, Published>, names: readonly string[]): string[] {
  const wanted = new Set<string>();
  const visit = (name: string) => {
    if (wanted.has(name)) return;
    const found = packages.get(name);
    if (!found) throw new Error(`${name} is not a published package of this repository (${[...packages.keys()].join(', ')})`);
    wanted.add(name);
    for (const need of found.needs) visit(need);
  };
  for (const name of names) visit(name);
  return [...packages.keys()].filter((name) => wanted.has(name));
}

/** The newest modification time of the files under `path`. */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

/** Refuses a package whose `dist/` is missing or older than its sources: packing it would ship stale code. */
function checkBuilt(name: string, folder: string): void {
  const dist = join(folder, 'dist');
  const fix = 'run `npm run build` (or `node scripts/prepare.mjs` for the JavaScript alone), or leave out --no-build';
  if (!existsSync(dist)) throw new Error(`${name} is not built (no dist/): ${fix}`);
  if (newest(join(folder, 'src')) > newest(dist)) throw new Error(`${name}: dist/ is older than src/: ${fix}`);
}

/**
 * Packs `names` into `out`, building them first unless `build` is false. The packages an app
 * names are the ones it imports, so their peers (Express for the Express adapter, Kysely and pg
 * for the PostgreSQL store) join the install; a peer of a package pulled in (core's
 * OpenTelemetry API) is left to npm, which installs peers itself.
 */
export function pack({ names = [], out = join(root, 'packed'), build = true }: PackOptions = {}): Packed {
  const packages = publishedPackages();
  const named = names.length > 0 ? names : [...packages.keys()];
  const chosen = closure(packages, named);
  const folder = (name: string) => (packages.get(name) as Published).folder;
  if (build)
    execFileSync('npm', ['run', 'build', '--if-present', ...chosen.flatMap((name) => ['--workspace', name])], {
      cwd: root,
      stdio: 'inherit',
    });
  else for (const name of chosen) checkBuilt(name, folder(name));
  mkdirSync(out, { recursive: true });
  const tarballs: string[] = [];
  for (const name of chosen) {
    const written = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], {
      cwd: folder(name),
      encoding: 'utf8',
    }).trim();
    tarballs.push(resolve(out, written.split('\n').at(-1) as string));
  }
  const peers = [...new Set(named.flatMap((name) => (packages.get(name) as Published).peers))];
  return { tarballs, install: [...tarballs, ...peers] };
}

/** The `npm install` line printed for `install`, each argument quoted for a POSIX shell where it needs it (`'express@>=4.18'`). */
export const installLine = (install: readonly string[]): string => `npm install ${install.map(shellWord).join(' ')}`;

const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { out: { type: 'string' }, 'no-build': { type: 'boolean', default: false } },
  });
  // --out as the user typed it: from where `npm run pack` was called (npm's INIT_CWD), not the root.
  const out = resolve(process.env.INIT_CWD ?? process.cwd(), values.out ?? join(root, 'packed'));
  const { tarballs, install } = pack({ names: positionals, out, build: !values['no-build'] });
  console.log(`\nwrote ${tarballs.length} packages into ${out}; install them together, from your app's directory:\n`);
  console.log(`  ${installLine(install)}`);
}
