import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type LocalResources,
  type PackagedTemplate,
  resolveIntrinsics,
  roleStatementsOf,
} from '../../infra/local/aws/iam.js';
import { createLocalKms } from '../../infra/local/aws/kms.js';
import { type LocalAws, type LocalFunction, startLocalAws } from '../../infra/local/aws/server.js';
import { createLocalSsm } from '../../infra/local/aws/ssm.js';
import { localDynamoDbClientConfig } from '../../infra/local/dynamodb.js';
import { type Emulator, startEmulator } from '../../infra/local/emulator/server.js';
import { type LocalLambdaServer, serveLambdas } from '../../infra/local/lambda-adapter.js';
import { type SlackStandIn, startSlackStandIn } from '../../infra/local/slack/server.js';
import { SlackWorkspace } from '../../infra/local/slack/workspace.js';
import { createTable } from '../../infra/table.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { slackSignature } from '../../lib/slack-kit/signing.js';
import { AgentGrantRepository, SLACKBOT_GRANT_ID } from '../../lib/store/agent-grants.js';
import { ApprovalPolicyRepository } from '../../lib/store/approval-policy.js';
import { createHttpTable } from '../../lib/store/http-table.js';
import { keys } from '../../lib/store/keys.js';
import { SettingsVersionRepository } from '../../lib/store/settings-versions.js';
import type { StoreContext } from '../../lib/store/store-context.js';
import { lastCardWith } from '../support/cards.js';
import { ADA, ALICE, BOB, CHANNEL } from '../support/e2e.js';
import { type LocalLambda, startLocalLambda } from './support/lambda-runtime.js';
import { packageStack } from './support/package-stack.js';

/**
 * The packaged bundles, run as Lambda runs them, with IAM enforced from the packaged template:
 * `npm run build` and `osls package` (as template.test.ts), each function's zip unpacked and run
 * in its own process over the Lambda Runtime API, with the environment its template gives it.
 * Every AWS call goes to one local endpoint, signed with the function's own access key, and is
 * checked against that function's role; DynamoDB Local, KMS and SSM stand-ins answer what is
 * allowed. A permission the code needs and the template lacks fails here.
 */

const run = promisify(execFile);
const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const STAGE = 'ci';
const FUNCTIONS = {
  slack: 'SlackLambdaFunction',
  mcp: 'McpLambdaFunction',
  worker: 'WorkerLambdaFunction',
  reporter: 'ReporterLambdaFunction',
} as const;
/** `BOT_PUBLIC_URL` as the template gives it (the HTTP API's endpoint), resolved locally. */
const PUBLIC_URL = `https://smoke.execute-api.${REGION}.amazonaws.com`;
type FunctionKey = keyof typeof FUNCTIONS;

let packageDir: string;
let template: PackagedTemplate;
let tableName: string;
let dynamo: DynamoDBClient;
let aws: LocalAws;
let emulator: Emulator;
let standIn: SlackStandIn;
let gateway: LocalLambdaServer;
let workspace: SlackWorkspace;
const lambdas = {} as Record<FunctionKey, LocalLambda>;
const byName = new Map<string, LocalLambda>();
let slackCredentials: { accessKeyId: string; secretAccessKey: string };
let signingSecret: string;

const settle = async () => {
  for (let round = 0; round < 3; round++) await Promise.all(Object.values(lambdas).map((l) => l.idle()));
};

beforeAll(async () => {
  packageDir = await packageStack(STAGE, 'chatops-smoke-');
  template = JSON.parse(
    await readFile(join(packageDir, 'cloudformation-template-update-stack.json'), 'utf8'),
  );

  tableName = `cloud-chatops-${STAGE}-ChatopsTable-${randomBytes(6).toString('hex').toUpperCase()}`;
  const keyId = randomUUID();
  const local: LocalResources = {
    region: REGION,
    accountId: ACCOUNT,
    stackName: `cloud-chatops-${STAGE}`,
    refs: { ChatopsTable: tableName, TokenKey: keyId },
    attributes: {
      'ChatopsTable.Arn': `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${tableName}`,
      'TokenKey.Arn': `arn:aws:kms:${REGION}:${ACCOUNT}:key/${keyId}`,
      'HttpApi.ApiEndpoint': PUBLIC_URL,
    },
  };
  dynamo = new DynamoDBClient(localDynamoDbClientConfig(inject('dynamoEndpoint')));
  await createTable(dynamo, tableName);

  [emulator, standIn] = await Promise.all([startEmulator({}), startSlackStandIn({})]);
  signingSecret = randomBytes(16).toString('hex');
  const ssm = createLocalSsm(REGION, ACCOUNT, {
    [`/cloud-chatops/${STAGE}/slack-signing-secret`]: signingSecret,
    [`/cloud-chatops/${STAGE}/slack-bot-token`]: standIn.botToken,
  });

  const functions: (LocalFunction & { key: FunctionKey; properties: Record<string, unknown> })[] = (
    Object.entries(FUNCTIONS) as [FunctionKey, string][]
  ).map(([key, logicalId]) => {
    const properties = template.Resources[logicalId]?.Properties ?? {};
    const roleId = (properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    return {
      key,
      properties,
      name: String(properties.FunctionName),
      roleName: roleId,
      accessKeyId: `AKIA${key.toUpperCase().padEnd(16, 'X')}`,
      secretAccessKey: randomBytes(20).toString('base64'),
      statements: roleStatementsOf(template, logicalId, local),
    };
  });
  const slackFn = functions.find((fn) => fn.key === 'slack');
  if (!slackFn) throw new Error('no Slack function in the template');
  slackCredentials = { accessKeyId: slackFn.accessKeyId, secretAccessKey: slackFn.secretAccessKey };
  aws = await startLocalAws({
    region: REGION,
    accountId: ACCOUNT,
    functions,
    dynamoEndpoint: inject('dynamoEndpoint'),
    kms: createLocalKms(REGION, ACCOUNT, [keyId]),
    ssm,
    invoke: async (name, payload) => {
      const target = byName.get(name);
      if (!target) throw new Error(`no function ${name}`);
      target.enqueue(JSON.parse(payload.toString('utf8')));
    },
  });

  for (const fn of functions) {
    const variables = resolveIntrinsics(
      (fn.properties.Environment as { Variables: Record<string, unknown> }).Variables,
      local,
    ) as Record<string, string>;
    const taskRoot = join(packageDir, fn.key);
    const artifact = (fn.properties.Code as { S3Key: unknown }).S3Key;
    const zip = join(packageDir, `${fn.key}.zip`);
    expect(String(JSON.stringify(artifact))).toContain(`${fn.key}.zip`);
    await run('unzip', ['-q', '-o', zip, '-d', taskRoot]);
    const lambda = await startLocalLambda({
      functionName: fn.name,
      functionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${fn.name}`,
      taskRoot,
      handler: String(fn.properties.Handler),
      timeoutSeconds: Number(fn.properties.Timeout ?? 6),
      memoryMb: Number(fn.properties.MemorySize ?? 128),
      environment: {
        ...variables,
        AWS_REGION: REGION,
        AWS_DEFAULT_REGION: REGION,
        AWS_ACCESS_KEY_ID: fn.accessKeyId,
        AWS_SECRET_ACCESS_KEY: fn.secretAccessKey,
        AWS_SESSION_TOKEN: `session-${fn.key}`,
        // Where the services are, for every client alike (the SDK's and the table client).
        AWS_ENDPOINT_URL: aws.url,
        // The two outside services, in place of slack.com and the cloud API.
        SLACK_API_URL: standIn.apiUrl,
        CLOUD_API_URL: emulator.url,
      },
    });
    lambdas[fn.key] = lambda;
    byName.set(fn.name, lambda);
  }

  const viaGateway = (key: FunctionKey) => async (event: unknown) =>
    (await lambdas[key].invoke(event)) as APIGatewayProxyStructuredResultV2;
  // The routes of the template (template.test.ts checks each one's function).
  gateway = await serveLambdas({
    '/slack/events': viaGateway('slack'),
    '/slack/install': viaGateway('slack'),
    '/slack/oauth_redirect': viaGateway('slack'),
    '/passkey/*': viaGateway('slack'),
    '/authenticator/*': viaGateway('slack'),
    '/mcp': viaGateway('mcp'),
    '/mcp/*': viaGateway('mcp'),
    '/.well-known/*': viaGateway('mcp'),
    '/oauth/*': viaGateway('mcp'),
  });
  workspace = new SlackWorkspace({ standIn, botUrl: `${gateway.url}/slack/events`, signingSecret });
}, 300_000);

afterAll(async () => {
  await Promise.all(Object.values(lambdas).map((l) => l.close()));
  await gateway?.close();
  await aws?.close();
  await standIn?.close();
  await emulator?.close();
  if (dynamo && tableName)
    await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  dynamo?.destroy();
  if (packageDir) await rm(packageDir, { recursive: true, force: true });
});

const textOf = (value: unknown) => JSON.stringify(value ?? '');
const denied = () => aws.calls.filter((call) => !call.allowed);
const lastMessage = (channel = CHANNEL) => standIn.store.messages(channel).at(-1);

async function userItems(team: string, user: string) {
  const doc = DynamoDBDocumentClient.from(dynamo);
  const page = await doc.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.user(team, user) },
      ConsistentRead: true,
    }),
  );
  return page.Items ?? [];
}

/**
 * An agent signed in for ALICE with CHANNEL as its home channel, as the OAuth pages leave one: the
 * grant and its tokens written straight to the table (not through a function's role), the access
 * token bound to the deployed MCP resource.
 */
async function agentAccessToken(): Promise<string> {
  return withAgentGrants(async (grants) => {
    const grant = await grants.create({
      team: standIn.store.seed.team.id,
      user: ALICE,
      clientId: 'https://agent.example.com/client.json',
      clientName: 'Smoke Agent',
      homeChannel: CHANNEL,
      scopes: ['cloud:read', 'cloud:change'],
    });
    return (await grants.issueTokens(grant, `${PUBLIC_URL}/mcp`)).accessToken;
  });
}

async function withAgentGrants<T>(use: (grants: AgentGrantRepository) => Promise<T>): Promise<T> {
  return withTable((ctx) => use(new AgentGrantRepository(ctx)));
}

/** The table as a test writes it directly, not through any function's role. */
async function withTable<T>(use: (ctx: StoreContext) => Promise<T>): Promise<T> {
  const table = createHttpTable({
    endpoint: inject('dynamoEndpoint'),
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    connectTimeoutMs: 1000,
    requestTimeoutMs: 5000,
    maxAttempts: 3,
  });
  try {
    return await use({ table, tableName, now: () => new Date() });
  } finally {
    table.destroy();
  }
}

/** Slackbot at /mcp/slack: each call signed with the app's signing secret, as Slack signs it. */
async function connectSlackbot(): Promise<Client> {
  const signed: typeof fetch = async (input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = new Headers(init?.headers);
    headers.set('x-slack-request-timestamp', String(timestamp));
    headers.set('x-slack-signature', slackSignature(signingSecret, timestamp, body));
    return fetch(input, { ...init, headers });
  };
  const client = new Client({ name: 'Slackbot', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/slack`), { fetch: signed }),
  );
  return client;
}

async function connectAgent(token: string): Promise<Client> {
  const client = new Client(
    { name: 'smoke-agent', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

const agentText = (result: { content?: unknown }) =>
  ((result.content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
const byAgents = (action: string) =>
  aws.calls.some((c) => c.caller.endsWith('-mcp') && c.action === action && c.allowed);

async function login(user: string) {
  const opened = await workspace.command(user, CHANNEL, 'login');
  expect(opened.status).toBe(200);
  const view = standIn.store
    .views()
    .filter((v) => v.user === user && !v.closed)
    .at(-1);
  if (!view) throw new Error(`no login modal for ${user}: ${textOf(opened.body)}`);
  const submitted = await workspace.submitView(user, view, {
    profile: { profile_input: 'default' },
    token: { token_input: emulator.demoToken },
  });
  await settle();
  return submitted;
}

describe('the packaged functions under their template roles', () => {
  it('answers /cloud help from the Slack bundle, its secrets read from SSM', async () => {
    const delivery = await workspace.command(ALICE, CHANNEL, 'help');
    expect(delivery.status).toBe(200);
    expect(textOf(delivery.body) + textOf(delivery.message)).toContain('/cloud');
    expect(aws.calls.some((c) => c.caller.endsWith('-slack') && c.action === 'ssm:GetParameters')).toBe(true);
    expect(denied()).toEqual([]);
  });

  it('serves the passkey page from its lazily loaded chunk: an unknown link is refused as such', async () => {
    const page = await fetch(`${gateway.url}/passkey/${'A'.repeat(43)}`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('This link is not valid.');
    const options = await fetch(`${gateway.url}/passkey/${'A'.repeat(43)}/options`, {
      method: 'POST',
      body: '{}',
    });
    expect(options.status).toBe(404);
    expect(await options.json()).toEqual({
      outcome: 'refused',
      message: 'This link is not valid. Ask for a new one in Slack.',
    });
  });

  it('stores a login as a KMS-sealed token: GenerateDataKey under the function key, no token in the item', async () => {
    const delivery = await login(ALICE);
    expect(delivery.status).toBe(200);
    const team = standIn.store.seed.team.id;
    const link = (await userItems(team, ALICE)).find((item) => String(item.sk).startsWith(keys.linkPrefix));
    expect(link?.token_ciphertext).toMatchObject({ v: 1, alg: 'AES-256-GCM' });
    expect(link?.token_ciphertext.edk).toEqual(expect.any(String));
    expect(JSON.stringify(link)).not.toContain(emulator.demoToken);
    expect(aws.calls.some((c) => c.action === 'kms:GenerateDataKey' && c.allowed)).toBe(true);
    expect(denied()).toEqual([]);
  });

  it('lists volumes with the linked token (KMS Decrypt), inline or through the worker', async () => {
    emulator.control.createVolume({ label: 'smoke-listed' });
    await workspace.command(ALICE, CHANNEL, 'volumes list');
    await settle();
    const seen = standIn.store.messages(CHANNEL, { seenBy: ALICE });
    expect(textOf(seen)).toContain('smoke-listed');
    expect(aws.calls.some((c) => c.action === 'kms:Decrypt' && c.allowed)).toBe(true);
    expect(denied()).toEqual([]);
  });

  it('runs an approved deletion in the worker, invoked by the Slack function', async () => {
    await login(BOB);
    const volume = emulator.control.createVolume({ label: 'smoke-doomed' });
    await workspace.command(ALICE, CHANNEL, `volumes delete ${volume.id}`);
    await settle();
    const card = lastCardWith(standIn.store, CHANNEL, ActionId.approve);
    if (!card) throw new Error(`no approval card: ${textOf(lastMessage())}`);
    const clicked = await workspace.click(BOB, card, { actionId: ActionId.approve });
    expect(clicked.status).toBe(200);
    await settle();
    expect(emulator.control.volumeExists(volume.id)).toBe(false);
    expect(aws.calls.some((c) => c.caller.endsWith('-slack') && c.action === 'lambda:InvokeFunction')).toBe(
      true,
    );
    expect(aws.calls.some((c) => c.caller.endsWith('-worker') && c.action.startsWith('dynamodb:'))).toBe(
      true,
    );
    expect(lambdas.worker.failures).toEqual([]);
    expect(denied()).toEqual([]);
  });

  it('applies an imported settings document once another admin approves it, under the roles', async () => {
    const team = standIn.store.seed.team.id;
    // Alice is an admin the policy names; Ada is the workspace's Slack admin, who asks.
    await withTable((ctx) => new ApprovalPolicyRepository(ctx).put(team, { admins: [ALICE] }, ADA));
    await workspace.command(ADA, CHANNEL, 'settings export');
    await settle();
    const exported = standIn.store
      .files()
      .filter((f) => f.name.startsWith('settings-'))
      .at(-1)
      ?.bytes?.toString('utf8');
    if (!exported) throw new Error(`no settings file sent to Ada: ${textOf(lastMessage())}`);
    const minutes = Number(/expiryMinutes: (\d+)/.exec(exported)?.[1]);
    expect(minutes).toBeGreaterThan(0);

    await workspace.command(ADA, CHANNEL, 'settings import');
    const form = standIn.store
      .views()
      .filter((v) => v.user === ADA && !v.closed)
      .at(-1);
    if (!form) throw new Error('no import form opened for Ada');
    const edited = exported.replace(/expiryMinutes: \d+/, `expiryMinutes: ${minutes + 5}`);
    const submitted = await workspace.submitView(ADA, form, { document: { document_input: edited } });
    await settle();
    expect(submitted.body).toBe('');
    const card = standIn.store
      .messages(CHANNEL)
      .filter((m) => !m.thread_ts && textOf(m.blocks).includes('expiryMinutes'))
      .at(-1);
    if (!card) throw new Error(`no approval card for the settings: ${textOf(lastMessage())}`);
    const clicked = await workspace.click(ALICE, card, { actionId: ActionId.approve });
    expect(clicked.status).toBe(200);
    await settle();

    const [policy, version] = await withTable((ctx) =>
      Promise.all([
        new ApprovalPolicyRepository(ctx).get(team),
        new SettingsVersionRepository(ctx).headVersion(team),
      ]),
    );
    expect(policy.expiryMinutes).toBe(minutes + 5);
    // Version 1 keeps the settings the commands made before, for a rollback; 2 is the document.
    expect(version).toBe(2);
    expect(lambdas.slack.failures).toEqual([]);
    expect(lambdas.worker.failures).toEqual([]);
    expect(denied()).toEqual([]);
  });

  it('posts a due report from the reporter, run by its schedule event', async () => {
    const added = await workspace.command(ALICE, CHANNEL, 'reports add issues --every 1h');
    expect(added.status).toBe(200);
    await settle();
    const before = standIn.store.messages(CHANNEL).length;
    await lambdas.reporter.invoke({
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: ACCOUNT,
      time: new Date().toISOString(),
      region: REGION,
      resources: [],
      detail: {},
    });
    expect(standIn.store.messages(CHANNEL).length).toBeGreaterThan(before);
    expect(aws.calls.some((c) => c.caller.endsWith('-reporter') && c.allowed)).toBe(true);
    expect(denied()).toEqual([]);
  });

  it("answers an agent without a token from the agents' bundle: 401, the challenge naming the resource metadata", async () => {
    const response = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp"`);
    expect(lambdas.mcp.failures).toEqual([]);
  });

  it('answers GET /mcp with 405: the stateless endpoint opens no stream', async () => {
    const response = await fetch(`${gateway.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it("runs an agent's read with the person's KMS-sealed token, under the agents' role", async () => {
    const volume = emulator.control.createVolume({ label: 'smoke-agent-read' });
    const agent = await connectAgent(await agentAccessToken());
    try {
      const { tools } = await agent.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['read', 'request_destructive_change']),
      );
      const result = await agent.callTool({
        name: 'read',
        arguments: { operation: 'volumes.view', arguments: { volumeId: volume.id } },
      });
      expect(result.isError).toBeFalsy();
      expect(agentText(result)).toContain('smoke-agent-read');
    } finally {
      await agent.close();
    }
    expect(byAgents('ssm:GetParameters')).toBe(true);
    expect(byAgents('dynamodb:BatchGetItem')).toBe(true);
    expect(byAgents('kms:Decrypt')).toBe(true);
    expect(denied()).toEqual([]);
  });

  it("turns an agent's deletion into an approval card; another person approves it in Slack and the worker runs it", async () => {
    const volume = emulator.control.createVolume({ label: 'smoke-agent-doomed' });
    const agent = await connectAgent(await agentAccessToken());
    try {
      const asked = await agent.callTool({
        name: 'request_destructive_change',
        arguments: { operation: 'volumes.delete', arguments: { volumeId: volume.id }, reason: 'smoke' },
      });
      expect(asked.isError, agentText(asked)).toBeFalsy();
      expect(asked.structuredContent).toMatchObject({ state: 'waiting_for_approval' });
      await settle();
      const card = lastCardWith(standIn.store, CHANNEL, ActionId.approve);
      if (!card) throw new Error(`no approval card: ${textOf(lastMessage())}`);
      expect(textOf(card.blocks)).toContain('Smoke Agent');
      expect((await workspace.click(BOB, card, { actionId: ActionId.approve })).status).toBe(200);
      await settle();
      expect(emulator.control.volumeExists(volume.id)).toBe(false);
    } finally {
      await agent.close();
    }
    // The request's input is sealed under the key; the worker republishes the Homes it shows on.
    expect(byAgents('kms:GenerateDataKey')).toBe(true);
    expect(byAgents('lambda:InvokeFunction')).toBe(true);
    expect(lambdas.worker.failures).toEqual([]);
    expect(denied()).toEqual([]);
  });

  it("serves Slackbot's signed call at /mcp/slack, the signing secret read from SSM: a read for the person it names", async () => {
    const team = standIn.store.seed.team.id;
    await withAgentGrants((grants) =>
      grants.create({
        id: SLACKBOT_GRANT_ID,
        team,
        user: ALICE,
        clientId: 'slackbot',
        clientName: 'Slackbot',
        homeChannel: CHANNEL,
        scopes: ['cloud:read'],
      }),
    );
    const volume = emulator.control.createVolume({ label: 'smoke-slackbot-read' });
    const slackbot = await connectSlackbot();
    try {
      const result = await slackbot.callTool({
        name: 'read',
        arguments: { operation: 'volumes.view', arguments: { volumeId: volume.id } },
        _meta: { slack: { user_id: ALICE, team_id: team } },
      });
      expect(result.isError, agentText(result)).toBeFalsy();
      expect(agentText(result)).toContain('smoke-slackbot-read');
    } finally {
      await slackbot.close();
    }
    expect(denied()).toEqual([]);
  });

  it('deletes every linked token of the workspace on uninstall, and writes the audit line', async () => {
    const team = standIn.store.seed.team.id;
    expect((await userItems(team, ALICE)).length).toBeGreaterThan(0);
    expect((await userItems(team, BOB)).length).toBeGreaterThan(0);
    const delivery = await workspace.uninstall('Ev0SMOKEUNINSTALL');
    expect(delivery.status).toBe(200);
    expect(await userItems(team, ALICE)).toEqual([]);
    expect(await userItems(team, BOB)).toEqual([]);
    const doc = DynamoDBDocumentClient.from(dynamo);
    const audit = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
        ExpressionAttributeValues: { ':pk': keys.team(team), ':audit': keys.auditPrefix },
      }),
    );
    expect((audit.Items ?? []).filter((item) => item.action === 'app.uninstalled')).toHaveLength(1);
    expect(aws.calls.some((c) => c.caller.endsWith('-slack') && c.action === 'dynamodb:BatchWriteItem')).toBe(
      true,
    );
    expect(denied()).toEqual([]);
  });

  it('refuses what the role does not grant, as AWS does: a Scan signed with the Slack function key', async () => {
    const open = (secretAccessKey: string) =>
      createHttpTable({
        endpoint: aws.url,
        region: REGION,
        credentials: { ...slackCredentials, secretAccessKey },
        connectTimeoutMs: 1000,
        requestTimeoutMs: 2000,
        maxAttempts: 1,
      });
    const signed = open(slackCredentials.secretAccessKey);
    const forged = open('not-the-secret');
    try {
      await expect(signed.scan({ TableName: tableName })).rejects.toMatchObject({
        name: 'AccessDeniedException',
        message: expect.stringContaining('is not authorized to perform: dynamodb:Scan'),
      });
      await expect(forged.get({ TableName: tableName, Key: { pk: 'A', sk: 'B' } })).rejects.toMatchObject({
        name: 'InvalidSignatureException',
      });
    } finally {
      signed.destroy();
      forged.destroy();
    }
  });
});
