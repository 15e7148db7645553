import { explainFilter, type PayloadFilter, parseFilter } from '@agentrun/core/filter';
import type { Command } from '../command.js';
import { CliError, InvalidInputError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { readDataFile } from '../files.js';

/**
 * `agentrun filter test`: a payload filter against a payload, offline, with core's own compiler
 * (docs/filters.md, "Testing your filter rules"). No server and no key: it runs in any CI job.
 */
export const filterTest: Command = {
  name: 'filter test',
  summary: 'Would this payload trigger this filter? Offline, with the server’s own filter compiler',
  description: [
    'The filter file holds a payload filter (the `filter.payload` of an automation trigger), as JSON or',
    'YAML (.yaml, .yml); the payload file holds a delivery body as JSON. Prints "Would trigger", or',
    '"Would not trigger" with the first failing path and why. Exits 0 when it would trigger, 1 when not,',
    '2 when the filter is invalid (naming its path) or a file cannot be read.',
  ].join('\n'),
  arguments: ['<filter-file>', '<payload-file>'],
  examples: ['agentrun filter test filters/github-pr.yaml fixtures/pr-opened.json', 'agentrun filter test filter.json payload.json --json'],
  async run(context) {
    const [filterFile, payloadFile] = context.positionals as [string, string];
    let filter: PayloadFilter;
    try {
      filter = parseFilter(readDataFile(filterFile, 'the filter file'), 'filter');
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new InvalidInputError(`invalid filter in ${filterFile}: ${(error as Error).message}`);
    }
    const payload = readDataFile(payloadFile, 'the payload file');
    const result = explainFilter(filter, payload);
    if (context.json) context.printJson(result);
    else if (result.matched) context.print('Would trigger');
    else context.print(`Would not trigger: ${result.path || '(the payload itself)'}: ${result.reason}`);
    return result.matched ? EXIT.ok : EXIT.no;
  },
};
