import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { SLACK_RULES } from '../../infra/local/slack/rules.js';
import {
  callSlackbotTool,
  listSlackbotTools,
  SlackbotCallError,
  type SlackbotOptions,
  slackbotBlocks,
} from '../../infra/local/slack/slackbot.js';
import { slackSignature } from '../../lib/slack-kit/signing.js';

/**
 * The `slackbot-mcp-client` rule of `infra/local/slack/rules.ts`, tested on the stand-in's
 * Slackbot by itself, against a small MCP server built with the SDK that records every request as
 * it arrived. The bot's side of the same calls: `test/e2e/agents-slackbot.test.ts`.
 */

const SECRET = 'slackbot-rule-test-secret-0123456789';
const NOW = 1_900_000_000;
const ALICE = { team: 'T0LOCAL', user: 'U0ALICE' };

interface Received {
  readonly method: string;
  readonly body: string;
  readonly headers: Headers;
}

let received: Received[] = [];
let server: Server;
let base: string;

function mcpServer(): McpServer {
  const mcp = new McpServer({ name: 'rule-test', version: '1.0.0' });
  mcp.registerTool(
    'show',
    {
      description: 'Answers with the blocks it is given.',
      inputSchema: z.object({ blocks: z.array(z.unknown()).optional() }),
      annotations: { readOnlyHint: true },
    },
    async ({ blocks }) => ({
      content: [
        { type: 'text', text: 'first line' },
        { type: 'text', text: 'second line' },
      ],
      ...(blocks ? { _meta: { slack: { blocks } } } : {}),
    }),
  );
  mcp.registerTool('unannotated', { description: 'Says nothing of what it does.' }, async () => ({
    content: [{ type: 'text', text: 'done' }],
  }));
  return mcp;
}

beforeAll(async () => {
  const mcp = createMcpHandler(() => mcpServer(), { responseMode: 'json', keepAliveMs: 0 });
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    received.push({ method: request.method ?? '', body, headers });
    if (request.url === '/refuse') {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: `no, not with ${SECRET}` },
        }),
      );
      return;
    }
    const answer = await mcp.fetch(
      new Request(`${base}${request.url}`, {
        method: request.method ?? 'GET',
        headers,
        ...(request.method === 'POST' ? { body } : {}),
      }),
    );
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(await answer.text());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
});

const slackbot = (path = '/mcp/slack'): SlackbotOptions => ({
  url: `${base}${path}`,
  signingSecret: SECRET,
  nowSeconds: () => NOW,
});

const posted = () =>
  received
    .filter((request) => request.method === 'POST')
    .map((request) => ({ ...request, message: JSON.parse(request.body) as Record<string, unknown> }));

async function failureOf(call: Promise<unknown>): Promise<SlackbotCallError> {
  const error = await call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SlackbotCallError);
  return error as SlackbotCallError;
}

describe('slackbot-mcp-client', () => {
  it('is a rule of the stand-in with its sources', () => {
    const rule = SLACK_RULES.find((row) => row.id === 'slackbot-mcp-client');
    expect(rule?.source).toContain('https://docs.slack.dev/ai/slackbot-mcp-client');
  });

  it('opens each question with initialize, declaring its Block Kit extension, before asking', async () => {
    await listSlackbotTools(slackbot(), ALICE);
    const methods = posted().map((request) => request.message.method);
    expect(methods).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    expect(posted()[0]?.message).toMatchObject({
      params: {
        capabilities: {
          extensions: { 'io.slack/block-kit': { mimeTypes: ['application/vnd.slack.blocks+json'] } },
        },
      },
    });
  });

  it('signs every request with the signing secret over its raw body, as Slack signs events', async () => {
    await callSlackbotTool(slackbot(), ALICE, 'show', {});
    expect(posted().length).toBeGreaterThanOrEqual(3);
    for (const request of posted()) {
      expect(request.headers.get('x-slack-request-timestamp')).toBe(String(NOW));
      expect(request.headers.get('x-slack-signature')).toBe(slackSignature(SECRET, NOW, request.body));
    }
  });

  it('names the person in params._meta.slack when it lists tools and when it calls one', async () => {
    await listSlackbotTools(slackbot(), ALICE);
    await callSlackbotTool(slackbot(), ALICE, 'show', {});
    const asking = posted().filter((request) => String(request.message.method).startsWith('tools/'));
    expect(asking.map((request) => request.message.method)).toEqual(['tools/list', 'tools/call']);
    for (const request of asking) {
      expect(request.message).toMatchObject({
        params: { _meta: { slack: { user_id: 'U0ALICE', team_id: 'T0LOCAL' } } },
      });
    }
  });

  it('counts a tool without readOnlyHint as a write, and as destructive', async () => {
    const tools = await listSlackbotTools(slackbot(), ALICE);
    expect(tools.find((tool) => tool.name === 'unannotated')).toMatchObject({
      readOnly: false,
      destructive: true,
    });
    expect(tools.find((tool) => tool.name === 'show')).toMatchObject({ readOnly: true, destructive: false });
  });

  it('answers with the text blocks one after another, and the blocks when it draws every one', async () => {
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'Volumes' } },
      { type: 'section', text: { type: 'mrkdwn', text: '*one*' } },
    ];
    const answer = await callSlackbotTool(slackbot(), ALICE, 'show', { blocks });
    expect(answer).toEqual({ isError: false, text: 'first line\nsecond line', blocks });
  });

  it('draws no block when one is of a kind it does not draw, and says which', async () => {
    const answer = await callSlackbotTool(slackbot(), ALICE, 'show', {
      blocks: [{ type: 'section', text: { type: 'plain_text', text: 'kept?' } }, { type: 'call' }],
    });
    expect(answer.blocks).toEqual([]);
    expect(answer.blocksDropped).toContain('a call block');
    expect(answer.text).toBe('first line\nsecond line');
  });

  it('draws no block past 50 blocks, or past 2 data_visualization', () => {
    const section = { type: 'section', text: { type: 'plain_text', text: 'x' } };
    expect(slackbotBlocks({ blocks: Array.from({ length: 50 }, () => section) }).blocks).toHaveLength(50);
    expect(slackbotBlocks({ blocks: Array.from({ length: 51 }, () => section) })).toMatchObject({
      blocks: [],
      dropped: '51 blocks, more than 50',
    });
    const chart = { type: 'data_visualization' };
    expect(slackbotBlocks({ blocks: [chart, chart] }).blocks).toHaveLength(2);
    expect(slackbotBlocks({ blocks: [chart, chart, chart] }).blocks).toEqual([]);
  });

  it('says in words why the app refused a request, never repeating the signing secret', async () => {
    const error = await failureOf(listSlackbotTools(slackbot('/refuse'), ALICE));
    expect(error.message).toBe(
      "The bot refused Slackbot's request (HTTP 401): no, not with [signing secret]",
    );
  });

  it('says the app did not answer when nothing listens at its URL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failureOf(
      listSlackbotTools({ url: `http://127.0.0.1:${port}/mcp/slack`, signingSecret: SECRET }, ALICE),
    );
    expect(error.message).toContain('The bot did not answer (ECONNREFUSED)');
  });
});
