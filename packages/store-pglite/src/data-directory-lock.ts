import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join, relative } from 'node:path';

/**
 * One process at a time in a data directory (packages/store-pglite/README.md, "The lock"). The lock is a
 * Unix domain socket the holder listens on, in `<dataDir>/lock/`: the kernel closes it when the
 * process ends, however it ends (kill -9 included), so a lock is live exactly while its process
 * is. No pid is ever trusted for that (a dead holder's pid may belong to another process by now);
 * the pid and start time in the refusal are what the live holder says of itself when asked.
 *
 * Each process listens on a socket of its own name, put in place by rename only once it listens,
 * then looks at the others: one that answers is a holder (or a process starting at the same
 * moment), one that refuses connections is a dead holder's socket, removed. So no socket that
 * answers is ever removed, and of two processes starting at once, the one that looks second sees
 * the first. When processes starting at once see each other, the one whose socket's name sorts
 * first stays; the others step back and see whether it comes to hold the directory.
 */

/** What a live holder says of itself. */
export interface DataDirectoryHolder {
  pid: number;
  /** When the holding process started (ISO 8601). */
  startedAt: string;
}

/** The data directory is held by another live process (or another store of this one). */
export class DataDirectoryInUseError extends Error {
  override readonly name = 'DataDirectoryInUseError';

  /** The holder, as it described itself; undefined if it did not answer. */
  readonly holder: DataDirectoryHolder | undefined;

  constructor(
    /** The data directory, as given. */
    readonly dataDir: string,
    holder: DataDirectoryHolder | undefined,
  ) {
    const who = !holder
      ? 'another process (it did not say which)'
      : holder.pid === process.pid
        ? `this process (pid ${holder.pid}: another store is open on it)`
        : `process ${holder.pid} (started ${holder.startedAt})`;
    super(`${dataDir} is in use by ${who}; stop it, or set AGENTRUN_DATA_DIR to another directory`);
    this.holder = holder && { pid: holder.pid, startedAt: holder.startedAt };
  }
}

export interface DataDirectoryLock {
  /** Stop holding the directory (the socket closed and removed). Safe to call more than once. */
  release(): Promise<void>;
}

/** The lock's sockets, in the data directory. */
const LOCK_DIR = 'lock';
/** How long processes starting at the same moment may take to settle which one holds. */
const SETTLE_MS = 10_000;
/** How long a socket that accepted a connection has to say who it is. */
const ANSWER_MS = 2000;
/** Between two looks at processes starting at the same moment. */
const LOOK_AGAIN_MS = 5;
/**
 * sun_path holds 104 bytes on macOS, 108 on Linux, with the terminating NUL. A socket path is
 * given relative to the working directory when that is what makes it fit.
 */
const MAX_SOCKET_PATH = 103;

interface Answer {
  pid: number;
  startedAt: string;
  /** False while it is still looking at the others. */
  holding: boolean;
}

/** What a socket of the lock directory turned out to be. */
type Probe = { kind: 'dead' } | { kind: 'live'; answer: Answer | undefined };

/** A live socket of another process in the lock directory. */
interface Other {
  file: string;
  /** Undefined when it did not say who it is. */
  answer: Answer | undefined;
}

/** Hold `dataDir` (absolute, existing) for this process, or fail with DataDirectoryInUseError naming `shownAs`. */
export async function lockDataDirectory(dataDir: string, shownAs: string = dataDir): Promise<DataDirectoryLock> {
  if (process.platform === 'win32') {
    throw new Error(
      'the embedded store locks its data directory with a Unix domain socket: Linux and macOS only; use a PostgreSQL server on Windows',
    );
  }
  const directory = join(dataDir, LOCK_DIR);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const mine = await listen(directory);
    const outcome = await contend(directory, mine, deadline).catch(async (error) => {
      await mine.close();
      throw error;
    });
    if (outcome.kind === 'held') return { release: mine.close };
    await mine.close();
    if (outcome.kind === 'refused') throw new DataDirectoryInUseError(shownAs, outcome.holder);
    // Another process starting at the same moment goes first: it holds now, or gave up and we try again.
    const settled = await settle(join(directory, outcome.first), deadline);
    if (settled.kind === 'held') throw new DataDirectoryInUseError(shownAs, settled.holder);
  }
}

type Contest = { kind: 'held' } | { kind: 'refused'; holder: Answer | undefined } | { kind: 'yield'; first: string };

/**
 * Look at the other sockets until this one holds the directory, is refused (another holds it, or
 * does not say), or yields. Of processes starting at the same moment, the one whose socket's name
 * sorts first stays and looks again until the others have gone; the others yield to it.
 */
async function contend(directory: string, mine: Listening, deadline: number): Promise<Contest> {
  for (;;) {
    const others = await liveOthers(directory, mine.file);
    if (others.length === 0) {
      mine.answer.holding = true;
      return { kind: 'held' };
    }
    const holder = others.find((other) => other.answer?.holding !== false);
    if (holder) return { kind: 'refused', holder: holder.answer };
    const first = others.reduce((a, b) => (a.file < b.file ? a : b));
    if (first.file < mine.file) return { kind: 'yield', first: first.file };
    if (Date.now() > deadline) return { kind: 'refused', holder: first.answer };
    await sleep(LOOK_AGAIN_MS);
  }
}

/** Wait until the process starting on the socket at `path` holds the directory or has gone. */
async function settle(path: string, deadline: number): Promise<{ kind: 'held'; holder: Answer | undefined } | { kind: 'gone' }> {
  for (;;) {
    const found = await probe(path);
    if (found.kind === 'dead') return { kind: 'gone' };
    if (found.answer?.holding !== false || Date.now() > deadline) return { kind: 'held', holder: found.answer };
    await sleep(LOOK_AGAIN_MS);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Listening {
  /** The socket's file name in the lock directory. */
  file: string;
  /** What it tells whoever connects (`holding` set once the directory is ours). */
  answer: Answer;
  close(): Promise<void>;
}

/** A socket of this process's own in `directory`, listening before it appears under its name. */
async function listen(directory: string): Promise<Listening> {
  const id = randomBytes(8).toString('hex');
  const file = `${id}.sock`;
  const answer: Answer = { pid: process.pid, startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(), holding: false };
  const server: Server = createServer((socket) => {
    socket.on('error', () => {});
    socket.end(`${JSON.stringify(answer)}\n`);
  });
  // The lock must never be what keeps the process alive.
  server.unref();
  const starting = join(directory, `${id}.new`);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath(starting), () => {
      server.off('error', reject);
      resolve();
    });
  });
  try {
    renameSync(starting, join(directory, file));
  } catch (error) {
    server.close();
    removeFile(starting);
    throw error;
  }
  let closed: Promise<void> | undefined;
  return {
    file,
    answer,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        removeFile(join(directory, file));
        server.close(() => resolve());
      });
      return closed;
    },
  };
}

/** The other live sockets of `directory`, with what they say of themselves; dead ones removed. */
async function liveOthers(directory: string, mine: string): Promise<Other[]> {
  const files = readdirSync(directory).filter((name) => name.endsWith('.sock') && name !== mine);
  const probes = await Promise.all(files.map((file) => probe(join(directory, file))));
  const live: Other[] = [];
  probes.forEach((found, i) => {
    const file = files[i] as string;
    if (found.kind === 'live') live.push({ file, answer: found.answer });
    else removeFile(join(directory, file));
  });
  return live;
}

/**
 * Connect to the socket at `path`: refused (or gone) means its process has ended; accepted means
 * it is alive, and it says who it is (a process that cannot answer, stopped or hung, still holds).
 */
function probe(path: string): Promise<Probe> {
  return new Promise((resolve) => {
    const socket = connect(socketPath(path));
    let text = '';
    const timer = setTimeout(() => done({ kind: 'live', answer: undefined }), ANSWER_MS);
    const done = (result: Probe) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('end', () => done({ kind: 'live', answer: parseAnswer(text) }));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      // Anything else (EACCES, EAGAIN of a full backlog) may be a live holder: never taken for dead.
      done(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? { kind: 'dead' } : { kind: 'live', answer: undefined }),
    );
  });
}

function parseAnswer(text: string): Answer | undefined {
  try {
    const value = JSON.parse(text) as Partial<Answer>;
    if (typeof value.pid === 'number' && typeof value.startedAt === 'string' && typeof value.holding === 'boolean') {
      return { pid: value.pid, startedAt: value.startedAt, holding: value.holding };
    }
  } catch {
    // not one of ours: counted as a holder that did not say who it is
  }
  return undefined;
}

/** `path`, or the same file relative to the working directory when only that fits a socket address. */
function socketPath(path: string): string {
  if (Buffer.byteLength(path) <= MAX_SOCKET_PATH) return path;
  const near = relative(process.cwd(), path);
  if (Buffer.byteLength(near) <= MAX_SOCKET_PATH) return near;
  throw new Error(
    `the data directory's path is too long for its lock (a Unix socket's path holds ${MAX_SOCKET_PATH} bytes): ${path}; choose a shorter one`,
  );
}

function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
