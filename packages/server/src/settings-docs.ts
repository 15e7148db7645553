import { SETTING_GROUPS, SETTINGS, type Setting, type SettingGroup } from './settings.js';

/** `npm start -- --help` and docs/server.md: the table of settings.ts, grouped, in two forms. */

type AnySetting = Setting<unknown, unknown>;

const rows = (group: SettingGroup) => (Object.entries(SETTINGS) as [string, AnySetting][]).filter(([, setting]) => setting.group === group);

/** The default column: the server's own default shown by its kind, else the row's words. */
function defaultOf(setting: AnySetting): string {
  if (setting.default === undefined) return setting.defaultText ?? '';
  return setting.kind.show ? setting.kind.show(setting.default) : `\`${String(setting.default)}\``;
}

const plain = (markdown: string) => markdown.replaceAll('`', '');

/** Words to lines of at most `width` characters. */
function wrap(words: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of words.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

const HELP_INTRO = `Usage: npm start [-- worker | reseal-secrets | --help]

The agentrun reference server: the run API, the management API, the webhook ingress and the
dashboard on one port. Its settings are these environment variables (docs/server.md).
  worker          a worker alone, for a worker host: no API, only /healthz and /readyz on PORT
  reseal-secrets  re-seal every secret with the first key of AGENTRUN_SECRET_KEY, and exit`;

/** What `npm start -- --help` prints. */
export function settingsHelp(): string {
  const out = [HELP_INTRO];
  for (const [group, { title }] of Object.entries(SETTING_GROUPS) as [SettingGroup, { title: string }][]) {
    out.push('', `${title}:`);
    for (const [name, setting] of rows(group)) {
      const fallback = plain(defaultOf(setting));
      out.push(`  ${name}=<${setting.kind.type}>${fallback ? `  (default: ${fallback})` : ''}`);
      const more = setting.docs ? ` (docs/${setting.docs})` : '';
      for (const line of wrap(plain(setting.meaning) + more, 92)) out.push(`      ${line}`);
    }
  }
  return `${out.join('\n')}\n`;
}

const cell = (markdown: string) => markdown.replaceAll('|', '\\|');

/** docs/server.md, as `npm run docs:server` writes it. */
export function settingsMarkdown(): string {
  const out = [SERVER_DOC_INTRO];
  for (const [group, { title, about }] of Object.entries(SETTING_GROUPS) as [SettingGroup, { title: string; about: string }][]) {
    out.push('', `## ${title}`, '', about, '', '| Variable | Type | Default | What it does |', '| --- | --- | --- | --- |');
    for (const [name, setting] of rows(group)) {
      const more = setting.docs ? ` ([more](${setting.docs}))` : '';
      out.push(`| \`${name}\` | ${cell(`\`${setting.kind.type}\``)} | ${cell(defaultOf(setting))} | ${cell(setting.meaning)}${more} |`);
    }
  }
  return `${out.join('\n')}\n`;
}

const SERVER_DOC_INTRO = `# The reference server: \`npm start\`

<!-- Written by \`npm run docs:server\` from packages/server/src/settings.ts: edit the table there. -->

\`npm start\` runs the reference server (\`packages/server\`): the run API, the management API, the
webhook ingress and the [dashboard](dashboard.md) on one port, a worker, and the demo agent or
the [process executor](executors.md#the-process-executor). It is configured by the environment
variables below; a wrong value stops the start with exit code 2 and one line naming the
variable. \`npm start -- --help\` prints this list.

- **Data** is kept across restarts: in an embedded PostgreSQL under \`AGENTRUN_DATA_DIR\`
  (default \`./.agentrun\`), or on the PostgreSQL server of \`DATABASE_URL\`
  ([production.md](production.md)). \`AGENTRUN_STORE=memory\` keeps it in memory, gone at exit.
  One server at a time may use a data directory; a second one is refused and says so.
- **Secrets** of the embedded store are sealed with a key kept in the data directory (file mode
  0600) unless \`AGENTRUN_SECRET_KEY\` is set; back the directory up as a whole. On PostgreSQL,
  set \`AGENTRUN_SECRET_KEY\` to store secrets ([rotating it](operations.md#rotating-the-secret-key)).
- **The bootstrap key**, named \`bootstrap\`, is made at the first start on a store and shown that
  once; later starts print its prefix. Make more keys with
  [\`agentrun keys create\`](cli.md#keys-create--list--revoke) or \`POST /api/v1/api-keys\`
  ([API keys](operations.md#api-keys)); lost it, start once with \`AGENTRUN_API_KEY\` set to a
  key of your choosing. The memory store, new at each start, gets a new key each time.
- **Stopping**: SIGTERM or SIGINT to \`npm start\` stops the server
  ([graceful shutdown](operations.md#graceful-shutdown)); \`npm start -- reseal-secrets\` re-seals
  every secret with the first key of \`AGENTRUN_SECRET_KEY\` and exits.
- **Worker hosts**: \`npm start -- worker\` runs a worker alone on the same store, serving its
  \`AGENTRUN_WORKER_HOST\`: no API, no ingress, no dashboard; only \`/healthz\` and \`/readyz\` on
  \`PORT\` (and the metrics port when set). Runs name a host in \`config.worker_host\`
  ([worker hosts](operations.md#worker-hosts)).`;
