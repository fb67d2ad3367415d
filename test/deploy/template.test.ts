import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_FILES } from '../../infra/generate.js';
import { TABLE_DEFINITION } from '../../lib/store/table-definition.js';
import { packageStack } from './support/package-stack.js';

/**
 * The CloudFormation that `osls package` makes of serverless.yml (no AWS account involved):
 * the functions, the Slack and agents' routes, the table, the schedule, and IAM that grants each
 * function only named actions on the table and the key.
 */

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}
interface Template {
  Resources: Record<string, Resource>;
  Outputs: Record<string, { Value: unknown }>;
}

let template: Template;
let packageDir: string;

beforeAll(async () => {
  packageDir = await packageStack('ci', 'chatops-package-');
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

/** The route keys whose integration invokes `functionId` (a function's logical id), sorted. */
function routesTo(functionId: string): string[] {
  const integrations = resourcesOf('AWS::ApiGatewayV2::Integration')
    .filter(([, integration]) =>
      JSON.stringify(integration.Properties.IntegrationUri).includes(`"${functionId}"`),
    )
    .map(([name]) => name);
  return resourcesOf('AWS::ApiGatewayV2::Route')
    .filter(([, route]) =>
      integrations.some((name) => JSON.stringify(route.Properties.Target).includes(`"${name}"`)),
    )
    .map(([, route]) => String(route.Properties.RouteKey))
    .sort();
}

describe('the packaged CloudFormation template', () => {
  it('has the four functions, each with its own role', () => {
    const functions = resourcesOf('AWS::Lambda::Function');
    expect(functions.map(([name]) => name).sort()).toEqual([
      'McpLambdaFunction',
      'ReporterLambdaFunction',
      'SlackLambdaFunction',
      'WorkerLambdaFunction',
    ]);
    const roles = functions.map(([, f]) => JSON.stringify(f.Properties.Role));
    expect(new Set(roles).size).toBe(4);
    for (const [, f] of functions) expect(f.Properties.Runtime).toBe('nodejs22.x');
  });

  it('routes Slack requests, the "Add to Slack" pages, the passkey page and the authenticator QR page on the HTTP API to the Slack function', () => {
    // One integration for all: the OAuth and passkey pages are served by the same Slack function.
    expect(routesTo('SlackLambdaFunction')).toEqual([
      'GET /authenticator/{token}',
      'GET /passkey/{token}',
      'GET /slack/install',
      'GET /slack/oauth_redirect',
      'POST /authenticator/{token}',
      'POST /passkey/{token}/options',
      'POST /passkey/{token}/verify',
      'POST /slack/events',
    ]);
  });

  it("routes the MCP endpoint, Slackbot's MCP path and the agents' sign-in pages to the agents' function", () => {
    expect(routesTo('McpLambdaFunction')).toEqual([
      // GET and DELETE reach the function, which answers 405 as the MCP spec asks (MCP-FACTS §1.1).
      'DELETE /mcp',
      'GET /.well-known/oauth-authorization-server',
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /mcp',
      'GET /oauth/authorize',
      'GET /oauth/callback',
      'POST /mcp',
      'POST /mcp/slack',
      'POST /oauth/authorize',
      'POST /oauth/consent',
      'POST /oauth/register',
      'POST /oauth/revoke',
      'POST /oauth/token',
    ]);
  });

  it('routes nothing else', () => {
    const routed = [...routesTo('SlackLambdaFunction'), ...routesTo('McpLambdaFunction')];
    expect(resourcesOf('AWS::ApiGatewayV2::Route')).toHaveLength(routed.length);
  });

  it("gives the agents' function an answer before API Gateway's 30 s integration timeout", () => {
    const timeout = template.Resources.McpLambdaFunction?.Properties.Timeout;
    expect(timeout).toEqual(expect.any(Number));
    expect(timeout).toBeLessThanOrEqual(29);
  });

  it("gives the agents' function the worker and the public URL its MCP resource is named by, as the Slack function gets them", () => {
    const variables = (name: string) =>
      (template.Resources[name]?.Properties.Environment as { Variables: Record<string, unknown> } | undefined)
        ?.Variables ?? {};
    const slack = variables('SlackLambdaFunction');
    const mcp = variables('McpLambdaFunction');
    expect(mcp.WORKER_FUNCTION_NAME).toBe(slack.WORKER_FUNCTION_NAME);
    expect(mcp.BOT_PUBLIC_URL).toEqual({ 'Fn::GetAtt': ['HttpApi', 'ApiEndpoint'] });
    expect(JSON.stringify(template.Outputs.McpServerUrl?.Value)).toContain('/mcp');
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
      ['SlackFunctionRole', 'McpFunctionRole', 'WorkerFunctionRole', 'ReporterFunctionRole'].map((name) => ({
        name,
        resource: { 'Fn::GetAtt': ['ChatopsTable', 'Arn'] },
      })),
    );
  });

  it("gives only the Slack and agents' functions the right to invoke, and the worker alone", () => {
    const invocations = resourcesOf('AWS::IAM::Role').flatMap(([name, role]) =>
      statementsOf(role)
        .filter((s) => [s.Action].flat().includes('lambda:InvokeFunction'))
        .map((s) => ({ name, actions: [s.Action].flat(), resource: JSON.stringify(s.Resource) })),
    );
    expect(invocations.map(({ name }) => name)).toEqual(['SlackFunctionRole', 'McpFunctionRole']);
    for (const { actions, resource } of invocations) {
      expect(actions).toEqual(['lambda:InvokeFunction']);
      expect(resource).toMatch(/:function:cloud-chatops-ci-worker"/);
    }
  });

  it("lets the agents' function use items of the table alone: no index, no batch writes, no scan", () => {
    const statements = statementsOf(template.Resources.McpFunctionRole as Resource);
    const onTable = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    expect(onTable.flatMap((s) => [s.Action].flat()).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    for (const s of onTable) expect(s.Resource).toEqual({ 'Fn::GetAtt': ['ChatopsTable', 'Arn'] });
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
