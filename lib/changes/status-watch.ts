import type { Logger } from '@aws-lambda-powertools/logger';
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { ApiCallEvent } from '../api/client.js';
import { type ApiSettings, createApiClient } from '../api/client-factory.js';
import { isApiError } from '../api/errors.js';
import type { AnyOperation, WatchSpec } from '../api/operation.js';
import { findOperation, requireOperation } from '../api/operations/index.js';
import { settleWithConcurrency } from '../reports/concurrency.js';
import { ChannelPacer } from '../reports/pacer.js';
import { channelRefusalOf } from '../slack/channel-access.js';
import {
  contextBlock,
  fallbackText,
  mrkdwnFallback,
  type RenderedMessage,
  sectionBlock,
} from '../slack/render/blocks.js';
import { withChangeAuthor } from '../slack/render/change-author.js';
import type { AllowedHere } from '../slack/render/next-actions.js';
import { renderOperationResult } from '../slack/render/result.js';
import { codeSpan, escapeMrkdwn, userMention } from '../slack/render/text.js';
import { inSlackTeam } from '../slack/web-client.js';
import type { StatusWatch, Store, TokenLookup, WatchOutcome } from '../store/index.js';
import { DEFAULT_PROFILE } from '../store/keys.js';
import { helpFitFor } from './guardrails.js';

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
// messages

function viewCommand(watch: {
  viewOperationId: string;
  viewInput: Readonly<Record<string, string | number>>;
}) {
  const view = findOperation(watch.viewOperationId);
  if (!view) return '';
  return codeSpan(
    `/cloud ${view.group} ${view.action} ${view.pathParams.map((p) => watch.viewInput[p]).join(' ')}`,
  );
}

function minutesBetween(from: Date, to: Date): string {
  const minutes = Math.max(0, Math.round((to.getTime() - from.getTime()) / 60_000));
  return minutes < 1 ? 'under a minute' : minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

export type WatchState =
  | { readonly kind: 'watching'; readonly status: string | null; readonly final: readonly string[] }
  | { readonly kind: 'ended'; readonly outcome: WatchOutcome; readonly status: string | null };

/** The line under the resource that says where the operation stands. */
export function statusLine(
  watch: Pick<StatusWatch, 'user' | 'startedAt' | 'viewOperationId' | 'viewInput'>,
  state: WatchState,
  now: Date,
): string {
  const status = state.status === null ? 'unknown' : codeSpan(state.status);
  if (state.kind === 'watching') {
    return `:hourglass_flowing_sand: Status ${status}. This message is updated until it is ${state.final.join(', ')}.`;
  }
  const after = minutesBetween(watch.startedAt, now);
  switch (state.outcome) {
    case 'final':
      return `:white_check_mark: Status ${status}, after ${after}.`;
    case 'failed':
      return `:x: Status ${status}, after ${after}. ${viewCommand(watch)} shows the details.`;
    case 'gone':
      return `:grey_question: It no longer exists (last status ${status}).`;
    case 'timed_out':
      return `:hourglass: Stopped watching after ${after}; last status ${status}. Check with ${viewCommand(watch)}.`;
    case 'token_rejected':
      return `:warning: Stopped watching: the API no longer accepts ${userMention(watch.user)}'s token (last status ${status}).`;
  }
}

/** What the message says when the resource cannot be read any more: the operation and how to look. */
function startedOperationMessage(
  watch: Pick<StatusWatch, 'operationId' | 'viewOperationId' | 'viewInput'>,
): RenderedMessage {
  const summary = findOperation(watch.operationId)?.summary ?? watch.operationId;
  return {
    text: fallbackText(summary),
    blocks: [sectionBlock(`*${escapeMrkdwn(summary)}* · ${viewCommand(watch)}`)],
  };
}

/** The watch's message re-read, still naming who ran the operation it follows. */
function authored(watch: Pick<StatusWatch, 'user' | 'operationId'>, message: WatchMessage): WatchMessage {
  const op = findOperation(watch.operationId);
  return op ? withChangeAuthor(message, watch.user, op) : message;
}

/** A message to post or update: a renderer's output, or a command's `Reply`. */
export interface WatchMessage {
  readonly text: string;
  readonly blocks: readonly unknown[];
}

/** The renderers (`RenderedMessage`, `Reply`) build nothing but Block Kit blocks. */
function knownBlocks(message: WatchMessage): KnownBlock[] {
  return [...(message.blocks as readonly KnownBlock[])];
}

function withStatus(message: WatchMessage, line: string): { text: string; blocks: KnownBlock[] } {
  return {
    text: mrkdwnFallback(`${message.text} ${line}`),
    blocks: [...knownBlocks(message), contextBlock(line)],
  };
}

// ---------------------------------------------------------------------------------------------
// starting

export interface StatusWatchDeps {
  readonly store: Store;
  readonly api: ApiSettings;
  readonly slack: WebClient;
  readonly logger: Logger;
  readonly pacer?: ChannelPacer;
  readonly onApiCall?: (account: string, event: ApiCallEvent) => void;
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
  readonly message?: WatchMessage | undefined;
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
  input: StartStatusWatchInput,
): Promise<StartedWatch> {
  const now = input.now ?? deps.store.now();
  const plan = watchPlanFor(input.op, input.input, input.result);
  // A command's reply names its author and fits its buttons already; a result rendered here does not yet.
  const base =
    input.message ??
    withChangeAuthor(
      renderOperationResult(input.op, { ...input.input }, input.result, {
        allowed: (await helpFitFor(deps.store, input.team, input.user, input.channel))?.allows,
      }),
      input.user,
      input.op,
    );
  const settled = !plan || (plan.status !== null && plan.spec.final.includes(plan.status));
  const pending = {
    user: input.user,
    startedAt: now,
    viewOperationId: plan?.view.id ?? '',
    viewInput: plan?.viewInput ?? {},
  };
  const message =
    plan && !settled
      ? withStatus(
          base,
          statusLine(pending, { kind: 'watching', status: plan.status, final: plan.spec.final }, now),
        )
      : { text: base.text, blocks: knownBlocks(base) };

  let ts: string | undefined;
  try {
    const posted = await deps.slack.chat.postMessage({
      channel: input.channel,
      text: message.text,
      blocks: message.blocks,
      unfurl_links: false,
    });
    ts = posted.ts;
  } catch (error) {
    return { status: 'not_posted', error };
  }
  if (!ts) return { status: 'not_posted', error: new Error('Slack returned no message ts') };
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

export async function runStatusWatches(deps: StatusWatchDeps, now: Date): Promise<WatchTickSummary> {
  const pacer = deps.pacer ?? new ChannelPacer();
  const watches = await deps.store.statusWatches.running(WATCHES_PER_TICK);
  const tokens = new Map<string, Promise<TokenLookup>>();
  const counts = { checked: 0, updated: 0, finished: 0, failures: 0 };

  // The buttons of a re-read message offer only what its channel and the person's token allow.
  const fits = new Map<string, Promise<AllowedHere | undefined>>();
  const allowedFor = (watch: StatusWatch) => {
    const key = `${watch.team}/${watch.user}/${watch.channel}`;
    let fit = fits.get(key);
    if (!fit) {
      fit = helpFitFor(deps.store, watch.team, watch.user, watch.channel).then((found) => found?.allows);
      fits.set(key, fit);
    }
    return fit;
  };

  const tokenOf = (watch: StatusWatch) => {
    const key = `${watch.team}/${watch.user}/${watch.profile}`;
    let lookup = tokens.get(key);
    if (!lookup) {
      lookup = deps.store.tokenLinks.getToken(watch.team, watch.user, watch.profile);
      tokens.set(key, lookup);
    }
    return { key, lookup };
  };

  const check = async (watch: StatusWatch): Promise<CheckOutcome> => {
    const { key, lookup } = tokenOf(watch);
    const token = await lookup;
    if (token.status !== 'found') return { kind: 'ended', outcome: 'token_rejected' };
    const client = createApiClient(deps.api, token.token, {
      observe: deps.onApiCall ? (event) => deps.onApiCall?.(key, event) : undefined,
    });
    try {
      counts.checked += 1;
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
  };

  /** Updates the watch's message; false when the channel no longer takes the bot's messages. */
  const update = async (
    watch: StatusWatch,
    message: { text: string; blocks: KnownBlock[] },
  ): Promise<boolean> => {
    try {
      await pacer.send(watch.channel, () =>
        deps.slack.chat.update({
          channel: watch.channel,
          ts: watch.messageTs,
          text: message.text,
          blocks: message.blocks,
        }),
      );
      counts.updated += 1;
      return true;
    } catch (error) {
      deps.logger.warn('status message not updated', { watch: watch.id, channel: watch.channel, error });
      return channelRefusalOf(error) === undefined;
    }
  };

  /**
   * The outcome to the person who ran the operation, by direct message: the bot was removed
   * from the channel or it was archived, and they would not learn it otherwise.
   */
  const tellDirectly = async (watch: StatusWatch, message: { text: string; blocks: KnownBlock[] }) => {
    const note = `The message in <#${watch.channel}> that followed this could not be updated (I am no longer able to post there), so here is how it ended:`;
    await pacer
      .send(watch.user, () =>
        deps.slack.chat.postMessage({
          channel: watch.user,
          text: `${note}\n${message.text}`,
          blocks: [{ type: 'section', text: { type: 'mrkdwn', text: note } }, ...message.blocks],
        }),
      )
      .catch((error: unknown) => deps.logger.warn('status outcome not sent', { watch: watch.id, error }));
  };

  /** Ends a watch and says so under the message as it last was. */
  const end = async (
    watch: StatusWatch,
    outcome: WatchOutcome,
    status: string | null,
    resource?: unknown,
  ) => {
    if (!(await deps.store.statusWatches.finish(watch, outcome, status))) return;
    counts.finished += 1;
    const base = resource
      ? renderOperationResult(requireOperation(watch.viewOperationId), { ...watch.viewInput }, resource, {
          allowed: await allowedFor(watch),
        })
      : startedOperationMessage(watch);
    const final = withStatus(
      authored(watch, base),
      statusLine(watch, { kind: 'ended', outcome, status }, now),
    );
    if (!(await update(watch, final))) await tellDirectly(watch, final);
  };

  const checkWatch = async (watch: StatusWatch) => {
    try {
      const outcome = await check(watch);
      if (outcome.kind === 'retry') {
        counts.failures += 1;
        if (now.getTime() >= watch.giveUpAt.getTime()) await end(watch, 'timed_out', watch.lastStatus);
        return;
      }
      if (outcome.kind === 'ended') {
        await end(watch, outcome.outcome, watch.lastStatus);
        return;
      }
      const { status, resource } = outcome;
      if (status !== null && watch.finalStatuses.includes(status)) {
        const result = watch.failedStatuses.includes(status) ? 'failed' : 'final';
        await end(watch, result, status, resource);
        return;
      }
      if (now.getTime() >= watch.giveUpAt.getTime()) {
        await end(watch, 'timed_out', status, resource);
        return;
      }
      if (status === watch.lastStatus) return;
      if (!(await deps.store.statusWatches.recordStatus(watch, status))) return;
      const view = requireOperation(watch.viewOperationId);
      const message = authored(
        watch,
        renderOperationResult(view, { ...watch.viewInput }, resource, { allowed: await allowedFor(watch) }),
      );
      await update(
        watch,
        withStatus(message, statusLine(watch, { kind: 'watching', status, final: watch.finalStatuses }, now)),
      );
    } catch (error) {
      counts.failures += 1;
      deps.logger.warn('status watch check failed', { watch: watch.id, error });
    }
  };
  // A watch's Slack calls carry its team's bot token.
  await settleWithConcurrency(watches, WATCH_CONCURRENCY, (watch) =>
    inSlackTeam(watch.team, () => checkWatch(watch)),
  );

  return { running: watches.length, ...counts };
}
