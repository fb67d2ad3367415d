import type { CallToolResult, McpServer, ScopeChallengeHandler } from '@modelcontextprotocol/server';
import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import { isApiError } from '../api/errors.js';
import type { AnyOperation } from '../api/operation.js';
import { operations } from '../api/operations/index.js';
import { isOutcomeInDoubt } from '../api/outcome.js';
import { jsonSchemaOf } from '../commands/field-shapes.js';
import {
  type AgentChangeOutcome,
  type AgentOperationKind,
  type AgentReadOutcome,
  type AgentRefusal,
  agentChange,
  agentKindOf,
  agentRead,
  agentRequestStatus,
  operationsFor,
  requestView,
} from '../core/agent-calls.js';
import type { Caller } from '../core/caller.js';
import type { OperationDeps } from '../core/operations.js';
import { slackApprovalSurface } from '../slack/approval-surface.js';
import { previewTarget } from '../slack/preview.js';
import { inSlackTeam } from '../slack-kit/web-client.js';
import type { AgentScope } from '../store/agent-grants.js';
import type { Handoff } from '../worker/handoff.js';
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

export interface AgentToolDeps extends OperationDeps {
  /** The bot's Slack client (per team through `inSlackTeam`), to post and update cards. */
  readonly slack: WebClient;
  /** Where Homes are republished from (the worker); without it the surface publishes them itself. */
  readonly handoff?: Handoff;
}

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
    }
  | { readonly stranger: true };

/** What a Slackbot that may not act for its person answers, whatever it was asked. */
const NOT_ALLOWED_TEXT =
  'Slackbot cannot act for you in Cloud ChatOps yet. Run `/cloud agents slackbot` in the channel where ' +
  'its changes should be approved (your ops channel); reads then use your linked API token, and changes ' +
  'wait for approval there. `/cloud agents` lists and revokes it.';

/** A read is abandoned well before API Gateway's 30 s, so the agent hears why instead of a 504. */
const READ_BUDGET_MS = 20_000;
/** Results longer than this are cut (a model reads them whole); lists say how to page instead. */
const RESULT_TEXT_LIMIT = 60_000;
const FIND_LIMIT_MAX = 20;

const OperationName = z
  .string()
  .max(100)
  .describe('An operation name from find_operations, e.g. "volumes.list".');
const Arguments = z
  .record(z.string().max(100), z.unknown())
  .optional()
  .describe("The operation's arguments, as its input_schema from find_operations says.");

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
  const allowed = await operationsFor(deps, caller, operations);
  const kinds = new Set(allowed.map(agentKindOf));
  const blocks = session.slackbot ? withBlocks : (result: CallToolResult) => result;
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
      inputSchema: z.object({
        query: z.string().max(200).describe('Words to look for, e.g. "attach volume" or "database backups".'),
        kind: z.enum(['read', 'change', 'destructive']).optional(),
        limit: z.number().int().min(1).max(FIND_LIMIT_MAX).optional(),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, kind, limit }) => {
      const found = searchOperations(allowed, query, kind).slice(0, limit ?? 8);
      const result = { operations: found.map(describeOperation) };
      return jsonResult(result, found.length === 0 ? 'No operation matched; try other words.' : undefined);
    },
  );

  if (kinds.has('read')) {
    server.registerTool(
      'read',
      {
        title: 'Read from the cloud API',
        description:
          "Runs a read operation (kind read in find_operations) with the person's own API token. Lists " +
          'answer one page; pass page for the next.',
        inputSchema: z.object({
          operation: OperationName,
          arguments: Arguments,
          page: z.number().int().min(1).max(10_000).optional(),
        }),
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      async ({ operation, arguments: args, page }) => {
        const budget = AbortSignal.timeout(READ_BUDGET_MS);
        try {
          const outcome = await agentRead(
            deps,
            caller,
            { operation, arguments: args },
            { signal: budget, deadline: Date.now() + READ_BUDGET_MS, page },
          );
          return readResult(outcome);
        } catch (error) {
          return apiFailure(error, undefined);
        }
      },
    );
  }

  const changeTool = (name: string, kind: Exclude<AgentOperationKind, 'read'>, description: string) =>
    server.registerTool(
      name,
      {
        title: kind === 'destructive' ? 'Ask for a destructive change' : 'Ask for a change',
        description,
        inputSchema: z.object({
          operation: OperationName,
          arguments: Arguments,
          reason: z.string().max(500).optional().describe('Why, for the people who approve it.'),
        }),
        annotations: {
          readOnlyHint: false,
          destructiveHint: kind === 'destructive',
          idempotentHint: false,
          openWorldHint: true,
        },
        scopeChallenge: needsScopes(CHANGE_SCOPES),
        ...slackMeta,
      },
      async ({ operation, arguments: args, reason }) => {
        const surface = slackApprovalSurface(deps.slack, deps);
        const outcome = await inSlackTeam(caller.team, () =>
          agentChange(
            { ...deps, previewTarget },
            surface,
            caller,
            { operation, arguments: args, reason },
            kind,
          ),
        );
        return blocks(changeResult(outcome, caller));
      },
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
      inputSchema: z.object({ request_id: z.string().max(100) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      ...slackMeta,
    },
    async ({ request_id }) => {
      const found = await agentRequestStatus(deps, caller, request_id);
      if (found.kind === 'not_found') {
        return errorResult(`No request ${request_id.slice(0, 100)} of yours was found.`);
      }
      return blocks(jsonResult(viewJson(found.request), stateWords(found.request)));
    },
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

/** The first line of a result, as Block Kit for Slackbot: one section, plain words, no markup of the agent's. */
function withBlocks(result: CallToolResult): CallToolResult {
  const first = result.content[0];
  const text = first?.type === 'text' ? first.text : undefined;
  if (!text) return result;
  return {
    ...result,
    _meta: {
      slack: { blocks: [{ type: 'section', text: { type: 'plain_text', text: text.slice(0, 3000) } }] },
    },
  };
}

/** A request's state in a sentence, for the person reading it in Slackbot. */
function stateWords(view: ReturnType<typeof requestView>): string {
  const what = `${view.operation} on ${view.target}`;
  switch (view.state) {
    case 'waiting_for_approval':
      return `${what}: waiting for approval (${view.approvals} of ${view.requiredApprovals}) until ${view.decideBy.toISOString()}.`;
    case 'done':
      return `${what}: done${view.breakGlass ? ' (run with break-glass)' : ''}.`;
    case 'in_doubt':
      return `${what}: sent, but the API's answer was lost; the bot is checking whether it happened.`;
    case 'unknown':
      return `${what}: it is not known whether it happened; check the resource.`;
    case 'not_run':
      return `${what}: approved, but it never ran.`;
    default:
      return `${what}: ${view.state.replaceAll('_', ' ')}.`;
  }
}

/** Operations whose name, summary or group match every word of the query. */
export function searchOperations(
  allowed: readonly AnyOperation[],
  query: string,
  kind: AgentOperationKind | undefined,
): AnyOperation[] {
  const words = query
    .toLowerCase()
    .normalize('NFKC')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const scored = allowed
    .filter((op) => kind === undefined || agentKindOf(op) === kind)
    .map((op) => {
      const text =
        `${op.id} ${op.group} ${op.action} ${(op.aliases ?? []).join(' ')} ${op.summary}`.toLowerCase();
      const hits = words.filter((word) => text.includes(word) || text.includes(singular(word))).length;
      return { op, hits };
    })
    .filter(({ hits }) => words.length === 0 || hits > 0)
    .sort((a, b) => b.hits - a.hits);
  return scored.map(({ op }) => op);
}

function singular(word: string): string {
  return word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word;
}

/** One operation as `find_operations` answers it: what a per-operation tool would have said. */
export function describeOperation(op: AnyOperation) {
  const kind = agentKindOf(op);
  return {
    name: op.id,
    kind,
    summary: op.summary,
    tool: kind === 'read' ? 'read' : kind === 'change' ? 'request_change' : 'request_destructive_change',
    ...(op.destructive ? { consequence: op.destructive.consequence } : {}),
    ...(op.charges ? { charges: true } : {}),
    ...(kind !== 'read' && { idempotent: op.method === 'PUT' }),
    ...(op.paginated && { paginated: true }),
    input_schema: inputSchemaOf(op),
  };
}

const schemaCache = new Map<string, unknown>();

function inputSchemaOf(op: AnyOperation): unknown {
  let schema = schemaCache.get(op.id);
  if (schema === undefined) {
    const { $schema: _, ...rest } = jsonSchemaOf(op.request, 'input');
    schema = rest;
    schemaCache.set(op.id, schema);
  }
  return schema;
}

function needsScopes(scopes: readonly [string, ...string[]]): ScopeChallengeHandler {
  return ({ authInfo }) => {
    if (!authInfo) return undefined;
    const missing = scopes.some((scope) => !authInfo.scopes.includes(scope));
    return missing
      ? { scopes, errorDescription: 'Asking for changes needs the cloud:change scope.' }
      : undefined;
  };
}

function readResult(outcome: AgentReadOutcome): CallToolResult {
  if (outcome.kind === 'answered') return jsonResult({ operation: outcome.op.id, result: outcome.output });
  return refusalResult(outcome);
}

function changeResult(outcome: AgentChangeOutcome, caller: Caller): CallToolResult {
  switch (outcome.kind) {
    case 'requested': {
      const view = requestView(outcome.approval);
      return jsonResult(
        viewJson(view),
        `Requested: it needs ${view.requiredApprovals} approval${view.requiredApprovals === 1 ? '' : 's'} in ` +
          `the Slack channel ${caller.channel} and has not run. Follow it with get_request (request_id ${view.id}).`,
      );
    }
    case 'refused':
      if (outcome.reason === 'target_not_found')
        return errorResult('Nothing was requested: the target does not exist, or the person cannot see it.');
      if (outcome.reason === 'reason_required')
        return errorResult(
          "Nothing was requested: the home channel's rule asks every request to say why; pass reason.",
        );
      return errorResult(
        `Nothing was requested: the bot cannot post the approval card in the home channel (${outcome.refusal}).`,
      );
    case 'card_not_posted':
      return errorResult(
        outcome.discarded
          ? 'Nothing was requested: Slack did not take the approval card. Try again in a minute.'
          : `Slack's answer to the approval card was lost; request ${outcome.approvalId} expires unused if its card is not up. Nothing runs without approval.`,
      );
    case 'not_saved':
      return errorResult(
        "Nothing will run: the bot's storage did not answer while saving the request. Ask again.",
      );
    default:
      return refusalResult(outcome);
  }
}

function refusalResult(refusal: AgentRefusal): CallToolResult {
  switch (refusal.kind) {
    case 'unknown_operation':
      return errorResult(`There is no operation "${refusal.operation}". Find one with find_operations.`);
    case 'wrong_tool':
      return errorResult(
        `${refusal.op.id} is a ${refusal.expected} operation: use ${describeOperation(refusal.op).tool}.`,
      );
    case 'invalid_input':
      return errorResult(
        `The arguments of ${refusal.op.id} are not valid: ${refusal.problems.join('; ')}. Its input_schema is in find_operations.`,
      );
    case 'channel_refused': {
      const allowed = refusal.refusal.allowedClasses.join(', ') || 'nothing';
      return errorResult(
        `Refused by the home channel's policy: it allows ${allowed} operations, and ${refusal.refusal.op.id} is ` +
          `a ${refusal.refusal.op.class} operation. Nothing was called.`,
      );
    }
    case 'no_token':
      return errorResult(
        refusal.problem === 'rejected'
          ? `The API rejected the person's token (profile ${refusal.profile}). They can link a new one with /cloud login in Slack.`
          : 'The person has no API token linked. They can link one with /cloud login in Slack.',
      );
  }
}

function apiFailure(error: unknown, op: AnyOperation | undefined): CallToolResult {
  if (!isApiError(error)) throw error;
  if (op && isOutcomeInDoubt(op, error))
    return errorResult('The API did not answer clearly; it may have happened. Nothing is known yet.');
  if (error.code === 'timeout' || error.code === 'aborted')
    return errorResult('The cloud API did not answer in time. Nothing was changed; try again.');
  return errorResult(`The cloud API refused: ${error.message}`);
}

function viewJson(view: ReturnType<typeof requestView>) {
  return {
    request_id: view.id,
    operation: view.operation,
    target: view.target,
    state: view.state,
    break_glass: view.breakGlass,
    approvals: view.approvals,
    required_approvals: view.requiredApprovals,
    approvers: view.approvers,
    ...(view.decidedBy ? { decided_by: view.decidedBy } : {}),
    decide_by: view.decideBy.toISOString(),
    channel: view.channel,
    ...(view.detail ? { detail: view.detail } : {}),
  };
}

function jsonResult(value: unknown, note?: string): CallToolResult {
  let text = JSON.stringify(value, null, 1);
  if (text.length > RESULT_TEXT_LIMIT)
    text = `${text.slice(0, RESULT_TEXT_LIMIT)}\n… cut at ${RESULT_TEXT_LIMIT} characters; ask for a narrower read.`;
  return {
    content: [...(note ? [{ type: 'text' as const, text: note }] : []), { type: 'text', text }],
    ...(isRecord(value) ? { structuredContent: value } : {}),
  };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
