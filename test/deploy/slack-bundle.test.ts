import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticClosure } from '../../bench/cold-start/bundles.js';
import { buildFunctions } from '../../infra/build.js';

/**
 * What the Slack function evaluates before its first answer: the entry and the chunks it imports
 * statically. A cold start pays for every module in it, inside Slack's 3 s, so code that `/cloud
 * help` does not need stays behind dynamic imports and loads on first use.
 */

let outdir: string;
let atStart: Set<string>;
let startFiles: string[];
let deployed: Set<string>;

/** Source files (relative to the map) that make up the given bundle files. */
async function sourcesOf(files: readonly string[]): Promise<Set<string>> {
  const sources = new Set<string>();
  for (const file of files) {
    const map = JSON.parse(await readFile(`${file}.map`, 'utf8')) as { sources: string[] };
    for (const source of map.sources) sources.add(source.replaceAll('\\', '/'));
  }
  return sources;
}

const has = (sources: Set<string>, fragment: string) => [...sources].some((s) => s.includes(fragment));

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'chatops-bundle-'));
  await buildFunctions(outdir);
  const slack = join(outdir, 'slack');
  startFiles = [...(await staticClosure(join(slack, 'index.mjs')))];
  atStart = await sourcesOf(startFiles);
  const all = await readdir(slack, { recursive: true });
  deployed = await sourcesOf(all.filter((f) => f.endsWith('.mjs')).map((f) => join(slack, f)));
}, 120_000);

afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

describe('the Slack function bundle', () => {
  it('answers /cloud help without the KMS client, which loads on the first decryption', () => {
    expect(has(deployed, 'node_modules/@aws-sdk/client-kms/')).toBe(true);
    expect(has(atStart, 'node_modules/@aws-sdk/client-kms/')).toBe(false);
  });

  it.each([
    'lib/slack/approval-answers.ts',
    'lib/slack/forms.ts',
    'lib/slack/operation-runner.ts',
    'lib/slack/bot-commands/index.ts',
    'lib/slack/bot-commands/reports.ts',
    'lib/core/report-subscriptions.ts',
    'lib/api/client.ts',
  ])('loads %s on first use, not at start', (file) => {
    expect(has(deployed, file)).toBe(true);
    expect(has(atStart, file)).toBe(false);
  });

  it('carries the passkey page and WebAuthn checks, loaded on the first passkey request only', () => {
    for (const file of [
      'node_modules/@simplewebauthn/server/',
      'lib/passkeys/routes.ts',
      'lib/passkeys/page.ts',
      'lib/store/passkeys.ts',
      'lib/store/passkey-links.ts',
    ]) {
      expect(has(deployed, file), file).toBe(true);
      expect(has(atStart, file), file).toBe(false);
    }
  });

  it("still loads what /cloud help needs at start: the parser's front, the command catalog, help and the delivery claim", () => {
    for (const file of [
      'lib/commands/parse/front.ts',
      'lib/commands/catalog.ts',
      'lib/commands/help-topics.ts',
      'lib/store/delivery-claims.ts',
    ]) {
      expect(has(atStart, file)).toBe(true);
    }
  });

  it('keeps the project code it loads at start in one file, not a chunk for each set of lazy importers', async () => {
    const isProjectCode = (source: string) =>
      !source.includes('node_modules/') && /(^|\/)(lib|functions)\//.test(source);
    const withProjectCode = [];
    for (const file of startFiles) {
      if ([...(await sourcesOf([file]))].some(isProjectCode)) withProjectCode.push(file);
    }
    // Each file at start costs the module loader a resolve, a read and a link (`startInOneChunk`).
    expect(withProjectCode).toHaveLength(1);
    expect(has(atStart, 'lib/commands/catalog.ts')).toBe(true);
  });
});
