import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { engineAddress } from '../../src/engine-address.js';
import { engineClient } from '../../src/engine-client.js';

/**
 * Real Podman for the container executor's tests (docs/executors.md, "The container executor",
 * "Docker and Podman"): a `podman system service` of the file's own on a socket of its own, with
 * runc (crun refuses this machine's hybrid cgroup v1) and a containers.conf without default
 * ulimits (which runc refuses here), and images built locally (no registry is reachable): a
 * busybox one for shell agents, and one holding this Node and its shared libraries for Node agents.
 * Images are tagged by a hash of what they hold, so a rerun finds them built.
 * `scripts/podman-setup.sh` installs what this needs; `.ci/run` calls it.
 */

/** Why Podman cannot be had here, or undefined. Under CI=true a test file fails with it instead of skipping. */
export function podmanUnavailable(): string | undefined {
  for (const program of ['podman', 'runc']) {
    const found = spawnSync('sh', ['-c', `command -v ${program} || test -x /usr/sbin/${program}`]);
    if (found.status !== 0) return `${program} is not installed (scripts/podman-setup.sh installs Podman, runc and busybox-static)`;
  }
  if (!busyboxPath()) return 'busybox-static is not installed (scripts/podman-setup.sh)';
  if (process.geteuid?.() !== 0) return 'the tests run Podman as root (its rootless mode needs subuids this machine may not have)';
  return undefined;
}

/** The test's engine: its address (as DOCKER_HOST), the CONTAINERS_CONF its CLI uses, and its end. */
export interface Podman {
  engine: string;
  env: Record<string, string>;
  /** `podman …` against the same storage as the service. */
  run(args: string[], input?: Buffer): string;
  stop(): Promise<void>;
}

export async function startPodman(): Promise<Podman> {
  const dir = mkdtempSync(join(tmpdir(), 'agentrun-podman-'));
  const conf = join(dir, 'containers.conf');
  writeFileSync(conf, '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n');
  const env = { ...process.env, CONTAINERS_CONF: conf } as Record<string, string>;
  const socket = join(dir, 'api.sock');
  const service: ChildProcess = spawn('podman', ['--runtime', 'runc', 'system', 'service', '--time=0', `unix://${socket}`], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  service.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const engine = `unix://${socket}`;
  const client = engineClient(engineAddress(engine));
  for (let i = 0; ; i++) {
    try {
      await client.ping();
      break;
    } catch (error) {
      if (service.exitCode !== null || i > 200) throw new Error(`podman system service did not start: ${stderr || String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    engine,
    env: { CONTAINERS_CONF: conf },
    run: (args, input) => execFileSync('podman', ['--runtime', 'runc', ...args], { env, input, encoding: 'utf8', maxBuffer: 2 ** 26 }),
    async stop() {
      const exited = new Promise((resolve) => service.once('exit', resolve));
      service.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A busybox linked statically (busybox-static): the image holds no libraries for it. `ldd` fails on a static program. */
const busyboxPath = () =>
  ['/bin/busybox', '/usr/bin/busybox'].find((p) => statOrUndefined(p)?.isFile() && spawnSync('ldd', [p]).status !== 0);

/** An image of busybox-static alone: `/bin/sh` and its applets, a nobody user. Enough for shell agents. */
export function busyboxImage(podman: Podman): string {
  const busybox = busyboxPath() as string;
  return buildImage(podman, 'agentrun-test-busybox', [busybox], (root) => addBusybox(root, busybox));
}

/** What a Node image holds beyond Node: files, directory trees, programs of this host with their shared libraries, and links. */
export interface NodeImageExtras {
  /** Its path in the image → the file here (an agent script). */
  files?: Record<string, string>;
  /** Its path in the image → a directory here, copied whole (an agent CLI's installed package). */
  trees?: Record<string, string>;
  /** Programs of this host copied at the same paths, with the shared libraries they load (bash, a CLI's native binary's). */
  programs?: string[];
  /** Programs here (a tree's native binary) whose shared libraries the image gets, at the same paths. */
  librariesOf?: string[];
  /** A link in the image → its target (`node_modules/.bin/claude`). */
  links?: Record<string, string>;
}

/**
 * busybox plus this Node (process.execPath) and the shared libraries it loads (ldd), at the same
 * paths, with `node` on PATH: for Node agents (text-agent.mjs, the hunter), which `files` puts in
 * the image (its path there → the file here), as an image holds its agent; and for agent CLIs,
 * whose installed packages `trees` puts there.
 */
export function nodeImage(podman: Podman, extras: NodeImageExtras = {}): string {
  const busybox = busyboxPath() as string;
  const node = process.execPath;
  const programs = [node, ...(extras.programs ?? [])];
  const libs = [...new Set([...programs, ...(extras.librariesOf ?? [])].flatMap(sharedLibraries))];
  const added = Object.entries(extras.files ?? {});
  const trees = Object.entries(extras.trees ?? {});
  const links = Object.entries(extras.links ?? {});
  // A tree is known by its path, its top's time and its files' (the ones named in `programs` among them).
  const identity = [...added.flat(), ...trees.flat(), ...links.flat()];
  return buildImage(podman, 'agentrun-test-node', [busybox, ...programs, ...libs, ...identity], (root) => {
    for (const [inImage, here] of added) {
      mkdirSync(join(root, dirname(inImage)), { recursive: true });
      copyFileSync(here, join(root, inImage));
      chmodSync(join(root, inImage), 0o644);
    }
    for (const [inImage, here] of trees) cpSync(here, join(root, inImage), { recursive: true, dereference: true });
    addBusybox(root, busybox);
    for (const file of [...programs, ...libs]) {
      mkdirSync(join(root, dirname(file)), { recursive: true });
      copyFileSync(file, join(root, file));
      chmodSync(join(root, file), 0o755);
    }
    symlinkSync(node, join(root, 'bin/node'));
    for (const [link, target] of links) {
      mkdirSync(join(root, dirname(link)), { recursive: true });
      symlinkSync(target, join(root, link));
    }
  });
}

/** Built once per content: the tag is a hash of the files' paths, sizes and times, and of this module's recipe. */
function buildImage(podman: Podman, name: string, files: string[], fill: (root: string) => void): string {
  const hash = createHash('sha256');
  hash.update(RECIPE_VERSION);
  for (const file of files) {
    // A path inside the image (of `files`) names itself; a file here, by its size and time.
    const s = statOrUndefined(file);
    hash.update(s ? `${file}:${s.size}:${s.mtimeMs}\n` : `${file}\n`);
  }
  const tag = `localhost/${name}:${hash.digest('hex').slice(0, 16)}`;
  const present = spawnSync('podman', ['image', 'exists', tag], { env: { ...process.env, ...podman.env } });
  if (present.status === 0) return tag;
  const root = mkdtempSync(join(tmpdir(), 'agentrun-image-'));
  try {
    fill(root);
    for (const dir of ['tmp', 'workspace', 'etc', 'usr/bin']) mkdirSync(join(root, dir), { recursive: true });
    // A Node script's `#!/usr/bin/env node`, as on any system.
    if (!statOrUndefined(join(root, 'usr/bin/env'))) symlinkSync('/bin/env', join(root, 'usr/bin/env'));
    // As on any system: Podman's /tmp of a read-only container takes the image's mode (docs/executors.md, "Docker and Podman").
    chmodSync(join(root, 'tmp'), 0o1777);
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
    // Through a file, not memory: an image with the agent CLIs is about a gigabyte.
    const tarball = `${root}.tar`;
    execFileSync('tar', ['-C', root, '-cf', tarball, '.']);
    podman.run(['import', '--change', 'ENV PATH=/bin:/usr/bin', '--change', 'CMD ["/bin/sh"]', tarball, tag]);
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(`${root}.tar`, { force: true });
  }
  return tag;
}

/** Bump when what an image holds changes beyond its files. */
const RECIPE_VERSION = '4';

function addBusybox(root: string, busybox: string) {
  mkdirSync(join(root, 'bin'), { recursive: true });
  copyFileSync(busybox, join(root, 'bin/busybox'));
  chmodSync(join(root, 'bin/busybox'), 0o755);
  const applets = execFileSync(busybox, ['--list'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const applet of applets) if (applet !== 'busybox') symlinkSync('busybox', join(root, 'bin', applet));
}

/** The shared libraries `ldd` says a program loads, the dynamic loader included. */
function sharedLibraries(program: string): string[] {
  const out = execFileSync('ldd', [program], { encoding: 'utf8' });
  const paths = new Set<string>();
  for (const line of out.split('\n')) {
    const match = /(\/\S+)\s+\(0x/.exec(line);
    if (match?.[1]) paths.add(match[1]);
  }
  return [...paths];
}

const statOrUndefined = (path: string) => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};
