import type { Logger } from '@aws-lambda-powertools/logger';
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { findOperation, requireOperation } from '../api/operations/index.js';
import { helpFitFor } from '../changes/guardrails.js';
import {
  type FirstWatchMessage,
  type StartedWatch,
  type StartStatusWatchInput,
  type StatusWatchDeps,
  type StatusWatchSurface,
  startStatusWatch,
  type WatchShown,
  type WatchState,
  type WatchView,
} from '../changes/status-watch.js';
import { ChannelPacer } from '../reports/pacer.js';
import {
  contextBlock,
  fallbackText,
  mrkdwnFallback,
  type RenderedMessage,
  sectionBlock,
} from '../slack-kit/blocks.js';
import { channelRefusalOf } from '../slack-kit/channel-access.js';
import { statusWords } from '../slack-kit/enum-words.js';
import { bold, codeSpan, escapeMrkdwn, slackDate, userMention } from '../slack-kit/text.js';
import { inSlackTeam } from '../slack-kit/web-client.js';
import type { StatusWatch, Store, WatchOutcome } from '../store/index.js';
import { withChangeAuthor } from './render/change-author.js';
import type { AllowedHere } from './render/next-actions.js';
import { renderOperationResult } from './render/result.js';
import { cardResourceOf, rememberResourceCard } from './resource-cards.js';

/**
 * A status watch as Slack shows it (`lib/changes/status-watch.ts` decides when): a channel
 * message with the resource as last read and a line under it that says where the operation
 * stands, updated in place at the pace the channel allows.
 */

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

/** `running, offline or stopped`. */
function oneOf(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/**
 * The line under the resource that says where the operation stands. `now` is when the status
 * shown was read: the tick's time, or the operation's answer for the first message.
 */
export function statusLine(
  watch: Pick<StatusWatch, 'user' | 'startedAt' | 'viewOperationId' | 'viewInput'>,
  state: WatchState,
  now: Date,
): string {
  const status = state.status === null ? 'unknown' : bold(statusWords(state.status));
  if (state.kind === 'watching') {
    // What it last saw (and when), then what it waits for, in words.
    const seen =
      state.status === null
        ? 'Its status is not known yet.'
        : `Last seen ${codeSpan(statusWords(state.status))} ${slackDate(now)}.`;
    return `:hourglass_flowing_sand: ${seen} Waiting until it is ${oneOf(state.final.map(statusWords))}; this message is updated when it is.`;
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
// the surface

export interface SlackWatchDeps {
  readonly store: Store;
  readonly slack: WebClient;
  readonly logger: Logger;
  /** The pacer of Slack calls; a fresh one by default. */
  readonly pacer?: ChannelPacer | undefined;
  /** Where a runbook's step is followed: its first message goes in the run's thread. */
  readonly threadTs?: string | undefined;
  /** Told when a watch ends: a runbook's step that waited on it goes on. Never throws. */
  readonly onEnded?:
    | ((watch: StatusWatch, outcome: WatchOutcome, status: string | null) => Promise<void>)
    | undefined;
}

/**
 * Status watches in Slack channels. One surface per reporter tick: it remembers, for the tick,
 * which buttons each person's token and channel allow.
 */
export function slackStatusWatchSurface(deps: SlackWatchDeps): StatusWatchSurface {
  const pacer = deps.pacer ?? new ChannelPacer();
  // The buttons of a re-read message offer only what its channel and the person's token allow.
  const fits = new Map<string, Promise<AllowedHere | undefined>>();
  const allowedFor = (watch: Pick<StatusWatch, 'team' | 'user' | 'channel'>) => {
    const key = `${watch.team}/${watch.user}/${watch.channel}`;
    let fit = fits.get(key);
    if (!fit) {
      fit = helpFitFor(deps.store, watch.team, watch.user, watch.channel).then((found) => found?.allows);
      fits.set(key, fit);
    }
    return fit;
  };

  const messageOf = async (watch: StatusWatch, view: WatchView) => {
    const base = view.resource
      ? renderOperationResult(
          requireOperation(watch.viewOperationId),
          { ...watch.viewInput },
          view.resource,
          {
            allowed: await allowedFor(watch),
          },
        )
      : startedOperationMessage(watch);
    return withStatus(authored(watch, base), statusLine(watch, view.state, view.now));
  };

  return {
    async postFirst(first: FirstWatchMessage) {
      const message = await firstMessage(first, allowedFor);
      try {
        const posted = await deps.slack.chat.postMessage({
          channel: first.channel,
          text: message.text,
          blocks: message.blocks,
          unfurl_links: false,
          ...(deps.threadTs && { thread_ts: deps.threadTs }),
        });
        if (!posted.ts) return { kind: 'not_posted', error: new Error('Slack returned no message ts') };
        // The message shows the resource: a later change to it through the bot updates it.
        const resource = cardResourceOf(
          first.watching ? requireOperation(first.watching.viewOperationId) : first.op,
          first.watching ? first.watching.viewInput : first.input,
          first.result,
        );
        if (resource) {
          await rememberResourceCard(deps, {
            team: first.team,
            channel: first.channel,
            ts: posted.ts,
            resource,
          });
        }
        return { kind: 'posted', ts: posted.ts };
      } catch (error) {
        return { kind: 'not_posted', error };
      }
    },

    async show(watch: StatusWatch, view: WatchView): Promise<WatchShown> {
      const message = await messageOf(watch, view);
      try {
        await pacer.send(watch.channel, () =>
          deps.slack.chat.update({
            channel: watch.channel,
            ts: watch.messageTs,
            text: message.text,
            blocks: message.blocks,
          }),
        );
        return 'updated';
      } catch (error) {
        deps.logger.warn('status message not updated', { watch: watch.id, channel: watch.channel, error });
        return channelRefusalOf(error) === undefined ? 'not_updated' : 'channel_closed';
      }
    },

    async tellDirectly(watch: StatusWatch, view: WatchView) {
      const message = await messageOf(watch, view);
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
    },

    withinTeam: inSlackTeam,

    async ended(watch, outcome, status) {
      await deps.onEnded?.(watch, outcome, status);
      // The token was rejected (and marked so): the person's Home shows it without being opened.
      if (outcome === 'token_rejected') {
        const { refreshHomes } = await import('./home.js');
        await refreshHomes(deps, deps.slack, watch.team, [watch.user]);
      }
    },
  };
}

/** The result as posted first: the command's answer, or the result rendered as any command's is. */
async function firstMessage(
  first: FirstWatchMessage,
  allowedFor: (where: Pick<StatusWatch, 'team' | 'user' | 'channel'>) => Promise<AllowedHere | undefined>,
): Promise<{ text: string; blocks: KnownBlock[] }> {
  // A command's reply names its author and fits its buttons already; a result rendered here does not yet.
  const base =
    first.message ??
    withChangeAuthor(
      renderOperationResult(first.op, { ...first.input }, first.result, { allowed: await allowedFor(first) }),
      first.user,
      first.op,
    );
  const { watching } = first;
  if (!watching) return { text: base.text, blocks: knownBlocks(base) };
  return withStatus(base, statusLine({ user: first.user, ...watching }, watching.state, watching.startedAt));
}

/** Posts a long operation's result in the channel and, unless it has settled, watches it. */
export function postStatusWatch(
  deps: StatusWatchDeps & Pick<SlackWatchDeps, 'slack'>,
  input: StartStatusWatchInput,
): Promise<StartedWatch> {
  return startStatusWatch(deps, slackStatusWatchSurface(deps), input);
}

/** The reporter's status watches in Slack: a surface per tick, pacing with the tick's pacer. */
export function slackStatusWatches(
  deps: Omit<SlackWatchDeps, 'pacer'>,
): (pacer: ChannelPacer) => StatusWatchSurface {
  return (pacer) => slackStatusWatchSurface({ ...deps, pacer });
}
