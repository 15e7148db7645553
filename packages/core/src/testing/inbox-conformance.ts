import { describe, expect, it } from 'vitest';
import type { Store } from '../store/store.js';
import { newId } from '../util/ids.js';

const T1 = '2026-03-01T00:00:00.000Z';
const T2 = '2026-03-02T00:00:00.000Z';

/** The factory inbox's read marks (store/inbox.ts). */
export function describeInboxConformance(store: () => Store): void {
  describe('inbox read marks', () => {
    it('marks read and unread per team and user, answering only what was asked', async () => {
      const team = `team-${newId()}`;
      const reads = store().inboxReads;
      expect(await reads.readOf(team, 'u1', ['n1', 'n2'])).toEqual(new Set());
      await reads.mark(team, 'u1', ['n1', 'n2'], true, T1);
      expect(await reads.readOf(team, 'u1', ['n1', 'n2', 'n3'])).toEqual(new Set(['n1', 'n2']));
      expect(await reads.readOf(team, 'u1', ['n2'])).toEqual(new Set(['n2']));
      // Another user, another team: nothing read.
      expect(await reads.readOf(team, 'u2', ['n1', 'n2'])).toEqual(new Set());
      expect(await reads.readOf(`team-${newId()}`, 'u1', ['n1', 'n2'])).toEqual(new Set());
      await reads.mark(team, 'u1', ['n1', 'n9'], false, T2);
      expect(await reads.readOf(team, 'u1', ['n1', 'n2', 'n9'])).toEqual(new Set(['n2']));
    });

    it('takes a mark again, a duplicate in one call, and empty lists without a word', async () => {
      const team = `team-${newId()}`;
      const reads = store().inboxReads;
      await reads.mark(team, 'u1', ['n1', 'n1'], true, T1);
      await reads.mark(team, 'u1', ['n1'], true, T2);
      await reads.mark(team, 'u1', [], true, T2);
      await reads.mark(team, 'u1', [], false, T2);
      expect(await reads.readOf(team, 'u1', ['n1'])).toEqual(new Set(['n1']));
      expect(await reads.readOf(team, 'u1', [])).toEqual(new Set());
      await reads.mark(team, 'u1', ['n1', 'n1'], false, T2);
      expect(await reads.readOf(team, 'u1', ['n1'])).toEqual(new Set());
    });
  });
}
