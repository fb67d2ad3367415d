import {
  type CallToolResult,
  type McpServer,
  requireScopes,
  type ScopeChallengeHandler,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { loadOperationAhead } from '../api/operations/by-group.js';
import { CATALOG_OPERATIONS } from '../commands/catalog.generated.js';
import type { Afterwards } from '../core/agent-calls.js';
import { type AgentOperationKind, agentKindOf, operationsFor } from '../core/agent-operations.js';
import type { Caller } from '../core/caller.js';
import type { AgentScope } from '../store/agent-grants.js';
import { loadAhead, type Store } from '../store/index.js';
import { callerKeys, type ReadAhead } from '../store/read-ahead.js';
import type { AgentToolDeps } from './tool-deps.js';
import { toolInput } from './tool-inputs.js';
import '../zod-settings.js';

/**
 * The agent's tools. Not one tool per operation: 149 operations with their input schemas are about
 * 76 KB of `tools/list`, which floods an agent's context before it has done anything. Instead five
 * tools, listed only where they can do something for this person in this home channel:
 * - `find_operations` searches the operations the person may run here and answers each with its
 *   name, kind and input schema, generated from the operations table as help is;
 * - `read` runs a read with the person's own token (`readOnlyHint`);
 * - `request_change` and `request_destructive_change` post the approval card in the home channel
 *   and answer at once with the request's id and state; the second is the only tool marked
 *   destructive, and takes only what the table marks destructive;
 * - `get_request` follows a request to its end.
 * The agent can never approve, deny, cancel or break glass: no tool does.
 */

/**
 * Who calls, and what their grant lets the agent do; or a Slackbot whose person has not let it act
 * for them (every tool then says how).
 */
export type AgentSession =
  | {
      readonly caller: Caller;
      readonly scopes: readonly AgentScope[];
      /** Slackbot draws Block Kit beside the text (MCP-FACTS §4). */
      readonly slackbot: boolean;
      /** The caller's items (`callerKeys`), when they were asked for with the grant. */
      readonly callerRead?: ReadAhead | undefined;
      /** Takes writes that finish beside the answer (a read's audit entry); the answer waits for them. */
      readonly afterwards?: Afterwards | undefined;
    }
  | { readonly stranger: true };

/** What a Slackbot that may not act for its person answers, whatever it was asked. */
const NOT_ALLOWED_TEXT =
  'Slackbot cannot act for you in Cloud ChatOps yet. Run `/cloud agents slackbot` in the channel where ' +
  'its changes should be approved (your ops channel); reads then use your linked API token, and changes ' +
  'wait for approval there. `/cloud agents` lists and revokes it.';

// What the tools answer, loaded on the first call rather than with `tools/list`: the read path (the
// API client, the person's token, the audit), and apart from it the change path (the approval
// card, its preview and the Slack client).
const toolAnswers = () => import('./read-path.js');
const changeAnswers = () => import('./change-answers.js');

/**
 * Starts loading what a call of the tool `name` (the request's `Mcp-Name`) answers with, without
 * waiting: the MCP endpoint overlaps it with checking the caller's token. That is the answers'
 * module and the repositories the call reads or writes (for a read or a change, the person's token
 * with its cipher, the channel's policy and the audit; for a change or `get_request`, the
 * requests), and the rows of the operation the call names in `body`. A failed load surfaces where
 * the module is awaited, not here.
 */
export function preloadToolAnswers(store: Store, name: string | undefined, body: string | undefined): void {
  const change = name === 'request_change' || name === 'request_destructive_change';
  (change ? changeAnswers : toolAnswers)().catch(() => undefined);
  if (change || name === 'read') {
    for (const repository of [store.tokenLinks, store.channelPolicy, store.audit]) loadAhead(repository);
    const operation = calledOperation(body);
    if (operation) loadOperationAhead(operation);
  }
  if (change || name === 'get_request') loadAhead(store.approvals);
}

/** Bodies past this are not looked into before the token is checked. */
const PEEK_BYTES = 16_384;

/**
 * The operation a `tools/call` body names (`params.arguments.operation`), looked at before anyone
 * is authenticated only to know which rows to load: never trusted, never more than a short string.
 * The SDK parses and checks the body itself afterwards.
 */
export function calledOperation(body: string | undefined): string | undefined {
  if (body === undefined || body.length > PEEK_BYTES) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  const params = ownField(message, 'params');
  const operation = ownField(ownField(params, 'arguments'), 'operation');
  return typeof operation === 'string' && operation.length <= 100 ? operation : undefined;
}

function ownField(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, name)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

const CHANGE_SCOPES: readonly [string, ...string[]] = ['cloud:read', 'cloud:change'];

/** The registered tools for one request, fitted to the person and the home channel. */
export async function registerAgentTools(
  server: McpServer,
  deps: AgentToolDeps,
  session: AgentSession,
): Promise<void> {
  if ('stranger' in session) {
    registerStrangerTools(server);
    return;
  }
  const { caller } = session;
  // The caller's items, read once for the request: the fit below, and a call's guard and token.
  const callerRead =
    session.callerRead ?? deps.store.readAhead(callerKeys(caller.team, caller.user, caller.channel));
  // The generated catalog, not the operations table: the fit needs each operation's scopes, class,
  // method and whether it is destructive, and building the table's rows with their schemas was the
  // biggest part of what a cold `tools/list` loaded beyond the MCP server itself.
  const allowed = await operationsFor(deps, caller, CATALOG_OPERATIONS, callerRead);
  const kinds = new Set(allowed.map(agentKindOf));
  const { slackbot } = session;
  const slackMeta = session.slackbot ? { _meta: { slack: { supportsBlockKit: true } } } : {};

  server.registerTool(
    'find_operations',
    {
      title: 'Find cloud operations',
      description:
        `Search the cloud API operations you may use from this agent (home channel ${caller.channel}). ` +
        'Answers each with its name, kind (read, change, destructive), summary and input_schema. Reads run ' +
        'with `read`; changes are asked for with `request_change` or `request_destructive_change` and wait ' +
        'for people to approve them in Slack.',
      inputSchema: toolInput('find_operations'),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (find) => (await toolAnswers()).findOperationsAnswer(allowed, find),
  );

  if (kinds.has('read')) {
    server.registerTool(
      'read',
      {
        title: 'Read from the cloud API',
        description:
          "Runs a read operation (kind read in find_operations) with the person's own API token. Lists " +
          'answer one page; pass page for the next.',
        inputSchema: toolInput('read'),
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      async (call) =>
        (await toolAnswers()).readAnswer(deps, caller, call, { callerRead, afterwards: session.afterwards }),
    );
  }

  const changeTool = (name: string, kind: Exclude<AgentOperationKind, 'read'>, description: string) =>
    server.registerTool(
      name,
      {
        title: kind === 'destructive' ? 'Ask for a destructive change' : 'Ask for a change',
        description,
        inputSchema: toolInput('change'),
        annotations: {
          readOnlyHint: false,
          destructiveHint: kind === 'destructive',
          idempotentHint: false,
          openWorldHint: true,
        },
        scopeChallenge: needsScopes(CHANGE_SCOPES),
        ...slackMeta,
      },
      async (change) =>
        (await changeAnswers()).changeAnswer(deps, caller, change, kind, slackbot, callerRead),
    );

  if (kinds.has('change')) {
    changeTool(
      'request_change',
      'change',
      `Asks for a change (kind change in find_operations). It does not run now: an approval card goes to ` +
        `Slack channel ${caller.channel} naming you and the person you act for, and the change runs once people ` +
        'approve it there. Answers at once with the request id; follow it with get_request.',
    );
  }
  if (kinds.has('destructive')) {
    changeTool(
      'request_destructive_change',
      'destructive',
      'Asks for a destructive change (kind destructive in find_operations: deletes, restores, rebuilds). ' +
        `Nothing runs until people approve the card posted in Slack channel ${caller.channel}. Answers at once with ` +
        'the request id; follow it with get_request.',
    );
  }

  server.registerTool(
    'get_request',
    {
      title: 'Follow a change request',
      description:
        'Where a change you asked for stands: waiting_for_approval (with approvals so far), approved, ' +
        'running, done, failed, in_doubt (sent, outcome being checked), unknown, not_run, denied, expired ' +
        'or cancelled. Requests expire unless approved in time (decide_by).',
      inputSchema: toolInput('get_request'),
      annotations: { readOnlyHint: true, openWorldHint: false },
      ...slackMeta,
    },
    async ({ request_id }) => (await toolAnswers()).requestAnswer(deps, caller, request_id, slackbot),
  );
}

/** The same tools, each answering how to let Slackbot act for the person. */
function registerStrangerTools(server: McpServer): void {
  const answer = async (): Promise<CallToolResult> => ({
    content: [{ type: 'text', text: NOT_ALLOWED_TEXT }],
    isError: true,
    _meta: { slack: { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: NOT_ALLOWED_TEXT } }] } },
  });
  const open = z.object({}).passthrough();
  for (const [name, readOnlyHint, destructiveHint] of [
    ['find_operations', true, false],
    ['read', true, false],
    ['request_change', false, false],
    ['request_destructive_change', false, true],
    ['get_request', true, false],
  ] as const) {
    server.registerTool(
      name,
      {
        description: NOT_ALLOWED_TEXT,
        inputSchema: open,
        annotations: { readOnlyHint, ...(readOnlyHint ? {} : { destructiveHint }) },
        _meta: { slack: { supportsBlockKit: true } },
      },
      answer,
    );
  }
}

/** The SDK's `requireScopes`, with words for the person whose agent asked. */
function needsScopes(scopes: readonly [string, ...string[]]): ScopeChallengeHandler {
  const required = requireScopes(...scopes);
  return async (context) => {
    const challenge = await required(context);
    return (
      challenge && { ...challenge, errorDescription: 'Asking for changes needs the cloud:change scope.' }
    );
  };
}
