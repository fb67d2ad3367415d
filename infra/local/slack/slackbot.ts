import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { slackSignature } from '../../../lib/slack-kit/signing.js';

/**
 * Slackbot as an MCP client of the app, as Slack runs it for a person who asks it something in
 * their Slackbot DM (rule `slackbot-mcp-client` in `rules.ts`): the app's MCP server is registered
 * with `auth_type: slack_identity_auth`, so every request is signed with the app's signing secret
 * exactly as Slack signs events, and names the person in `params._meta.slack`; the connection
 * opens with the 2025-era `initialize`, over Streamable HTTP; a tool's `_meta.slack.blocks` are
 * drawn beside its text only when Slackbot can draw every one of them. The signing secret stays
 * on Slack's side: nothing here hands it out.
 */

const BLOCK_KIT_MIME_TYPE = 'application/vnd.slack.blocks+json';
/** Slackbot aborts a tool call that has not answered in 60 s (MCP-FACTS.md §4). */
export const SLACKBOT_DEADLINE_MS = 60_000;
/** MCP-FACTS.md §4: the blocks Slackbot draws; "anything else drops all blocks". */
export const SLACKBOT_BLOCK_TYPES: ReadonlySet<string> = new Set([
  'context',
  'divider',
  'header',
  'markdown',
  'rich_text',
  'section',
  'file',
  'image',
  'video',
  'actions',
  'carousel',
  'input',
  'data_table',
  'data_visualization',
  'table',
  'card',
  'container',
]);
/** MCP-FACTS.md §4: at most 50 blocks, at most 2 of them `data_visualization`. */
export const SLACKBOT_MAX_BLOCKS = 50;
export const SLACKBOT_MAX_CHARTS = 2;

export interface SlackbotOptions {
  /** The app's MCP server for Slackbot (`mcp_servers.<name>.url` in its manifest): the bot's `/mcp/slack`. */
  readonly url: string;
  /** The app's signing secret, which Slack signs Slackbot's requests with. */
  readonly signingSecret: string;
  /** Epoch seconds for the signature's timestamp. */
  readonly nowSeconds?: () => number;
}

/** Who asks Slackbot: Slack names them in every request (`params._meta.slack`). */
export interface SlackbotPerson {
  readonly team: string;
  readonly user: string;
}

/** A tool as Slackbot lists it for the person. */
export interface SlackbotTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** `readOnlyHint` (default false: Slackbot counts a tool without it as a write). */
  readonly readOnly: boolean;
  /** `destructiveHint` on a tool that is not read-only (default true, MCP-FACTS.md §1.5). */
  readonly destructive: boolean;
  /** The tool's JSON Schema for its arguments, as the server sent it. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** What a tool answered, as Slackbot shows it. */
export interface SlackbotAnswer {
  readonly isError: boolean;
  /** The result's text blocks, one after another. */
  readonly text: string;
  /** `_meta.slack.blocks`, when Slackbot draws them; empty otherwise. */
  readonly blocks: readonly unknown[];
  /** Why Slackbot draws no blocks although the tool gave some. */
  readonly blocksDropped?: string;
}

/** Slackbot could not get an answer: the bot refused the request, or did not answer. */
export class SlackbotCallError extends Error {
  override readonly name = 'SlackbotCallError';
}

export async function listSlackbotTools(
  options: SlackbotOptions,
  person: SlackbotPerson,
): Promise<SlackbotTool[]> {
  return withSlackbot(options, async (client) => {
    const { tools } = await client.listTools({ _meta: slackMeta(person) }, { timeout: SLACKBOT_DEADLINE_MS });
    return tools.map((tool) => {
      const readOnly = tool.annotations?.readOnlyHint ?? false;
      return {
        name: tool.name,
        ...(tool.title === undefined ? {} : { title: tool.title }),
        description: tool.description ?? '',
        readOnly,
        destructive: !readOnly && (tool.annotations?.destructiveHint ?? true),
        inputSchema: tool.inputSchema,
      };
    });
  });
}

export async function callSlackbotTool(
  options: SlackbotOptions,
  person: SlackbotPerson,
  name: string,
  args: Readonly<Record<string, unknown>>,
): Promise<SlackbotAnswer> {
  return withSlackbot(options, async (client) => {
    const result = await client.callTool(
      { name, arguments: { ...args }, _meta: slackMeta(person) },
      { timeout: SLACKBOT_DEADLINE_MS },
    );
    const content = Array.isArray(result.content) ? result.content : [];
    const text = content
      .flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []))
      .join('\n');
    const drawn = slackbotBlocks(result._meta?.slack);
    return {
      isError: result.isError === true,
      text,
      blocks: drawn.blocks,
      ...(drawn.dropped === undefined ? {} : { blocksDropped: drawn.dropped }),
    };
  });
}

/** The blocks of a result's `_meta.slack` that Slackbot draws: all of them, or none and why. */
export function slackbotBlocks(slack: unknown): { blocks: readonly unknown[]; dropped?: string } {
  const blocks = (slack as { blocks?: unknown } | undefined)?.blocks;
  if (blocks === undefined) return { blocks: [] };
  if (!Array.isArray(blocks)) return { blocks: [], dropped: '_meta.slack.blocks is not a list of blocks' };
  if (blocks.length > SLACKBOT_MAX_BLOCKS)
    return { blocks: [], dropped: `${blocks.length} blocks, more than ${SLACKBOT_MAX_BLOCKS}` };
  const types = blocks.map((block) => (block as { type?: unknown } | null)?.type);
  const other = types.find((type) => typeof type !== 'string' || !SLACKBOT_BLOCK_TYPES.has(type));
  if (types.length > 0 && other !== undefined)
    return { blocks: [], dropped: `a ${String(other)} block, which Slackbot does not draw` };
  const charts = types.filter((type) => type === 'data_visualization').length;
  if (charts > SLACKBOT_MAX_CHARTS)
    return { blocks: [], dropped: `${charts} data_visualization blocks, more than ${SLACKBOT_MAX_CHARTS}` };
  return { blocks };
}

function slackMeta(person: SlackbotPerson) {
  return { slack: { user_id: person.user, team_id: person.team } };
}

/** One connection per question, as the endpoint is stateless: `initialize`, the work, then close. */
async function withSlackbot<T>(options: SlackbotOptions, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client(
    { name: 'Slackbot', version: '1.0.0' },
    // Slackbot declares its Block Kit extension in `initialize` ("Returning rich responses").
    { capabilities: { extensions: { 'io.slack/block-kit': { mimeTypes: [BLOCK_KIT_MIME_TYPE] } } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(options.url), {
    fetch: slackSigned(options),
  });
  try {
    await client.connect(transport, { timeout: SLACKBOT_DEADLINE_MS });
    return await work(client);
  } catch (error) {
    throw new SlackbotCallError(failureOf(error, options.signingSecret), { cause: error });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** A fetch that signs what it sends as Slack signs a request: `v0:{timestamp}:{raw body}`. */
function slackSigned(options: SlackbotOptions): typeof fetch {
  const nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  return async (input, init) => {
    if (init?.body !== undefined && init.body !== null && typeof init.body !== 'string')
      throw new Error('Slackbot sends JSON text only.');
    const body = init?.body ?? '';
    const timestamp = nowSeconds();
    const headers = new Headers(init?.headers);
    headers.set('x-slack-request-timestamp', String(timestamp));
    headers.set('x-slack-signature', slackSignature(options.signingSecret, timestamp, body));
    return fetch(input, { ...init, headers });
  };
}

/** Why the call failed, in words without a stack, and never with the secret in them. */
function failureOf(error: unknown, secret: string): string {
  const words = describe(error);
  return secret === '' ? words : words.replaceAll(secret, '[signing secret]');
}

function describe(error: unknown): string {
  if (error instanceof SdkHttpError) {
    const said = jsonRpcMessage(error.message);
    return `The bot refused Slackbot's request (HTTP ${error.status})${said ? `: ${said}` : '.'}`;
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    return `The bot did not answer within ${SLACKBOT_DEADLINE_MS / 1000} s, when Slackbot gives up.`;
  if (error instanceof ProtocolError)
    return `The bot answered with an error (${error.code}): ${error.message}`;
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  if (typeof cause === 'string')
    return `The bot did not answer (${cause}). Is the local stack still running?`;
  return `Slackbot's request failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300);
}

/** The JSON-RPC error's message in the body the SDK quotes (`Error POSTing to endpoint: {…}`). */
function jsonRpcMessage(message: string): string | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const body = JSON.parse(message.slice(start)) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? body.error.message.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}
