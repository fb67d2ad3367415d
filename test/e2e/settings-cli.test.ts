import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { EXIT, runSettingsCommand } from '../../infra/settings.js';
import { loadConfig } from '../../lib/config.js';
import { ALICE, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * `npm run settings -- plan|apply FILE` as a CI job runs it, with the deployment's configuration:
 * here the local stack's table in DynamoDB Local and the Slack stand-in, whose directory resolves
 * the names the file is written with.
 */

const TEAM = 'T0LOCAL';

let e2e: E2E;
let dir: string;
beforeAll(async () => {
  e2e = await startE2E();
  dir = await mkdtemp(join(tmpdir(), 'settings-'));
});
afterAll(() => e2e?.close());

function config() {
  return loadConfig({
    SLACK_SIGNING_SECRET: e2e.stack.signingSecret,
    SLACK_BOT_TOKEN: e2e.stack.standIn.botToken,
    SLACK_API_URL: e2e.stack.standIn.apiUrl,
    TABLE_NAME: e2e.stack.tableName,
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    AWS_REGION: 'us-east-1',
  });
}

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSettingsCommand(argv, config(), {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function file(name: string, document: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof document === 'string' ? document : toYaml(document));
  return path;
}

const DOCUMENT = {
  settings: 1,
  workspace: {
    approvals: { approvers: ['@alice', '@ada'], required: 2, admins: ['@ada'] },
    aliases: { vl: 'volumes list' },
  },
  channels: { '#ops': { allow: ['read', 'change'], rules: { change: { approverGroup: '@oncall' } } } },
};

describe('npm run settings', () => {
  it('plans a file: the changes and the digest of the settings it planned against, nothing written', async () => {
    const path = await file('plan.yaml', DOCUMENT);
    const plan = await run('plan', path, '--team', TEAM);
    expect(plan.code, plan.err).toBe(EXIT.ok);
    expect(plan.out).toContain('~ workspace approvals.required: 1 -> 2');
    expect(plan.out).toContain('+ workspace aliases.vl: volumes list');
    expect(plan.out).toContain('+ #ops allow: read, change');
    expect(plan.out).toMatch(/^base: [a-f0-9]{64}$/m);
    expect((await e2e.stack.store.approvalPolicy.get(TEAM)).requiredApprovals).toBe(1);
  });

  it('exits 1 with the line of each mistake, and writes nothing', async () => {
    const path = await file(
      'bad.yaml',
      'settings: 1\nworkspace:\n  approvals:\n    required: 0\nchannels:\n  "#nowhere": {allow: [read]}\n',
    );
    const plan = await run('plan', path, '--team', TEAM);
    expect(plan.code).toBe(EXIT.invalid);
    expect(plan.err).toContain(`${path}:4:`);
    const apply = await run('apply', path, '--team', TEAM, '--base', 'a'.repeat(64));
    expect(apply.code).toBe(EXIT.invalid);
    expect(await e2e.stack.store.settingsVersions.headVersion(TEAM)).toBe(0);
  });

  it('refuses to apply when the settings changed after the plan: exit 3, nothing written', async () => {
    const path = await file('stale.yaml', DOCUMENT);
    const plan = await run('plan', path, '--team', TEAM);
    const base = /^base: ([a-f0-9]{64})$/m.exec(plan.out)?.[1] ?? '';
    await e2e.stack.store.aliases.put(
      TEAM,
      { kind: 'channel', channel: CHANNEL },
      'late',
      'nodes list',
      ALICE,
    );
    const apply = await run('apply', path, '--team', TEAM, '--base', base, '--actor', 'github:alice');
    expect(apply.code).toBe(EXIT.stale);
    expect(apply.err).toContain('Plan again');
    expect((await e2e.stack.store.approvalPolicy.get(TEAM)).requiredApprovals).toBe(1);
    expect(await e2e.stack.store.settingsVersions.headVersion(TEAM)).toBe(0);
  });

  it('applies at the digest the plan printed, as a version applied from CI by the actor', async () => {
    const current = await run('plan', await file('now.yaml', DOCUMENT), '--team', TEAM);
    const base = /^base: ([a-f0-9]{64})$/m.exec(current.out)?.[1] ?? '';
    // The file keeps the alias added meanwhile, as a file refreshed from an export would.
    const withLate = structuredClone(DOCUMENT) as typeof DOCUMENT & {
      channels: { '#ops': { aliases?: Record<string, string> } };
    };
    withLate.channels['#ops'].aliases = { late: 'nodes list' };
    const path = await file('apply.yaml', withLate);
    const plan = await run('plan', path, '--team', TEAM);
    const planned = /^base: ([a-f0-9]{64})$/m.exec(plan.out)?.[1];
    expect(planned).toBe(base);
    const apply = await run('apply', path, '--team', TEAM, '--base', base, '--actor', 'github:alice');
    expect(apply.code, apply.err).toBe(EXIT.ok);
    expect(apply.out).toMatch(/version 2/);
    const policy = await e2e.stack.store.approvalPolicy.get(TEAM);
    expect(policy).toMatchObject({
      requiredApprovals: 2,
      approverUsers: [ALICE, 'U0ADMIN'],
      admins: ['U0ADMIN'],
    });
    const channel = await e2e.stack.store.channelPolicy.get(TEAM, CHANNEL);
    expect(channel?.rules.change?.approverGroup).toBe('S0ONCALL');
    const [newest] = await e2e.stack.store.settingsVersions.list(TEAM, 1);
    expect(newest).toMatchObject({ version: 2, source: 'ci', appliedBy: 'ci:github:alice' });
    const again = await run('plan', path, '--team', TEAM);
    expect(again.out).toContain('No changes.');
    expect(parseYaml(await (await import('node:fs/promises')).readFile(path, 'utf8'))).toEqual(withLate);
  });

  it('answers a wrong command line with its usage, and exit 2', async () => {
    expect((await run('destroy', 'x.yaml', '--team', TEAM)).code).toBe(EXIT.usage);
    expect((await run('plan', 'x.yaml', '--team', '__proto__')).code).toBe(EXIT.usage);
    expect((await run('apply', await file('x.yaml', DOCUMENT), '--team', TEAM)).code).toBe(EXIT.usage);
  });
});
