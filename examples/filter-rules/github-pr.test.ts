// A team's own filter rules, tested like any other code (docs/filters.md, "Testing your filter
// rules"): the filter the automation uses is a file in the repository, and each payload is one
// the team has seen (saved from the delivery log: `agentrun deliveries show <id> --raw`). Core's
// compiler is the one the server runs, so what passes here is what triggers there.
import { readFileSync } from 'node:fs';
import { compileFilter, explainFilter, parseFilter } from '@agentrun/core/filter';
import { describe, expect, it } from 'vitest';

const read = (path: string): unknown => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));

// parseFilter throws a 400 naming the path of the first problem, so an invalid filter fails here,
// not when the automation is saved.
const filter = parseFilter(read('./filters/github-pr.json'), 'filter');
const triggers = compileFilter(filter);

describe('filters/github-pr.json', () => {
  it('triggers on a pull request into main labelled agent', () => {
    expect(triggers(read('./payloads/pr-opened.json'))).toBe(true);
  });

  it('does not trigger on a pull request into develop, and says why', () => {
    expect(explainFilter(filter, read('./payloads/pr-into-develop.json'))).toEqual({
      matched: false,
      path: 'pull_request.base.ref',
      reason: '"develop" is not one of ["main"]',
    });
  });

  it('does not trigger on a pull request a bot opened', () => {
    expect(explainFilter(filter, read('./payloads/pr-from-bot.json'))).toMatchObject({ matched: false, path: 'sender.type' });
  });
});
