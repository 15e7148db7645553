import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ServerSentEvent, SseParser } from '../src/sse.js';

/** Parse `bytes` fed in the given pieces, through a streaming TextDecoder as the client reads a body. */
const parseIn = (bytes: Uint8Array, cuts: number[]): ServerSentEvent[] => {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const events: ServerSentEvent[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...parser.push(decoder.decode(bytes.subarray(start, cut), { stream: true })));
    start = cut;
  }
  events.push(...parser.push(decoder.decode()));
  return events;
};

const parseWhole = (text: string): ServerSentEvent[] => new SseParser().push(text);

describe('the SSE parser', () => {
  it('reads id, event and data fields, skips comments, and joins data lines with \\n', () => {
    const text = ': heartbeat\n\nid: 5\nevent: output\ndata: {"id":5}\n\nid: 6\ndata: line one\ndata:line two\ndata\n\n';
    expect(parseWhole(text)).toEqual([
      { id: '5', event: 'output', data: '{"id":5}' },
      { id: '6', event: 'message', data: 'line one\nline two\n' },
    ]);
  });

  it('ends lines at CRLF, LF or CR alike', () => {
    const lf = 'id: 1\nevent: state\ndata: a\n\n';
    expect(parseWhole(lf.replaceAll('\n', '\r\n'))).toEqual(parseWhole(lf));
    expect(parseWhole(lf.replaceAll('\n', '\r'))).toEqual(parseWhole(lf));
    expect(parseWhole(lf)).toEqual([{ id: '1', event: 'state', data: 'a' }]);
  });

  it('keeps the last id for later events, drops events with no data, and keeps an unfinished event until its blank line', () => {
    const parser = new SseParser();
    expect(parser.push('id: 7\nevent: x\n\ndata: after\n\n')).toEqual([{ id: '7', event: 'message', data: 'after' }]);
    expect(parser.push('id: 8\ndata: half')).toEqual([]);
    expect(parser.push('\r')).toEqual([]);
    expect(parser.push('\n\r\n')).toEqual([{ id: '8', event: 'message', data: 'half' }]);
  });

  it('ignores a leading BOM, unknown fields and retry', () => {
    expect(parseWhole('\uFEFFretry: 10\nfoo: bar\ndata: x\n\n')).toEqual([{ id: undefined, event: 'message', data: 'x' }]);
  });

  it('yields the same events however the byte stream is split (multi-byte characters and CRLF cut too)', () => {
    const line = fc.stringMatching(/^[^\r\n]*$/);
    const field = fc.oneof(
      line.map((v) => `data: ${v}`),
      line.map((v) => `data:${v}`),
      fc.constantFrom('data', 'data: é€😀', 'event: output', 'event: state', ': heartbeat', 'retry: 3', 'unknown: x'),
      fc.integer({ min: 1, max: 1e9 }).map((n) => `id: ${n}`),
    );
    const event = fc.array(field, { maxLength: 5 });
    const stream = fc.tuple(fc.array(event, { maxLength: 8 }), fc.constantFrom('\n', '\r\n', '\r'));
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 12 }), ([events, eol], rawCuts) => {
        const text = events.map((lines) => lines.map((l) => l + eol).join('') + eol).join('');
        const bytes = new TextEncoder().encode(text);
        const cuts = [...new Set(rawCuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const whole = parseIn(bytes, []);
        expect(parseIn(bytes, cuts)).toEqual(whole);
        // and byte by byte, the worst split there is
        expect(parseIn(bytes, [...bytes.keys()])).toEqual(whole);
        // with LF line ends, the same events
        expect(whole).toEqual(parseWhole(text.replaceAll(eol, '\n')));
      }),
      { numRuns: 300 },
    );
  });
});
