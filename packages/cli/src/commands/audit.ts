import { AUDIT_EVENT_KINDS } from '@agentrun/core/api';
import type { Command } from '../command.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { cell, table } from '../output.js';

/** `agentrun audit list`: the team's audit log (docs/management-api.md, "The audit log"; docs/operations.md, "Audit"). */
export const auditList: Command = {
  name: 'audit list',
  summary: 'List the team’s audit events, newest first',
  options: {
    kind: { type: 'string', multiple: true, valueName: 'kind', description: AUDIT_EVENT_KINDS.join(', ') },
    actor: { type: 'string', valueName: 'id', description: 'who: a principal’s uid (a webhook’s UID for delivery.*)' },
    target: { type: 'string', valueName: 'id', description: 'what: a webhook UID, automation id, secret name or factory UID' },
    since: { type: 'string', valueName: 'time', description: 'from this RFC 3339 instant (inclusive)' },
    until: { type: 'string', valueName: 'time', description: 'before this RFC 3339 instant' },
    limit: { type: 'string', valueName: 'n', description: 'at most this many (default 50)' },
  },
  examples: [
    'agentrun audit list --kind webhook.rotated --kind secret.written',
    'agentrun audit list --target $WEBHOOK --since 2026-01-01T00:00:00Z',
  ],
  async run(context) {
    const kinds = context.strings('kind');
    const bad = kinds.find((k) => !(AUDIT_EVENT_KINDS as readonly string[]).includes(k));
    if (bad !== undefined) throw new UsageError(`--kind ${bad}: must be one of ${AUDIT_EVENT_KINDS.join(', ')}`);
    const limitText = context.string('limit') ?? '50';
    if (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1)
      throw new UsageError(`--limit ${limitText}: must be a whole number of at least 1`);
    const limit = Number(limitText);
    const query: Record<string, unknown> = { limit: Math.min(limit, 200) };
    if (kinds.length > 0) query.kind = kinds;
    for (const name of ['actor', 'target', 'since', 'until'] as const) {
      const value = context.string(name);
      if (value !== undefined) query[name] = value;
    }
    const events = [];
    for await (const event of context.client().audit.list(query)) {
      events.push(event);
      if (events.length >= limit) break;
    }
    if (context.json) context.printJson(events);
    else if (events.length === 0) context.note('No audit events.');
    else
      context.print(
        table(
          ['AT', 'KIND', 'ACTOR', 'TARGET', 'DETAIL'],
          events.map((e) => [
            e.at,
            e.kind,
            `${e.actor.type}:${e.actor.id}`,
            `${e.target.type}:${e.target.id}`,
            cell(
              Object.entries(e.detail)
                .map(([k, v]) => `${k}=${String(v)}`)
                .join(' '),
              60,
            ),
          ]),
        ),
      );
    return EXIT.ok;
  },
};
