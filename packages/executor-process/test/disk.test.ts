import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { measureDirectory, parse } from '../src/disk-meter.js';
import { removeTree } from '../src/remove-tree.js';
import { createRunArea, diskPlan } from '../src/run-area.js';
import { filesystemTools } from '../src/run-filesystem.js';

const MiB = 2 ** 20;
/** A tree deeper than PATH_MAX (4,096 bytes): 25 directories of 200-character names, made relative to each other (bash's cd). */
const deepTree = (dir: string, file: string) =>
  execFileSync('bash', [
    '-c',
    `cd "$1" && d=$(printf "d%.0s" $(seq 200)); for i in $(seq 25); do mkdir "$d" && cd "$d" || exit 3; done; ${file}`,
    'deep',
    dir,
  ]);

describe('the run directory on disk', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'agentrun-disk-test-'));
  });
  afterEach(() => {
    execFileSync('rm', ['-rf', root]);
  });

  it('removes a tree deeper than PATH_MAX, and one the agent made unwritable, which fs.rm cannot', async () => {
    const dir = join(root, 'run');
    mkdirSync(dir);
    deepTree(dir, 'head -c 1000 /dev/zero > bottom');
    mkdirSync(join(dir, 'locked'));
    writeFileSync(join(dir, 'locked', 'file'), 'x');
    chmodSync(join(dir, 'locked'), 0o000);
    await removeTree(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it('measures a file deeper than PATH_MAX, and one deleted while a process holds it open', async () => {
    deepTree(root, `head -c ${MiB} /dev/urandom > bottom`);
    const deep = await measureDirectory(root);
    expect('bytes' in deep && deep.bytes).toBeGreaterThanOrEqual(MiB);
    // A process holding a deleted 2 MiB file under the directory: counted from its /proc/<pid>/fd.
    const holder = execFileSync('sh', [
      '-c',
      `cd "$1" && (exec 3>gone; rm gone; head -c ${2 * MiB} /dev/urandom >&3; exec sleep 5 3>&3) >/dev/null 2>&1 & echo $!`,
      'hold',
      root,
    ])
      .toString()
      .trim();
    try {
      await waitFor(async () => {
        const held = await measureDirectory(root);
        return 'bytes' in held && held.bytes >= 3 * MiB;
      });
    } finally {
      execFileSync('kill', [holder]);
    }
  });

  it('reads du: the total, plus deleted files held open; files that vanished during the walk are no reason; anything else makes the size unknown', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 2 ** 40 }),
        fc.array(fc.tuple(fc.nat({ max: 2 ** 20 }), fc.constantFrom(512, 4096)), { maxLength: 4 }),
        fc.array(fc.constantFrom("du: cannot access 'x/y': No such file or directory", ''), { maxLength: 3 }),
        fc.option(fc.constantFrom("du: cannot read directory 'x': Permission denied", 'du: fts_read failed: x: Input/output error')),
        (kib, deleted, vanished, complaint) => {
          const stdout = [`${kib}\t/runs/x`, ...deleted.map(([blocks, size]) => `deleted ${blocks} ${size}`)].join('\n');
          const stderr = [...vanished, ...(complaint === null ? [] : [complaint])].join('\n');
          const measured = parse(stdout, stderr);
          if (complaint !== null) expect(measured).toEqual({ unreadable: expect.stringContaining(complaint) });
          else expect(measured).toEqual({ bytes: kib * 1024 + deleted.reduce((sum, [blocks, size]) => sum + blocks * size, 0) });
        },
      ),
    );
    expect(parse('', '')).toEqual({ unreadable: 'du printed no total' });
  });

  it('holds the cap in the kernel where root can mount: writes past it fail, its use is read in one call, and release leaves nothing', async (context) => {
    const tools = filesystemTools();
    if (!('mkfs' in tools)) {
      if (process.env.CI === 'true') throw new Error(`CI=true and a filesystem per run cannot be had: ${tools.missing}`);
      context.skip();
      return;
    }
    const cap = 8 * MiB;
    const area = await createRunArea(root, 'run-1', cap, diskPlan(cap, 'filesystem'));
    expect(area.limit).toBe('filesystem');
    // The image is under the mount, out of sight; the filesystem holds the run's three directories.
    expect(readdirSync(area.dir).sort()).toEqual(['shm', 'tmp', 'workspace']);
    // The cap is usable whole; then the kernel refuses, a little past it (the filesystem's own bookkeeping).
    writeFileSync(join(area.workspace, 'fits'), Buffer.alloc(cap));
    expect(() =>
      execFileSync('sh', ['-c', `head -c ${cap} /dev/zero > "$1"`, 'fill', join(area.tmp, 'more')], { stdio: 'ignore' }),
    ).toThrow();
    const used = await area.measure();
    expect('bytes' in used && used.bytes).toBeGreaterThan(cap);
    await area.release();
    expect(readdirSync(root)).toEqual([]);
    expect(execFileSync('cat', ['/proc/self/mountinfo']).toString()).not.toContain(area.dir);
  });

  it("refuses diskLimit 'filesystem' where it cannot be had, and falls back to measuring with 'auto'", () => {
    const tools = filesystemTools();
    if ('mkfs' in tools) {
      expect(diskPlan(MiB, 'auto')?.kind).toBe('filesystem');
    } else {
      expect(() => diskPlan(MiB, 'filesystem')).toThrow(/diskLimit 'filesystem' cannot be had here/);
      expect(diskPlan(MiB, 'auto')?.kind).toBe('measured');
    }
    expect(diskPlan(MiB, 'measured')?.kind).toBe('measured');
    expect(diskPlan(undefined, 'filesystem')).toBeUndefined();
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
