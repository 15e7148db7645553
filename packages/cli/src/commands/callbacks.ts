import type { Command } from '../command.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { cell, details, table } from '../output.js';

/**
 * `agentrun callbacks create|list|enable|disable|delete|rotate-secret|deliveries|resend`: the
 * team's run-state callbacks (docs/cli.md, "callbacks …"; docs/callbacks.md).
 */

export const callbacksCreate: Command = {
  name: 'callbacks create',
  summary: 'Register a URL to be called on run events (prints its signing secret, once)',
  arguments: ['<url>'],
  options: {
    factory: { type: 'string', valueName: 'uid', description: 'only this factory’s runs (default: every run of the team)' },
    event: {
      type: 'string',
      multiple: true,
      valueName: 'type',
      description: 'run.created, run.state_changed or run.artifact_added (repeatable; default: all)',
    },
    description: { type: 'string', valueName: 'text', description: 'a note for people' },
  },
  examples: ['agentrun callbacks create https://hooks.example.com/agentrun --event run.state_changed'],
  async run(context) {
    const factory = context.string('factory');
    const events = context.strings('event');
    const description = context.string('description');
    const created = await context.client().callbacks.create({
      url: context.positionals[0] as string,
      ...(factory !== undefined ? { factory_uid: factory } : {}),
      ...(events.length > 0 ? { event_types: events as ('run.created' | 'run.state_changed' | 'run.artifact_added')[] } : {}),
      ...(description !== undefined ? { description } : {}),
    });
    if (context.json) context.printJson(created);
    else {
      context.print(
        details([
          ['id', created.callback.id],
          ['url', created.callback.url],
          ['secret', created.secret],
        ]),
      );
      context.note('The secret is shown this once: verify each callback’s webhook-signature with it (docs/callbacks.md).');
    }
    return EXIT.ok;
  },
};

export const callbacksList: Command = {
  name: 'callbacks list',
  summary: 'List the team’s callback endpoints',
  async run(context) {
    const { callbacks } = await context.client().callbacks.list();
    if (context.json) context.printJson(callbacks);
    else if (callbacks.length === 0) context.note('No callbacks.');
    else
      context.print(
        table(
          ['ID', 'URL', 'FACTORY', 'EVENTS', 'ENABLED'],
          callbacks.map((c) => [
            c.id,
            cell(c.url, 60),
            c.factory_uid ?? '(team)',
            c.event_types.length === 0 ? 'all' : c.event_types.join(','),
            c.enabled ? 'yes' : `no (${c.disabled_reason ?? 'manual'})`,
          ]),
        ),
      );
    return EXIT.ok;
  },
};

const toggle = (enabled: boolean): Command => ({
  name: enabled ? 'callbacks enable' : 'callbacks disable',
  summary: enabled ? 'Enable an endpoint (one the failing rule disabled too)' : 'Stop calling an endpoint',
  arguments: ['<callback-id>'],
  async run(context) {
    const updated = await context.client().callbacks.update(context.positionals[0] as string, { enabled });
    if (context.json) context.printJson(updated);
    else context.print(`${enabled ? 'Enabled' : 'Disabled'} callback ${updated.id}`);
    return EXIT.ok;
  },
});
export const callbacksEnable = toggle(true);
export const callbacksDisable = toggle(false);

export const callbacksDelete: Command = {
  name: 'callbacks delete',
  summary: 'Delete an endpoint with its delivery log',
  arguments: ['<callback-id>'],
  async run(context) {
    const id = context.positionals[0] as string;
    await context.client().callbacks.delete(id);
    if (context.json) context.printJson({ id, deleted: true });
    else context.print(`Deleted callback ${id}`);
    return EXIT.ok;
  },
};

export const callbacksRotate: Command = {
  name: 'callbacks rotate-secret',
  summary: 'Replace an endpoint’s signing secret (prints the new one, once)',
  arguments: ['<callback-id>'],
  async run(context) {
    const rotated = await context.client().callbacks.rotateSecret(context.positionals[0] as string);
    if (context.json) context.printJson(rotated);
    else context.print(details([['secret', rotated.secret]]));
    return EXIT.ok;
  },
};

export const callbacksDeliveries: Command = {
  name: 'callbacks deliveries',
  summary: 'List an endpoint’s deliveries and their attempts, newest first',
  arguments: ['<callback-id>'],
  options: {
    limit: { type: 'string', valueName: 'n', description: 'at most this many (1-200, default 50)' },
    cursor: { type: 'string', valueName: 'cursor', description: 'the next page, from a previous --json answer' },
  },
  async run(context) {
    const limitText = context.string('limit');
    if (limitText !== undefined && (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 200))
      throw new UsageError(`--limit ${limitText}: must be a whole number from 1 to 200`);
    const cursor = context.string('cursor');
    const page = await context.client().callbacks.deliveries(context.positionals[0] as string, {
      ...(limitText !== undefined ? { limit: limitText } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
    });
    if (context.json) context.printJson(page);
    else if (page.deliveries.length === 0) context.note('No deliveries.');
    else
      context.print(
        table(
          ['DELIVERY ID', 'EVENT', 'RUN', 'CHANGE', 'STATUS', 'ATTEMPTS', 'LAST'],
          page.deliveries.map((d) => {
            const last = d.attempts.at(-1);
            return [
              d.id,
              d.event_type,
              d.run_id,
              `${d.from ?? '-'}→${d.to}`,
              d.status,
              String(d.attempts.length),
              last ? `${last.ok ? 'ok' : cell(last.error ?? '', 30)} ${last.duration_ms} ms` : '-',
            ];
          }),
        ),
      );
    return EXIT.ok;
  },
};

export const callbacksResend: Command = {
  name: 'callbacks resend',
  summary: 'Send a logged delivery again (same webhook-id, a new retry window)',
  arguments: ['<callback-id>', '<delivery-id>'],
  async run(context) {
    const [id, deliveryId] = context.positionals as [string, string];
    const delivery = await context.client().callbacks.resend(id, deliveryId);
    if (context.json) context.printJson(delivery);
    else context.print(`Resending ${delivery.id} (due ${delivery.next_attempt_at ?? 'now'})`);
    return EXIT.ok;
  },
};
