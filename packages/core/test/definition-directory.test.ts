import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DefinitionText, definitionFileKind, problemLine, readDefinitions } from '../src/definitions/directory.js';
import { apiKey } from '../src/definitions/file-keys.js';
import { locateProblems } from '../src/definitions/locate.js';

// The one reader of a definitions directory (definitions/directory.ts), shared by `agentrun apply`
// and factory sources: which files it reads, what each becomes, and where a problem is placed.

const KINDS = ['webhooks', 'automations', 'environments'] as const;
const fileName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,12}$/);
const key = fc.stringMatching(/^[a-z][a-zA-Z]{0,8}$/).filter((k) => k !== 'name');
const scalar = fc.oneof(fc.integer(), fc.boolean(), fc.stringMatching(/^[a-z][a-z ]{0,10}[a-z]$/));

/** A definition file: its kind, name, and keys in order, written one per line. */
const definition = fc.record({
  kind: fc.constantFrom(...KINDS),
  name: fileName,
  ext: fc.constantFrom('yaml', 'yml'),
  entries: fc.uniqueArray(fc.tuple(key, scalar), { selector: ([k]) => k, minLength: 1, maxLength: 6 }),
});

const text = (entries: readonly (readonly [string, unknown])[]) => entries.map(([k, v]) => `${k}: ${JSON.stringify(v)}\n`).join('');

describe('readDefinitions', () => {
  it('reads each definition file into a body named by its file, camelCase keys as the API names them, in path order; other files are ignored', () => {
    fc.assert(
      fc.property(fc.uniqueArray(definition, { selector: (d) => `${d.kind}/${d.name}`, maxLength: 8 }), (defs) => {
        const texts: DefinitionText[] = [
          ...defs.map((d) => ({ path: `${d.kind}/${d.name}.${d.ext}`, text: text(d.entries) })),
          { path: 'README.md', text: 'not: read' },
          { path: 'webhooks/nested/deep.yaml', text: 'not: read' },
          { path: 'webhooks/.hidden.yaml', text: 'not: read' },
        ];
        const loaded = readDefinitions([...texts].reverse(), (p) => `dir/${p}`);
        expect(loaded.problems).toEqual([]);
        for (const kind of KINDS) {
          const mine = defs.filter((d) => d.kind === kind).sort((a, b) => (`${a.name}.${a.ext}` < `${b.name}.${b.ext}` ? -1 : 1));
          expect(loaded[kind].map((b) => b.name)).toEqual(mine.map((d) => d.name));
          expect(loaded.files[kind].map((f) => f.path)).toEqual(mine.map((d) => `dir/${kind}/${d.name}.${d.ext}`));
          for (const [i, d] of mine.entries()) {
            const body = loaded[kind][i] as Record<string, unknown>;
            for (const [k, v] of d.entries) expect(body[apiKey(k)]).toEqual(v);
          }
        }
      }),
    );
  });

  it('places a problem at the line of the key it names, and a path it cannot place at the directory', () => {
    fc.assert(
      fc.property(definition, fc.nat(), (d, pick) => {
        const [problemKey] = d.entries[pick % d.entries.length] as [string, unknown];
        const loaded = readDefinitions([{ path: `${d.kind}/${d.name}.${d.ext}`, text: text(d.entries) }]);
        const [placed, unplaced] = locateProblems(
          [
            { path: `${d.kind}.0.${problemKey}`, detail: 'is wrong' },
            { path: 'webhooks', detail: 'too many' },
          ],
          loaded,
          'dir',
        );
        expect(placed).toEqual({
          path: `${d.kind}/${d.name}.${d.ext}`,
          line: (pick % d.entries.length) + 1,
          message: `${problemKey}: is wrong`,
        });
        expect(problemLine(unplaced as never)).toBe('dir: webhooks: too many');
      }),
    );
  });

  it('reports a file that does not parse, is no mapping, or names itself, at its line; factory.yaml must say its uid', () => {
    const loaded = readDefinitions([
      { path: 'webhooks/a.yaml', text: 'authMode: token\nsecretName: [x\n' },
      { path: 'webhooks/b.yaml', text: '- a list\n' },
      { path: 'automations/c.yaml', text: 'prompt: hi\nname: other\n' },
      { path: 'factory.yaml', text: 'id: 1\n' },
    ]);
    expect(loaded.problems.map(problemLine)).toEqual([
      "automations/c.yaml:2: name: a definition's name is its file name; renaming is not supported",
      'factory.yaml: must say uid: <factory uid>',
      expect.stringMatching(/^webhooks\/a\.yaml:3: not valid YAML/),
      'webhooks/b.yaml:1: must be a mapping of keys (authMode: token, …)',
    ]);
    expect(readDefinitions([{ path: 'factory.yaml', text: 'uid: f-1\n' }]).factoryUid).toBe('f-1');
  });

  it('refuses a file of too many aliases rather than expanding it', () => {
    // Each level names the one before it 13 times: 10 × 13^8 values if expanded.
    const letter = (i: number) => String.fromCharCode(97 + i);
    const levels = Array.from(
      { length: 8 },
      (_, i) =>
        `${letter(i + 1)}: &${letter(i + 1)} [${Array(13)
          .fill(`*${letter(i)}`)
          .join(', ')}]`,
    );
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...levels].join('\n');
    const loaded = readDefinitions([{ path: 'webhooks/bomb.yaml', text: bomb }]);
    expect(loaded.webhooks).toEqual([]);
    expect(loaded.problems).toEqual([{ path: 'webhooks/bomb.yaml', line: 1, message: expect.stringContaining('not valid YAML') }]);
  });

  it('knows which paths are definition files', () => {
    expect(definitionFileKind('factory.yaml')).toBe('factory');
    expect(definitionFileKind('webhooks/ci.yml')).toBe('webhooks');
    expect(definitionFileKind('environments/web.YAML')).toBe('environments');
    for (const path of ['webhooks/a/b.yaml', 'webhooks/.x.yaml', 'other/ci.yaml', 'webhooks/ci.json', 'ci.yaml', 'factory.yml'])
      expect(definitionFileKind(path)).toBeUndefined();
  });
});
