import { explainFilter, type FilterExplanation, type PayloadFilter, parseFilter } from '@agentrun/core/filter';
import type { Command, Context } from '../command.js';
import { isAutomationContent, readAutomation } from '../definitions/automation-file.js';
import { CliError, InvalidInputError, UsageError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { readDataFile } from '../files.js';

/**
 * `agentrun filter test`: a payload filter, or each trigger of an automation file, against a
 * payload, offline, with core's own compiler (docs/filters.md, "Testing your filter rules"). No
 * server and no key: it runs in any CI job.
 */
export const filterTest: Command = {
  name: 'filter test',
  summary: 'Would this payload trigger this filter or automation? Offline, with the server’s own filter compiler',
  description: [
    'The first file holds a payload filter (the `filter.payload` of an automation trigger), or a whole',
    'automation file (automations/<name>.yaml: each trigger’s filter is tested), as JSON or YAML (.yaml,',
    '.yml); the payload file holds a delivery body as JSON. Prints "Would trigger", or "Would not trigger"',
    'with the first failing path and why (for an automation, one line per trigger). Exits 0 when it would',
    'trigger (an automation: when any of its triggers would), 1 when not, 2 when the filter is invalid',
    '(naming its path) or a file cannot be read.',
  ].join('\n'),
  arguments: ['<filter-or-automation-file>', '<payload-file>'],
  options: {
    webhook: {
      type: 'string',
      valueName: 'name-or-uid',
      description: 'with an automation file: only the triggers that select this webhook (its file name, or its UID)',
    },
  },
  examples: [
    'agentrun filter test filters/github-pr.yaml fixtures/pr-opened.json',
    'agentrun filter test filter.json payload.json --json',
    'agentrun filter test automations/triage-issues.yaml fixtures/issue-opened.json --webhook github',
  ],
  async run(context) {
    const [filterFile, payloadFile] = context.positionals as [string, string];
    const content = readDataFile(filterFile, 'the filter file');
    if (isAutomationContent(content)) return testAutomation(context, content, filterFile, payloadFile);
    if (context.string('webhook') !== undefined)
      throw new UsageError(`--webhook: ${filterFile} is a payload filter, not an automation file`);
    let filter: PayloadFilter;
    try {
      filter = parseFilter(content, 'filter');
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new InvalidInputError(`invalid filter in ${filterFile}: ${(error as Error).message}`);
    }
    const result = explainFilter(filter, readDataFile(payloadFile, 'the payload file'));
    if (context.json) context.printJson(result);
    else if (result.matched) context.print('Would trigger');
    else context.print(`Would not trigger: ${why(result)}`);
    return result.matched ? EXIT.ok : EXIT.no;
  },
};

/** One trigger's answer: `--json` prints these under `triggers`. */
type TriggerResult = { trigger: string; webhooks: readonly string[] } & FilterExplanation;

/** Each trigger of the automation file (those selecting `--webhook`, when given) against the payload. */
function testAutomation(context: Context, content: unknown, file: string, payloadFile: string): number {
  const { automation, triggers } = readAutomation(content, file);
  const payload = readDataFile(payloadFile, 'the payload file');
  const webhook = context.string('webhook');
  const results: TriggerResult[] = triggers
    .filter((t) => webhook === undefined || t.webhooks.includes(webhook))
    .map((t) => ({ trigger: t.path, webhooks: t.webhooks, ...(t.filter ? explainFilter(t.filter, payload) : { matched: true }) }));
  const matched = results.some((r) => r.matched);
  if (!automation.enabled) context.note('The automation is disabled (enabled: false): it starts no run until it is enabled.');
  if (context.json) {
    context.printJson({ matched, triggers: results });
    return matched ? EXIT.ok : EXIT.no;
  }
  if (results.length === 0) {
    context.print(
      `Would not trigger: ${webhook === undefined ? 'the automation has no triggers' : `no trigger selects webhook ${webhook}`}`,
    );
    return EXIT.no;
  }
  context.print(matched ? 'Would trigger' : 'Would not trigger');
  for (const r of results)
    context.print(`  ${r.trigger} (${r.webhooks.join(', ')}): ${r.matched ? 'would trigger' : `would not trigger: ${why(r)}`}`);
  return matched ? EXIT.ok : EXIT.no;
}

const why = (result: FilterExplanation): string => (result.matched ? '' : `${result.path || '(the payload itself)'}: ${result.reason}`);
