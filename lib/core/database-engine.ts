import { ApiError, type ApiErrorCode } from '../api/errors.js';
import { ENGINE_KINDS, type EngineKind, getOperation } from '../api/operations/index.js';
import type { TokenProblem } from '../changes/tokens.js';
import type { Caller } from './caller.js';
import {
  type OperationControl,
  type OperationDeps,
  type OperationRequest,
  runOperationWith,
} from './operations.js';

export type DatabaseEngineLookup =
  | { readonly kind: 'found'; readonly engine: EngineKind }
  /** No database the person's token sees has the id, of any engine. */
  | { readonly kind: 'not_found' }
  /** The database is of an engine whose operations the bot does not have. */
  | { readonly kind: 'other_engine'; readonly engine: string }
  | { readonly kind: 'no_token'; readonly problem: TokenProblem; readonly profile: string }
  /** The list could not be read now (the API down or slow, the time up): the engine is not known. */
  | { readonly kind: 'unanswered'; readonly code: ApiErrorCode };

/** Failures that say nothing about the database: another try may find it. */
const UNANSWERED: ReadonlySet<ApiErrorCode> = new Set([
  'server_error',
  'timeout',
  'network',
  'aborted',
  'rate_limited',
  'invalid_response',
]);

/**
 * Which engine a database is, from its id: `databases view 42` runs `databases.mysql-view` or
 * `databases.postgresql-view` by what this finds. It reads the engine-neutral list
 * (`GET /databases/instances`, every engine's databases the person's token sees) with their own
 * token; it only picks the operation, which then goes through every rule its own command would
 * (guardrails by its id, approvals, step-up). The list cannot be filtered by id (its filterable
 * fields are label, type, engine, version, region and status), so its pages are read until found.
 * A refusal that says something about the person (a token rejected, a scope missing) is thrown,
 * for the surface's one answer to API errors.
 */
export async function findDatabaseEngine(
  deps: OperationDeps,
  caller: Pick<Caller, 'team' | 'user' | 'channel'>,
  instanceId: number,
  control: Pick<OperationControl, 'signal' | 'deadline' | 'tokenLookup'> = {},
): Promise<DatabaseEngineLookup> {
  const request: OperationRequest = {
    team: caller.team,
    user: caller.user,
    channel: caller.channel,
    op: getOperation('databases.list'),
    input: {},
    options: {},
  };
  try {
    const outcome = await runOperationWith(deps, request, control, async (client, options) => {
      const all = await client.listAll(getOperation('databases.list'), {}, options);
      return all.data.find((database) => database.id === instanceId);
    });
    if (outcome.kind === 'no_token') return outcome;
    const database = outcome.output;
    if (database === undefined) return { kind: 'not_found' };
    const engine = ENGINE_KINDS.find((kind) => kind === database.engine);
    return engine === undefined
      ? { kind: 'other_engine', engine: database.engine }
      : { kind: 'found', engine };
  } catch (error) {
    if (error instanceof ApiError && UNANSWERED.has(error.code))
      return { kind: 'unanswered', code: error.code };
    throw error;
  }
}
