import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticClosure } from '../../bench/cold-start/bundles.js';
import { ANSWERING_FUNCTIONS, buildFunctions } from '../../infra/build.js';

/**
 * What the functions people wait on evaluate before their first answer: the entry and the chunks it
 * imports statically. A cold start pays for every module in it (the Slack function's inside Slack's
 * 3 s, the agents' function's inside an agent's call), so code the first answer does not need stays
 * behind dynamic imports and loads on first use.
 */

interface StartBundle {
  /** The files loaded before the first answer. */
  readonly startFiles: string[];
  /** The sources those files were built from. */
  readonly atStart: Set<string>;
  /** The sources of every file deployed with the function. */
  readonly deployed: Set<string>;
}

let outdir: string;
const bundles = {} as Record<(typeof ANSWERING_FUNCTIONS)[number], StartBundle>;

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

async function startBundleOf(functionDir: string): Promise<StartBundle> {
  const startFiles = [...(await staticClosure(join(functionDir, 'index.mjs')))];
  const all = await readdir(functionDir, { recursive: true });
  return {
    startFiles,
    atStart: await sourcesOf(startFiles),
    deployed: await sourcesOf(all.filter((f) => f.endsWith('.mjs')).map((f) => join(functionDir, f))),
  };
}

/** Which of `files` hold code of ours (each costs the module loader a resolve, a read and a link). */
async function filesWithProjectCode(files: readonly string[]): Promise<string[]> {
  const isProjectCode = (source: string) =>
    !source.includes('node_modules/') && /(^|\/)(lib|functions)\//.test(source);
  const found = [];
  for (const file of files) {
    if ([...(await sourcesOf([file]))].some(isProjectCode)) found.push(file);
  }
  return found;
}

/** The sources loaded with the file of the agents' function that holds `source` (it and its static imports). */
async function loadedWith(source: string): Promise<Set<string>> {
  const all = await readdir(join(outdir, 'mcp'), { recursive: true });
  const files = all.filter((f) => f.endsWith('.mjs')).map((f) => join(outdir, 'mcp', f));
  for (const file of files) {
    if (has(await sourcesOf([file]), source)) return sourcesOf(await staticClosure(file));
  }
  throw new Error(`no file holds ${source}`);
}

/**
 * The files of the agents' function a lazy import of `name` (its entry file, `chunks/<name>-<hash>.mjs`)
 * loads beyond the start.
 */
async function loadedBeyondStart(name: string): Promise<string[]> {
  const chunks = join(outdir, 'mcp', 'chunks');
  const entry = (await readdir(chunks)).find((file) => file.startsWith(`${name}-`) && file.endsWith('.mjs'));
  if (!entry) throw new Error(`no entry file for ${name}`);
  const start = new Set(bundles.mcp.startFiles);
  return (await staticClosure(join(chunks, entry))).filter((file) => !start.has(file));
}

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'chatops-bundle-'));
  await buildFunctions(outdir);
  for (const name of ANSWERING_FUNCTIONS) bundles[name] = await startBundleOf(join(outdir, name));
}, 120_000);

afterAll(async () => {
  if (outdir) await rm(outdir, { recursive: true, force: true });
});

describe('the Slack function bundle', () => {
  it('answers /cloud help without the KMS client, which loads on the first decryption', () => {
    expect(has(bundles.slack.deployed, 'node_modules/@aws-sdk/client-kms/')).toBe(true);
    expect(has(bundles.slack.atStart, 'node_modules/@aws-sdk/client-kms/')).toBe(false);
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
    expect(has(bundles.slack.deployed, file)).toBe(true);
    expect(has(bundles.slack.atStart, file)).toBe(false);
  });

  it('carries the authenticator app’s QR page and its encoder, loaded on the first QR page request only', () => {
    for (const file of ['node_modules/uqr/', 'lib/passkeys/app-qr.ts']) {
      expect(has(bundles.slack.deployed, file), file).toBe(true);
      expect(has(bundles.slack.atStart, file), file).toBe(false);
    }
  });

  it('carries the passkey page and WebAuthn checks, loaded on the first passkey request only', () => {
    for (const file of [
      'node_modules/@simplewebauthn/server/',
      'lib/passkeys/routes.ts',
      'lib/passkeys/page.ts',
      'lib/store/passkeys.ts',
      'lib/store/passkey-links.ts',
    ]) {
      expect(has(bundles.slack.deployed, file), file).toBe(true);
      expect(has(bundles.slack.atStart, file), file).toBe(false);
    }
  });

  it("still loads what /cloud help needs at start: the parser's front, the command catalog, help and the delivery claim", () => {
    for (const file of [
      'lib/commands/parse/front.ts',
      'lib/commands/catalog.ts',
      'lib/commands/help-topics.ts',
      'lib/store/delivery-claims.ts',
    ]) {
      expect(has(bundles.slack.atStart, file)).toBe(true);
    }
  });

  it('keeps the project code it loads at start in one file, not a chunk for each set of lazy importers', async () => {
    // Each file at start costs the module loader a resolve, a read and a link (`startInOneChunk`).
    expect(await filesWithProjectCode(bundles.slack.startFiles)).toHaveLength(1);
    expect(has(bundles.slack.atStart, 'lib/commands/catalog.ts')).toBe(true);
  });
});

describe("the agents' function bundle", () => {
  it('answers an agent without the KMS client, which loads on the first decryption or sealing', () => {
    expect(has(bundles.mcp.deployed, 'node_modules/@aws-sdk/client-kms/')).toBe(true);
    expect(has(bundles.mcp.atStart, 'node_modules/@aws-sdk/client-kms/')).toBe(false);
  });

  it('regression: loads no Bolt at start (an enum imported from @slack/bolt loaded all of it, Express and Socket Mode included)', () => {
    for (const name of ['@slack/bolt', '@slack/socket-mode', 'express', 'undici']) {
      expect(has(bundles.mcp.atStart, `node_modules/${name}/`), name).toBe(false);
    }
  });

  it('loads the Slack packages on first use, not at start: a list or a read posts nothing to Slack', () => {
    for (const name of ['@slack/web-api', '@slack/oauth']) {
      expect(has(bundles.mcp.deployed, `node_modules/${name}/`), name).toBe(true);
      expect(has(bundles.mcp.atStart, `node_modules/${name}/`), name).toBe(false);
    }
  });

  it.each(['lib/agents/tool-answers.ts', 'lib/slack/approval-surface.ts', 'lib/api/client.ts'])(
    'loads %s on the first tool call, not with tools/list',
    (file) => {
      expect(has(bundles.mcp.deployed, file)).toBe(true);
      expect(has(bundles.mcp.atStart, file)).toBe(false);
    },
  );

  it('lists the tools from the generated catalog, not the operations table, which the first call loads', () => {
    expect(has(bundles.mcp.atStart, 'lib/commands/catalog.generated.ts')).toBe(true);
    expect(has(bundles.mcp.deployed, 'lib/api/operations/nodes.ts')).toBe(true);
    // Which module holds each group's rows loads at start, so a call's rows start loading with it;
    // no group's rows do.
    const tableFiles = [...bundles.mcp.atStart].filter((source) => source.includes('lib/api/operations/'));
    expect(tableFiles.map((source) => source.replace(/.*lib\/api\//, ''))).toEqual([
      'operations/by-group.ts',
    ]);
  });

  it.each(['lib/agents/oauth/routes.ts', 'lib/agents/oauth/consent.ts', 'lib/agents/oauth/token.ts'])(
    'loads %s on the first sign-in request, not to serve a call to /mcp',
    (file) => {
      expect(has(bundles.mcp.deployed, file)).toBe(true);
      expect(has(bundles.mcp.atStart, file)).toBe(false);
    },
  );

  it('answers a read without the Slack packages, which only asking for a change loads', async () => {
    const read = await loadedWith('lib/agents/tool-answers.ts');
    const change = await loadedWith('lib/agents/change-answers.ts');
    expect(has(read, 'node_modules/@slack/web-api/')).toBe(false);
    expect(has(change, 'node_modules/@slack/web-api/')).toBe(true);
  });

  it("loads a first read's own code in one file: the answers, the API client and the read's repositories", async () => {
    // A read loaded about fifteen files one after another before its code and repositories came
    // from one module (`lib/agents/read-path.ts`) that the build writes as one file.
    const files = await loadedBeyondStart('read-path');
    expect(await filesWithProjectCode(files)).toHaveLength(1);
    const sources = await sourcesOf(files);
    for (const file of [
      'lib/agents/tool-answers.ts',
      'lib/core/agent-calls.ts',
      'lib/api/client.ts',
      'lib/store/token-links.ts',
      'lib/store/token-cipher.ts',
      'lib/store/channel-policy.ts',
      'lib/store/audit-log.ts',
    ]) {
      expect(has(sources, file), file).toBe(true);
    }
  });

  it("answers a read with the called operation's group of the operations table, not the whole table", async () => {
    const read = await loadedWith('lib/agents/tool-answers.ts');
    const tableFiles = [...read].filter((source) => source.includes('lib/api/operations/'));
    expect(tableFiles.map((source) => source.replace(/.*lib\/api\//, ''))).toEqual([
      'operations/by-group.ts',
    ]);
    // `volumes.list` (the bench's read) brings its own group's rows and no other group's.
    const volumes = await loadedWith('lib/api/operations/volumes.ts');
    for (const group of ['nodes.ts', 'databases.ts', 'managed.ts', 'profile.ts', 'index.ts']) {
      expect(has(volumes, `lib/api/operations/${group}`), group).toBe(false);
    }
  });

  it.each(['lib/changes/requests.ts', 'lib/api/outcome.ts', 'lib/api/operations/index.ts'])(
    'answers a read without %s, which only changes and their read-backs load',
    async (file) => {
      const read = await loadedWith('lib/agents/tool-answers.ts');
      expect(has(bundles.mcp.deployed, file)).toBe(true);
      expect(has(read, file)).toBe(false);
    },
  );

  it('loads the route table, the MCP endpoint and the token check at start, which every first answer needs', () => {
    for (const file of [
      'lib/agents/app.ts',
      'lib/agents/mcp.ts',
      'lib/store/agent-grants.ts',
      'node_modules/@modelcontextprotocol/server/',
    ]) {
      expect(has(bundles.mcp.atStart, file), file).toBe(true);
    }
  });

  it('keeps the project code it loads at start in one file, as the Slack function does', async () => {
    expect(await filesWithProjectCode(bundles.mcp.startFiles)).toHaveLength(1);
  });

  it("carries the SDK's CfWorker JSON Schema validator and no ajv, whose modules all ran at start for a validator its servers never call", () => {
    expect(has(bundles.mcp.atStart, 'node_modules/@cfworker/json-schema/')).toBe(true);
    for (const name of ['ajv', 'ajv-formats', 'fast-uri']) {
      expect(has(bundles.mcp.deployed, `node_modules/${name}/`), name).toBe(false);
    }
  });
});
