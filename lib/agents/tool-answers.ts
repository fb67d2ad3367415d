import type { CallToolResult } from '@modelcontextprotocol/server';
import { isApiError } from '../api/errors.js';
import { isOutcomeInDoubt } from '../api/in-doubt.js';
import type { AnyOperation } from '../api/operation.js';
import { loadOperation } from '../api/operations/by-group.js';
import { jsonSchemaOf } from '../commands/field-shapes.js';
import type { CommandOperation } from '../commands/registry.js';
import {
  type AgentReadControl,
  type AgentReadOutcome,
  type AgentRefusal,
  agentRead,
  agentRequestStatus,
  type requestView,
} from '../core/agent-calls.js';
import { type AgentOperationKind, agentKindOf } from '../core/agent-operations.js';
import type { Caller } from '../core/caller.js';
import { standingWords } from '../slack/render/request-standing.js';
import { type AgentToolDeps, TOOL_OF_KIND } from './tool-deps.js';

/**
 * What the tools answer once they are called: the call run through the core
 * (`lib/core/agent-calls.ts`) and its outcome in words an agent acts on. Loaded on the first call,
 * not with `tools/list` (`tools.ts`): it brings the API client, the person's token and the audit.
 * Asking for a change, which posts a card in Slack, is `change-answers.ts`, so a read loads none
 * of the Slack packages.
 */

/** A read is abandoned well before API Gateway's 30 s, so the agent hears why instead of a 504. */
const READ_BUDGET_MS = 20_000;
/** Results longer than this are cut (a model reads them whole); lists say how to page instead. */
const RESULT_TEXT_LIMIT = 60_000;

export interface FindQuery {
  readonly query: string;
  readonly kind?: AgentOperationKind | undefined;
  readonly limit?: number | undefined;
}

/** `find_operations`: the allowed operations that match, each with its input schema. */
export async function findOperationsAnswer(
  allowed: readonly CommandOperation[],
  find: FindQuery,
): Promise<CallToolResult> {
  const found = searchOperations(allowed, find.query, find.kind).slice(0, find.limit ?? 8);
  // The found operations' groups of the table only; each is in the catalog, so in the table.
  const rows = await Promise.all(found.map(async (op) => (await loadOperation(op.id)) ?? unknownRow(op.id)));
  const result = { operations: rows.map(describeOperation) };
  return jsonResult(result, found.length === 0 ? 'No operation matched; try other words.' : undefined);
}

/** The catalog and the table are generated to agree (`npm run generate`); a row missing is a bug. */
function unknownRow(id: string): never {
  throw new Error(`Unknown operation ${id}`);
}

export interface ReadCall {
  readonly operation: string;
  readonly arguments?: Record<string, unknown> | undefined;
  readonly page?: number | undefined;
}

/** `read`: the operation run with the person's own token, where the home channel allows it. */
export async function readAnswer(
  deps: AgentToolDeps,
  caller: Caller,
  call: ReadCall,
  context: Pick<AgentReadControl, 'callerRead' | 'afterwards'> = {},
): Promise<CallToolResult> {
  const budget = AbortSignal.timeout(READ_BUDGET_MS);
  try {
    const outcome = await agentRead(
      deps,
      caller,
      { operation: call.operation, arguments: call.arguments },
      { ...context, signal: budget, deadline: Date.now() + READ_BUDGET_MS, page: call.page },
    );
    return readResult(outcome);
  } catch (error) {
    return apiFailure(error, undefined);
  }
}

/** `get_request`: where one of the person's requests stands (for Slackbot, with Block Kit). */
export async function requestAnswer(
  deps: AgentToolDeps,
  caller: Caller,
  id: string,
  slackbot: boolean,
): Promise<CallToolResult> {
  const found = await agentRequestStatus(deps, caller, id);
  if (found.kind === 'not_found') {
    return errorResult(`No request ${id.slice(0, 100)} of yours was found.`);
  }
  const result = jsonResult(viewJson(found.request), stateWords(found.request));
  return slackbot ? withBlocks(result) : result;
}

/** The first line of a result, as Block Kit for Slackbot: one section, plain words, no markup of the agent's. */
export function withBlocks(result: CallToolResult): CallToolResult {
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

/**
 * A request's state in a sentence, for the person reading it in Slackbot: the words its card and
 * every other surface use (`standingWords`), plain text.
 */
function stateWords(view: ReturnType<typeof requestView>): string {
  const what = `${view.operation} on ${view.target}`;
  const { words } = standingWords(view.standing);
  const until = view.standing.kind === 'waiting' ? ` until ${view.decideBy.toISOString()}` : '';
  return `${what}: ${words}${until}.`;
}

/** Operations whose name, summary or group match every word of the query. */
export function searchOperations<Op extends CommandOperation>(
  allowed: readonly Op[],
  query: string,
  kind: AgentOperationKind | undefined,
): Op[] {
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
    tool: TOOL_OF_KIND[kind],
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

function readResult(outcome: AgentReadOutcome): CallToolResult {
  if (outcome.kind === 'answered') return jsonResult({ operation: outcome.op.id, result: outcome.output });
  return refusalResult(outcome);
}

export function refusalResult(refusal: AgentRefusal): CallToolResult {
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

export function viewJson(view: ReturnType<typeof requestView>) {
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

export function jsonResult(value: unknown, note?: string): CallToolResult {
  let text = JSON.stringify(value, null, 1);
  if (text.length > RESULT_TEXT_LIMIT)
    text = `${text.slice(0, RESULT_TEXT_LIMIT)}\n… cut at ${RESULT_TEXT_LIMIT} characters; ask for a narrower read.`;
  return {
    content: [...(note ? [{ type: 'text' as const, text: note }] : []), { type: 'text', text }],
    ...(isRecord(value) ? { structuredContent: value } : {}),
  };
}

export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
