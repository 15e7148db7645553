import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseSkillFile } from '../src/skills/skill-file.js';

// SKILL.md in the Agent Skills format (docs/repositories.md, "Skills").

describe('parseSkillFile', () => {
  it('reads any name and description written as YAML, and the body after the front matter', () => {
    const text = fc.string({ maxLength: 40 });
    fc.assert(
      fc.property(
        text.filter((s) => s.trim() !== ''),
        text,
        text,
        (name, description, body) => {
          const file = `---\n${stringify({ name, description }).trimEnd()}\n---\n${body}`;
          const parsed = parseSkillFile(file);
          expect(parsed).toEqual({ ok: true, skill: { name: name.trim(), description, body: body.trim() } });
        },
      ),
    );
  });

  it('takes CRLF line ends, a BOM, and a missing description', () => {
    expect(parseSkillFile('\uFEFF---\r\nname: x\r\n---\r\nDo x.\r\n')).toEqual({
      ok: true,
      skill: { name: 'x', description: '', body: 'Do x.' },
    });
  });

  it.each([
    ['', /^no front matter/],
    ['name: x\n---\nbody', /^no front matter/],
    ['---\nname: x\nbody without a closing line', /^no front matter/],
    ['---\nname: [x\n---\n', /^front matter is not valid YAML/],
    ['---\n- a\n- b\n---\n', /^front matter must be a YAML mapping/],
    ['---\ndescription: d\n---\n', /^front matter: name is missing$/],
    ['---\nname: 3\n---\n', /^front matter: name is invalid/],
    ['---\nname: "  "\n---\n', /^front matter: name is invalid/],
    ['---\nname: x\ndescription: [1]\n---\n', /^front matter: description is invalid/],
    [`---\nname: x\n---\n${'a'.repeat(100_001)}`, /longer than 100000 characters/],
  ])('%j is malformed: %s', (text, why) => {
    const parsed = parseSkillFile(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(why);
  });
});
