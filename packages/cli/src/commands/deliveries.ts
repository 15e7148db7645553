import type { Command, OptionSpec } from '../command.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { cell, details, table } from '../output.js';
import { terminalText } from '../terminal-text.js';

/** `agentrun deliveries list|show|resend`: a webhook's delivery log (docs/management-api.md, "The delivery log"). */

const WHERE: Record<string, OptionSpec> = {
  factory: { type: 'string', valueName: 'uid', description: 'the factory (required)' },
  webhook: { type: 'string', valueName: 'uid', description: 'the webhook (required)' },
};

export const deliveriesList: Command = {
  name: 'deliveries list',
  summary: 'List a webhook’s deliveries, newest first',
  options: { ...WHERE, limit: { type: 'string', valueName: 'n', description: 'at most this many (default: all kept)' } },
  examples: ['agentrun deliveries list --factory $FACTORY --webhook $WEBHOOK --limit 20'],
  async run(context) {
    const factory = context.requireString('factory');
    const webhook = context.requireString('webhook');
    const limitText = context.string('limit');
    if (limitText !== undefined && (!/^\d{1,9}$/.test(limitText) || Number(limitText) < 1)) {
      throw new UsageError(`--limit ${limitText}: must be a whole number of at least 1`);
    }
    const limit = limitText === undefined ? undefined : Number(limitText);
    const deliveries = [];
    for await (const delivery of context.client().deliveries.list(factory, webhook, { limit: Math.min(limit ?? 200, 200) })) {
      deliveries.push(delivery);
      if (limit !== undefined && deliveries.length >= limit) break;
    }
    if (context.json) context.printJson(deliveries);
    else if (deliveries.length === 0) context.note('No deliveries.');
    else
      context.print(
        table(
          ['DELIVERY ID', 'STATUS', 'SIZE', 'RECEIVED', 'IDENTITY'],
          deliveries.map((d) => [d.delivery_id, d.status, String(d.size), d.received_at, cell(d.identity, 40)]),
        ),
      );
    return EXIT.ok;
  },
};

export const deliveriesShow: Command = {
  name: 'deliveries show',
  summary: 'Show one delivery, with the payload of an accepted one',
  description: '--raw prints the payload’s bytes exactly as received (for replaying or checking a signature).',
  arguments: ['<delivery-id>'],
  options: { ...WHERE, raw: { type: 'boolean', description: 'print only the payload, byte for byte' } },
  examples: [
    'agentrun deliveries show $DELIVERY --factory $FACTORY --webhook $WEBHOOK',
    'agentrun deliveries show $DELIVERY --factory $F --webhook $W --raw > payload.json',
  ],
  async run(context) {
    const factory = context.requireString('factory');
    const webhook = context.requireString('webhook');
    const id = context.positionals[0] as string;
    const client = context.client();
    if (context.flag('raw')) {
      const payload = Buffer.from(await client.deliveries.payload(factory, webhook, id)).toString('utf8');
      // Byte for byte into a file or a pipe; a terminal gets it with control characters shown (terminal-text.ts).
      context.io.stdout.write(context.io.stdout.isTTY ? terminalText(payload) : payload);
      return EXIT.ok;
    }
    const delivery = await client.deliveries.get(factory, webhook, id);
    if (context.json) {
      context.printJson(delivery);
      return EXIT.ok;
    }
    context.print(
      details([
        ['delivery_id', delivery.delivery_id],
        ['status', delivery.status],
        ['size', delivery.size],
        ['received_at', delivery.received_at],
        ['identity', delivery.identity],
        ['resent_from', delivery.resent_from],
        [
          'runs',
          delivery.run_ids === null ? null : delivery.run_ids.length === 0 ? '(none: it matched nothing)' : delivery.run_ids.join(', '),
        ],
        ['remote_address', delivery.request?.remote_address ?? null],
        ['user_agent', delivery.request?.user_agent ?? null],
      ]),
    );
    if (delivery.request) {
      context.print(
        `headers:\n${delivery.request.headers.map(({ name, value }) => `  ${terminalText(name)}: ${terminalText(value)}`).join('\n')}`,
      );
    }
    if (delivery.payload !== undefined) context.print(`payload:\n${JSON.stringify(delivery.payload, null, 2)}`);
    return EXIT.ok;
  },
};

export const deliveriesResend: Command = {
  name: 'deliveries resend',
  summary: 'Evaluate an accepted delivery again against today’s automations',
  description:
    'The payload the delivery kept is matched against the webhook’s enabled automations as they are now: a new log entry (resent from this one) and a run for each automation that wants it.',
  arguments: ['<delivery-id>'],
  options: WHERE,
  examples: ['agentrun deliveries resend $DELIVERY --factory $FACTORY --webhook $WEBHOOK'],
  async run(context) {
    const factory = context.requireString('factory');
    const webhook = context.requireString('webhook');
    const id = context.positionals[0] as string;
    const resent = await context.client().deliveries.resend(factory, webhook, id);
    if (context.json) {
      context.printJson(resent);
      return EXIT.ok;
    }
    context.print(
      details([
        ['delivery_id', resent.delivery.delivery_id],
        ['resent_from', resent.delivery.resent_from],
        ['runs', resent.run_ids.length === 0 ? '(none: no automation wants it now)' : resent.run_ids.join(', ')],
      ]),
    );
    return EXIT.ok;
  },
};
