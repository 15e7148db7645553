/**
 * A run's artifacts as `--follow` prints them (docs/cli.md, the `run` command; docs/artifacts.md):
 * each as what it is, never its JSON. A pull request its URL and branch; a plan its title, link,
 * and then its Markdown text (read by `follow`, run-watch.ts); a screenshot or a file its name,
 * type, size when known, and the command that downloads it.
 */

/** How a plan's text is introduced and closed around its Markdown. */
export const PLAN_RULE = '─'.repeat(40);

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A shell word: as it is when it is safe, else in single quotes. */
const shellWord = (word: string): string => (/^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** Bytes as people read them. */
const byteSize = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The command that saves a stored artifact's bytes. */
const downloadCommand = (uid: string, name: string): string => `agentrun artifacts download ${shellWord(uid)} --out ${shellWord(name)}`;

/** The last part of a path, for a file name to save under. */
const baseName = (path: string): string => path.split(/[\\/]/).filter(Boolean).at(-1) ?? '';

/** The line(s) for an `artifact` event's data, or undefined when it is not an artifact of a known shape. */
export function artifactLines(event: unknown, time: string): string[] | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { artifact_type: type, data } = event as { artifact_type?: unknown; data?: unknown };
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  const uid = text(d.artifact_uid);
  switch (type) {
    case 'PULL_REQUEST':
      if (!text(d.url)) return undefined;
      return [`[${time}] pull request: ${text(d.url)}${text(d.branch) ? ` (branch ${text(d.branch)})` : ''}`];
    case 'PLAN': {
      const lines = [`[${time}] plan: ${text(d.title) || 'untitled'}${text(d.url) ? ` ${text(d.url)}` : ''}`];
      if (uid) lines.push(`  download: ${downloadCommand(uid, `${text(d.title) || 'plan'}.md`.replaceAll(/[\\/]/g, '-'))}`);
      return lines;
    }
    case 'SCREENSHOT': {
      if (!uid) return undefined;
      const what = [text(d.description), text(d.mime_type)].filter(Boolean);
      const extension = text(d.mime_type).startsWith('image/') ? text(d.mime_type).slice('image/'.length).replace('jpeg', 'jpg') : 'png';
      return [`[${time}] screenshot: ${what.join(', ') || uid}`, `  download: ${downloadCommand(uid, `screenshot.${extension}`)}`];
    }
    case 'FILE': {
      if (!uid || !text(d.filepath)) return undefined;
      const size = typeof d.size_bytes === 'number' ? `, ${byteSize(d.size_bytes)}` : '';
      const name = text(d.filename) || baseName(text(d.filepath)) || uid;
      return [
        `[${time}] file: ${text(d.filepath)} (${text(d.mime_type) || 'unknown type'}${size})${text(d.description) ? ` ${text(d.description)}` : ''}`,
        `  download: ${downloadCommand(uid, name)}`,
      ];
    }
  }
  return undefined;
}

/** A plan's stored text to print after its lines: its UID, when the event is a plan that has one. */
export function planTextUid(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { artifact_type: type, data } = event as { artifact_type?: unknown; data?: unknown };
  if (type !== 'PLAN' || typeof data !== 'object' || data === null) return undefined;
  const uid = (data as { artifact_uid?: unknown }).artifact_uid;
  return typeof uid === 'string' && uid !== '' ? uid : undefined;
}
