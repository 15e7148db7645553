import { describe, expect, it } from 'vitest';
import { declaredHarnesses, programIn } from '../src/container-harness.js';

/** Where a CLI is in a run's image (docs/executors.md, "Agent CLIs"): the image's label, else the option's path, else its program. */
describe("an agent CLI's path in the image", () => {
  const declared = declaredHarnesses({ claude: { path: '/opt/agent/bin/claude' }, codex: {} });
  const image = (labels: Record<string, string> | null) => ({ Config: { Labels: labels } });

  it('declares only the CLIs the option names', () => {
    expect([...declared.keys()]).toEqual(['claude', 'codex']);
  });

  it("is the image's label agentrun.harness.<type> when it has one", () => {
    const claude = declared.get('claude');
    expect(claude && programIn(image({ 'agentrun.harness.claude': '/usr/local/bin/claude' }), claude)).toBe('/usr/local/bin/claude');
  });

  it("is the option's path, else the CLI's program on the image's PATH, when the label is absent or empty", () => {
    const claude = declared.get('claude');
    const codex = declared.get('codex');
    expect(claude && programIn(image(null), claude)).toBe('/opt/agent/bin/claude');
    expect(claude && programIn(image({ 'agentrun.harness.claude': '' }), claude)).toBe('/opt/agent/bin/claude');
    expect(codex && programIn(image({ 'agentrun.harness.claude': '/x' }), codex)).toBe('codex');
    expect(codex && programIn({}, codex)).toBe('codex');
  });
});
