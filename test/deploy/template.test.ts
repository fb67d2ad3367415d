import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_FILES } from '../../infra/generate.js';
import { TABLE_DEFINITION } from '../../lib/store/table-definition.js';

/**
 * The CloudFormation that `osls package` makes of serverless.yml (no AWS account involved):
 * the functions, the Slack route, the table, the schedule, and IAM that grants each function only
 * named actions on the table and the key.
 */

const run = promisify(execFile);

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}
interface Template {
  Resources: Record<string, Resource>;
}

let template: Template;
let packageDir: string;

beforeAll(async () => {
  packageDir = await mkdtemp(join(tmpdir(), 'chatops-package-'));
  await run('npx', ['tsx', 'infra/build.ts'], { timeout: 120_000 });
  await run('npx', ['osls', 'package', '--stage', 'ci', '--package', packageDir], {
    timeout: 120_000,
    env: { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
  });
  template = JSON.parse(
    await readFile(join(packageDir, 'cloudformation-template-update-stack.json'), 'utf8'),
  );
}, 240_000);

afterAll(async () => {
  if (packageDir) await rm(packageDir, { recursive: true, force: true });
});

interface Statement {
  Action: string | string[];
  Resource: unknown;
}

function statementsOf(role: Resource): Statement[] {
  const policies = (role.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[];
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

function resourcesOf(type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, r]) => r.Type === type);
}

describe('the packaged CloudFormation template', () => {
  it('has the three functions, each with its own role', () => {
    const functions = resourcesOf('AWS::Lambda::Function');
    expect(functions.map(([name]) => name).sort()).toEqual([
      'ReporterLambdaFunction',
      'SlackLambdaFunction',
      'WorkerLambdaFunction',
    ]);
    const roles = functions.map(([, f]) => JSON.stringify(f.Properties.Role));
    expect(new Set(roles).size).toBe(3);
    for (const [, f] of functions) expect(f.Properties.Runtime).toBe('nodejs22.x');
  });

  it('routes Slack requests and the "Add to Slack" pages on the HTTP API to the Slack function', () => {
    const routes = resourcesOf('AWS::ApiGatewayV2::Route');
    expect(routes.map(([, r]) => r.Properties.RouteKey).sort()).toEqual([
      'GET /passkey/{token}',
      'GET /slack/install',
      'GET /slack/oauth_redirect',
      'POST /passkey/{token}/options',
      'POST /passkey/{token}/verify',
      'POST /slack/events',
    ]);
    // One integration for all: the OAuth and passkey pages are served by the same Slack function.
    const targets = new Set(routes.map(([, r]) => JSON.stringify(r.Properties.Target)));
    expect(targets.size).toBe(1);
    expect(JSON.stringify(resourcesOf('AWS::ApiGatewayV2::Integration'))).toContain('SlackLambdaFunction');
  });

  it('has the table with TTL and point-in-time recovery, from the single definition', () => {
    const tables = resourcesOf('AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    const properties = tables[0]?.[1].Properties ?? {};
    expect(properties.TimeToLiveSpecification).toEqual({
      AttributeName: TABLE_DEFINITION.ttlAttribute,
      Enabled: true,
    });
    expect(properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(properties.BillingMode).toBe('PAY_PER_REQUEST');
  });

  it('runs the reporter on a schedule', () => {
    const rules = resourcesOf('AWS::Events::Rule');
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['rate(5 minutes)']);
  });

  it('has a KMS key with rotation for the token envelopes', () => {
    const keys = resourcesOf('AWS::KMS::Key');
    expect(keys).toHaveLength(1);
    expect(keys[0]?.[1].Properties.EnableKeyRotation).toBe(true);
  });

  it('grants no wildcard actions, and nothing on the table or the key beyond named actions', () => {
    const statements = resourcesOf('AWS::IAM::Role').flatMap(([, role]) =>
      (
        (role.Properties.Policies as { PolicyDocument: { Statement: { Action: string | string[] }[] } }[]) ??
        []
      ).flatMap((policy) => policy.PolicyDocument.Statement),
    );
    expect(statements.length).toBeGreaterThan(0);
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
    expect(actions.filter((a) => a.startsWith('dynamodb:'))).not.toContain('dynamodb:Scan');
  });

  it("lets only the Slack function, which removes a workspace's users' items, write in batches, on the table alone", () => {
    const batchWriters = resourcesOf('AWS::IAM::Role').flatMap(([name, role]) =>
      statementsOf(role)
        .filter((s) => [s.Action].flat().includes('dynamodb:BatchWriteItem'))
        .map((s) => ({ name, resource: s.Resource })),
    );
    expect(batchWriters).toEqual([
      { name: 'SlackFunctionRole', resource: { 'Fn::GetAtt': ['ChatopsTable', 'Arn'] } },
    ]);
  });

  it('lets each function read in batches (what a person may run, in one read) on the table alone, never an index', () => {
    const batchReaders = resourcesOf('AWS::IAM::Role').flatMap(([name, role]) =>
      statementsOf(role)
        .filter((s) => [s.Action].flat().includes('dynamodb:BatchGetItem'))
        .map((s) => ({ name, resource: s.Resource })),
    );
    expect(batchReaders).toEqual(
      ['SlackFunctionRole', 'WorkerFunctionRole', 'ReporterFunctionRole'].map((name) => ({
        name,
        resource: { 'Fn::GetAtt': ['ChatopsTable', 'Arn'] },
      })),
    );
  });

  it('gives only the Slack function the right to invoke the worker', () => {
    const invokers = resourcesOf('AWS::IAM::Role').filter(([, role]) =>
      JSON.stringify(role.Properties.Policies).includes('lambda:InvokeFunction'),
    );
    expect(invokers.map(([name]) => name)).toEqual(['SlackFunctionRole']);
  });

  it('reads the Slack secrets from SSM, never from plain configuration', () => {
    const serialized = JSON.stringify(resourcesOf('AWS::Lambda::Function'));
    expect(serialized).toContain('SLACK_SIGNING_SECRET_PARAM');
    expect(serialized).not.toMatch(/"SLACK_SIGNING_SECRET"|"SLACK_BOT_TOKEN"/);
    // Many workspaces: the OAuth credentials come the same way, under the stage's parameter path.
    for (const key of ['SLACK_CLIENT_ID_PARAM', 'SLACK_CLIENT_SECRET_PARAM', 'SLACK_STATE_SECRET_PARAM']) {
      expect(serialized).toContain(key);
    }
    expect(serialized).not.toMatch(/"SLACK_CLIENT_SECRET"|"SLACK_STATE_SECRET"/);
  });
});

describe('generated files', () => {
  it.each(Object.entries(GENERATED_FILES))('%s is up to date (npm run generate)', async (path, render) => {
    expect(await readFile(path, 'utf8')).toBe(render());
  });
});
