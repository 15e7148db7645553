import { describe, expect, it } from 'vitest';
import { startedBy, startedStatus } from '../src/run/started-status.js';

// The status a worker's start leaves names the worker and its host, and reads back (docs/run-api.md, "Run events").

describe('startedStatus / startedBy', () => {
  it('names the worker and host, and reads them back, parentheses and all', () => {
    expect(startedStatus({ workerId: 'w-1', host: 'default' })).toEqual({ message: 'Started on worker w-1 (host default)' });
    for (const by of [
      { workerId: 'w-1', host: 'default' },
      { workerId: 'worker (blue)', host: 'gpu (eu-west)' },
    ]) {
      expect(startedBy(startedStatus(by).message)).toEqual(by);
    }
  });

  it('reads nothing from another message', () => {
    for (const message of ['Started', 'Started on worker w-1', 'Started on worker  (host x)', 'Resumed', 'started on worker a (host b)']) {
      expect(startedBy(message)).toBeUndefined();
    }
  });
});
