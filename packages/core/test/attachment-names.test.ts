import fc from 'fast-check';
import * as v from 'valibot';
import { beforeEach, describe, expect, it } from 'vitest';
import { FileNameSchema } from '../src/models/requests.js';
import { expectProblem, type Harness, setup } from './helpers.js';

// An attachment's file name is limited to 255 bytes of UTF-8, the limit of one name on common file
// systems, because an executor writes the file under it (docs/run-api.md, `attachments`).

const utf8Bytes = (s: string) => new TextEncoder().encode(s).byteLength;
/** Names without slashes or control characters, from one- to four-byte characters, long enough to cross the limit. */
const name = fc
  .array(fc.constantFrom('a', 'é', '中', '😀', '.', '-', ' '), { minLength: 1, maxLength: 140 })
  .chain((parts) => fc.constant(parts.join('')))
  .filter((s) => s !== '.' && s !== '..');

describe('attachment file names', () => {
  it('are accepted exactly when they fit in 255 bytes of UTF-8', () => {
    fc.assert(
      fc.property(name, (s) => {
        expect(v.safeParse(FileNameSchema, s).success).toBe(utf8Bytes(s) <= 255);
      }),
    );
  });

  let h: Harness;
  beforeEach(async () => {
    h = await setup();
  });
  const create = (fileName: string) =>
    h.call('POST', '/agent/run', { body: { prompt: 'p', attachments: [{ file_name: fileName, mime_type: 'text/plain', data: 'aGk=' }] } });

  it('refuses 255 × "é" (255 characters, 510 bytes) at create time, naming the field', async () => {
    const p = await expectProblem(await create('é'.repeat(255)), 400, 'invalid_request');
    expect(p.detail).toMatch(/attachments\.0\.file_name: must be at most 255 bytes in UTF-8/);
  });

  it('takes a name of exactly 255 bytes', async () => {
    const res = await create(`${'é'.repeat(127)}a`);
    expect(res.status, await res.clone().text()).toBe(200);
  });
});
