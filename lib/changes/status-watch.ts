import type { Logger } from '@aws-lambda-powertools/logger';
import type { ApiCallEvent } from '../api/client.js';
import { type ApiSettings, createApiClient } from '../api/client-factory.js';
import { isApiError } from '../api/errors.js';
import type { AnyOperation, WatchSpec } from '../api/operation.js';
import { findOperation, requireOperation } from '../api/operations/index.js';
import { settleWithConcurrency } from '../concurrency.js';
import type { StatusWatch, Store, TokenLookup, WatchOutcome } from '../store/index.js';
import { DEFAULT_PROFILE } from '../store/keys.js';
import type { RenderedAnswer } from './ports.js';

/**
 * Long operations started from Slack (a database provisioning for 15-30 minutes, an image being
 * captured, a node being created or cloned, a backup restore, a volume resize) report back by
 * themselves: the result is posted as a channel message, and each reporter tick reads the resource
 * again and updates that message when its status changed, until it reaches a final status, fails,
 * disappears, or the watch gives up.
 *
 * What to watch comes from the operation's row (`op.watch`); for restores, whose result is `{}`,
 * the row's `target` names the input fields that identify the resource they change.
 */

/** Statuses in which a resource has settled badly. */
const FAILURE_STATUSES = new Set(['failed', 'degraded', 'error']);

/** How long a watch runs at most: provisioning takes half an hour; four times that is surely stuck. */
export const DEFAULT_WATCH_LIMIT_MS = 2 * 3_600_000;
const WATCHES_PER_TICK = 500;
const WATCH_CONCURRENCY = 8;

export interface WatchPlan {
  readonly spec: WatchSpec;
  readonly view: AnyOperation;
  readonly viewInput: Record<string, string | number>;
  /** The status the result already shows, if it shows one. */
  readonly status: string | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The resource a result describes: the result itself, or the one object it nests
 * (`images.upload` answers `{image, upload_to}`).
 */
function resourceOf(result: unknown): Record<string, unknown> | undefined {
  if (!isRecord(result)) return undefined;
  if ('id' in result) return result;
  const nested = Object.values(result).filter((v) => isRecord(v) && 'id' in v);
  return nested.length === 1 && isRecord(nested[0]) ? nested[0] : undefined;
}

/** Whether an operation's result can be watched, and how; undefined when it cannot. */
export function watchPlanFor(
  op: AnyOperation,
  input: Readonly<Record<string, unknown>>,
  result: unknown,
): WatchPlan | undefined {
  const spec = op.watch;
  if (!spec) return undefined;
  const view = findOperation(spec.view);
  if (!view) return undefined;
  const resource = resourceOf(result);
  const restore = spec.target !== undefined;
  const targeted = Object.entries(spec.target ?? {}).map(([param, field]) => [param, input[field]]);
  const known: Record<string, unknown> = { ...input, ...Object.fromEntries(targeted) };
  const viewInput: Record<string, string | number> = {};
  view.pathParams.forEach((name, index) => {
    // The view's last parameter is the resource's own id: a created or cloned resource has a new one.
    const isOwnId = index === view.pathParams.length - 1;
    const value = isOwnId && !restore && resource?.id !== undefined ? resource.id : known[name];
    if (typeof value === 'string' || typeof value === 'number') viewInput[name] = value;
  });
  if (Object.keys(viewInput).length !== view.pathParams.length) return undefined;
  const status = resource?.[spec.statusField];
  return { spec, view, viewInput, status: typeof status === 'string' ? status : null };
}

// ---------------------------------------------------------------------------------------------
// the surface

export type WatchState =
  | { readonly kind: 'watching'; readonly status: string | null; readonly final: readonly string[] }
  | { readonly kind: 'ended'; readonly outcome: WatchOutcome; readonly status: string | null };

/** What a watch's message shows: the resource as last read (when it was), and where it stands. */
export interface WatchView {
  readonly state: WatchState;
  readonly resource: Record<string, unknown> | undefined;
  readonly now: Date;
}

/** The first message of a watch: the operation's result, and its status when it is not final yet. */
export interface FirstWatchMessage {
  readonly team: string;
  readonly user: string;
  readonly channel: string;
  readonly op: AnyOperation;
  readonly input: Readonly<Record<string, unknown>>;
  readonly result: unknown;
  /** The message to post as it is (a command's answer); by default the result is rendered. */
  readonly message: RenderedAnswer | undefined;
  /** Where the operation stands, with what the watch will read; undefined when nothing will follow. */
  readonly watching:
    | {
        readonly state: Extract<WatchState, { kind: 'watching' }>;
        readonly startedAt: Date;
        readonly viewOperationId: string;
        readonly viewInput: Readonly<Record<string, string | number>>;
      }
    | undefined;
}

export type WatchShown = 'updated' | 'not_updated' | 'channel_closed';

/** Where a watch's message is shown (Slack: a channel message, updated in place). */
export interface StatusWatchSurface {
  postFirst(
    message: FirstWatchMessage,
  ): Promise<
    | { readonly kind: 'posted'; readonly ts: string }
    | { readonly kind: 'not_posted'; readonly error: unknown }
  >;
  /** Updates the watch's message; `channel_closed` when the channel no longer takes it. */
  show(watch: StatusWatch, view: WatchView): Promise<WatchShown>;
  /** How it ended, to the person who ran it, when the channel no longer takes the message. */
  tellDirectly(watch: StatusWatch, view: WatchView): Promise<void>;
  /** Runs `work` as the watch's workspace. */
  withinTeam<T>(team: string, work: () => Promise<T>): Promise<T>;
  /** The watch has ended: whatever waited on it (a runbook's step) goes on. Never throws. */
  ended?(watch: StatusWatch, outcome: WatchOutcome, status: string | null): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// starting

export interface StatusWatchDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly logger: Logger;
  readonly onApiCall?: ((account: string, event: ApiCallEvent) => void) | undefined;
}

export interface StartStatusWatchInput {
  readonly team: string;
  /** Who ran the operation; the watch reads the resource with their token. */
  readonly user: string;
  readonly channel: string;
  /** The profile the operation ran with; the user's active profile when left out. */
  readonly profile?: string | undefined;
  readonly op: AnyOperation;
  readonly input: Readonly<Record<string, unknown>>;
  /** The operation's result as the API client returned it. */
  readonly result: unknown;
  /** The message to post (the command's `Reply` will do); by default the result rendered as any command's is. */
  readonly message?: RenderedAnswer | undefined;
  readonly giveUpAfterMs?: number | undefined;
  readonly now?: Date | undefined;
}

export type StartedWatch =
  /** Posted and watched: the message will be updated. */
  | { readonly status: 'watching'; readonly ts: string; readonly watch: StatusWatch }
  /** Posted; the result is already final (or cannot be watched), so nothing more will change. */
  | { readonly status: 'posted'; readonly ts: string }
  /** Slack refused the post (e.g. the bot is not in the channel): the caller answers another way. */
  | { readonly status: 'not_posted'; readonly error: unknown };

/**
 * Posts the result of a long operation in the channel (so the message has a `ts` to update) and,
 * unless it has settled already, stores a watch the reporter keeps it up to date with.
 */
export async function startStatusWatch(
  deps: StatusWatchDeps,
  surface: StatusWatchSurface,
  input: StartStatusWatchInput,
): Promise<StartedWatch> {
  const now = input.now ?? deps.store.now();
  const plan = watchPlanFor(input.op, input.input, input.result);
  const settled = !plan || (plan.status !== null && plan.spec.final.includes(plan.status));
  const posted = await surface.postFirst({
    team: input.team,
    user: input.user,
    channel: input.channel,
    op: input.op,
    input: input.input,
    result: input.result,
    message: input.message,
    watching:
      plan && !settled
        ? {
            state: { kind: 'watching', status: plan.status, final: plan.spec.final },
            startedAt: now,
            viewOperationId: plan.view.id,
            viewInput: plan.viewInput,
          }
        : undefined,
  });
  if (posted.kind === 'not_posted') return { status: 'not_posted', error: posted.error };
  const { ts } = posted;
  if (!plan || settled) return { status: 'posted', ts };

  const profile =
    input.profile ??
    (await deps.store.tokenLinks.getActiveProfile(input.team, input.user)) ??
    DEFAULT_PROFILE;
  const watch = await deps.store.statusWatches.create({
    team: input.team,
    user: input.user,
    profile,
    channel: input.channel,
    messageTs: ts,
    operationId: input.op.id,
    viewOperationId: plan.view.id,
    viewInput: plan.viewInput,
    statusField: plan.spec.statusField,
    finalStatuses: plan.spec.final,
    failedStatuses: plan.spec.final.filter((s) => FAILURE_STATUSES.has(s)),
    lastStatus: plan.status,
    giveUpAt: new Date(now.getTime() + (input.giveUpAfterMs ?? DEFAULT_WATCH_LIMIT_MS)),
  });
  return { status: 'watching', ts, watch };
}

// ---------------------------------------------------------------------------------------------
// the tick part

export interface WatchTickSummary {
  /** Watches that were running at the start of the tick. */
  readonly running: number;
  /** Resources read. */
  readonly checked: number;
  /** Messages updated. */
  readonly updated: number;
  /** Watches ended (final status, failure, gone, timed out, token rejected). */
  readonly finished: number;
  /** Checks that failed and will be tried again next tick. */
  readonly failures: number;
}

type CheckOutcome =
  | { readonly kind: 'status'; readonly status: string | null; readonly resource: Record<string, unknown> }
  | { readonly kind: 'ended'; readonly outcome: WatchOutcome }
  | { readonly kind: 'retry' };

/** One tick over the running watches: what it needs, and what it counted. */
interface WatchTick {
  readonly deps: StatusWatchDeps;
  readonly surface: StatusWatchSurface;
  readonly now: Date;
  readonly counts: { checked: number; updated: number; finished: number; failures: number };
  /** Token lookups of this tick, one per person and profile. */
  readonly tokens: Map<string, Promise<TokenLookup>>;
}

export async function runStatusWatches(
  deps: StatusWatchDeps,
  surface: StatusWatchSurface,
  now: Date,
): Promise<WatchTickSummary> {
  const watches = await deps.store.statusWatches.running(WATCHES_PER_TICK);
  const tick: WatchTick = {
    deps,
    surface,
    now,
    counts: { checked: 0, updated: 0, finished: 0, failures: 0 },
    tokens: new Map(),
  };
  // A watch's surface calls carry its team's credentials.
  await settleWithConcurrency(watches, WATCH_CONCURRENCY, (watch) =>
    surface.withinTeam(watch.team, () => checkWatch(tick, watch)),
  );
  return { running: watches.length, ...tick.counts };
}

async function checkWatch(tick: WatchTick, watch: StatusWatch): Promise<void> {
  const { now } = tick;
  try {
    const outcome = await readWatched(tick, watch);
    if (outcome.kind === 'retry') {
      tick.counts.failures += 1;
      if (now.getTime() >= watch.giveUpAt.getTime()) await end(tick, watch, 'timed_out', watch.lastStatus);
      return;
    }
    if (outcome.kind === 'ended') {
      await end(tick, watch, outcome.outcome, watch.lastStatus);
      return;
    }
    const { status, resource } = outcome;
    if (status !== null && watch.finalStatuses.includes(status)) {
      const result = watch.failedStatuses.includes(status) ? 'failed' : 'final';
      await end(tick, watch, result, status, resource);
      return;
    }
    if (now.getTime() >= watch.giveUpAt.getTime()) {
      await end(tick, watch, 'timed_out', status, resource);
      return;
    }
    if (status === watch.lastStatus) return;
    if (!(await tick.deps.store.statusWatches.recordStatus(watch, status))) return;
    await show(tick, watch, {
      state: { kind: 'watching', status, final: watch.finalStatuses },
      resource,
      now,
    });
  } catch (error) {
    tick.counts.failures += 1;
    tick.deps.logger.warn('status watch check failed', { watch: watch.id, error });
  }
}

/** Reads the watched resource with its person's token. */
async function readWatched(tick: WatchTick, watch: StatusWatch): Promise<CheckOutcome> {
  const { deps } = tick;
  const key = `${watch.team}/${watch.user}/${watch.profile}`;
  let lookup = tick.tokens.get(key);
  if (!lookup) {
    lookup = deps.store.tokenLinks.getToken(watch.team, watch.user, watch.profile);
    tick.tokens.set(key, lookup);
  }
  const token = await lookup;
  if (token.status !== 'found') return { kind: 'ended', outcome: 'token_rejected' };
  const client = createApiClient(deps.api, token.token, {
    observe: deps.onApiCall ? (event) => deps.onApiCall?.(key, event) : undefined,
  });
  try {
    tick.counts.checked += 1;
    const resource = await client.call(requireOperation(watch.viewOperationId), { ...watch.viewInput });
    if (!isRecord(resource)) return { kind: 'retry' };
    const status = resource[watch.statusField];
    return { kind: 'status', status: typeof status === 'string' ? status : null, resource };
  } catch (error) {
    if (isApiError(error, 'not_found')) return { kind: 'ended', outcome: 'gone' };
    if (isApiError(error, 'unauthorized')) {
      await deps.store.tokenLinks.markInvalid(watch.team, watch.user, watch.profile);
      return { kind: 'ended', outcome: 'token_rejected' };
    }
    return { kind: 'retry' };
  }
}

async function show(tick: WatchTick, watch: StatusWatch, view: WatchView): Promise<WatchShown> {
  const shown = await tick.surface.show(watch, view);
  if (shown === 'updated') tick.counts.updated += 1;
  return shown;
}

/**
 * Ends a watch and says so under the message as it last was. When the channel no longer takes
 * the message (the bot was removed, the channel archived), the person who ran the operation is
 * told directly: they would not learn it otherwise.
 */
async function end(
  tick: WatchTick,
  watch: StatusWatch,
  outcome: WatchOutcome,
  status: string | null,
  resource?: Record<string, unknown>,
): Promise<void> {
  if (!(await tick.deps.store.statusWatches.finish(watch, outcome, status))) return;
  tick.counts.finished += 1;
  const view: WatchView = { state: { kind: 'ended', outcome, status }, resource, now: tick.now };
  if ((await show(tick, watch, view)) === 'channel_closed') await tick.surface.tellDirectly(watch, view);
  await tick.surface.ended?.(watch, outcome, status);
}
