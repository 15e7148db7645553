import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * What `npm run build` puts in the published client (tsup.config.ts): the client's own modules and,
 * from core, only modules of plain values (its lists), so that `import '@agentrun/client'` loads no
 * core module and no schema library, in a browser as in Node.
 */
describe('the client bundle', () => {
  it('takes from core only modules that import nothing, and nothing from node_modules', async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['agentrun-source'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    // The modules that put code in the output (metafile.inputs also lists those parsed and shaken off).
    const [output] = Object.values(result.metafile.outputs);
    const bundled = Object.entries(output?.inputs ?? {})
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path);
    expect(bundled.filter((path) => path.includes('node_modules/'))).toEqual([]);
    const fromCore = bundled.filter((path) => path.includes('core/src/'));
    expect(fromCore.length).toBeGreaterThan(0);
    for (const path of fromCore) expect({ path, imports: result.metafile.inputs[path]?.imports }).toEqual({ path, imports: [] });
    const code = result.outputFiles[0]?.text ?? '';
    expect(code).not.toMatch(/^import\b/m);
    expect(code).toContain('"SUCCEEDED"');
  });
});
