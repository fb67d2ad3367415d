import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const CONFIG_ENTRY = fileURLToPath(new URL('../../lib/config.ts', import.meta.url));

/**
 * Every function reads its configuration before its first answer, so whatever `lib/config.ts`
 * imports is paid on each cold start, inside Slack's 3 s. Loading zod alone cost about 25 ms of
 * the Slack function's start (bench/RESULTS.md, "floor, no zod").
 */
describe('lib/config.ts module graph', () => {
  it('loads no zod, statically or lazily', async () => {
    const { metafile } = await build({
      entryPoints: [CONFIG_ENTRY],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
    });
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.length).toBeGreaterThan(0);
    expect(inputs.filter((path) => /(^|\/)node_modules\/zod\//.test(path))).toEqual([]);
  });
});
