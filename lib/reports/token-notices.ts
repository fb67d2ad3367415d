import type { Logger } from '@aws-lambda-powertools/logger';
import type { WebClient } from '@slack/web-api';
import { codeSpan, countOf, escapeMrkdwn, slackDate, userMention } from '../slack-kit/text.js';
import type { ReportSubscription, Store, TokenLink } from '../store/index.js';
import { type ChannelPacer, certainlyNotPosted } from './pacer.js';

/**
 * What happens to subscriptions when the token they run with stops working, and the reminder
 * before it does. Both tell the people concerned: the channels lose their reports, and only the
 * owner can fix it by linking a new token.
 */

export interface NoticeDeps {
  readonly store: Store;
  readonly slack: WebClient;
  readonly pacer: ChannelPacer;
  readonly logger: Logger;
  /** Publishes these people's Homes again (see `ReporterSurface` in `tick.ts`). */
  readonly refreshHomes: (team: string, users: readonly string[]) => Promise<void>;
}

export interface TokenAccount {
  readonly team: string;
  readonly owner: string;
  readonly profile: string;
}

/** `rejected`: the API answered 401. `unlinked`: the link is gone (logged out, or the token expired). */
export type TokenProblem = 'rejected' | 'unlinked';

/** A week's notice: enough for someone back from a long weekend. */
export const EXPIRY_REMINDER_MS = 7 * 24 * 3_600_000;

const PAUSE_REASONS: Readonly<Record<TokenProblem, string>> = {
  rejected: 'the API rejected the token (revoked or expired)',
  unlinked: 'the token is no longer linked (logged out or expired)',
};

function reportList(subs: readonly ReportSubscription[]): string {
  return subs.map((s) => `${codeSpan(s.id.slice(0, 8))} ${s.kind}`).join(', ');
}

/**
 * Marks the link invalid (for a 401), pauses every subscription that runs with it, and says why in
 * each affected channel and to the owner. Returns the subscriptions it paused.
 */
export async function pauseForTokenProblem(
  deps: NoticeDeps,
  account: TokenAccount,
  problem: TokenProblem,
): Promise<ReportSubscription[]> {
  const { team, owner, profile } = account;
  if (problem === 'rejected') await deps.store.tokenLinks.markInvalid(team, owner, profile);
  const affected = (await deps.store.reports.list(team, { owner, profile })).filter((s) => !s.paused);
  await deps.store.reports.pauseOwnedBy(team, owner, profile, PAUSE_REASONS[problem]);
  // Their Home shows the profile rejected and the reports paused (this runs in the reporter or
  // the worker, never before a command's answer).
  if (problem === 'rejected' || affected.length > 0) await deps.refreshHomes(team, [owner]);
  if (affected.length === 0) return affected;

  const relink = `/cloud login${profile === 'default' ? '' : ` --profile ${profile}`}`;
  const byChannel = new Map<string, ReportSubscription[]>();
  for (const sub of affected) byChannel.set(sub.channel, [...(byChannel.get(sub.channel) ?? []), sub]);
  const notices = [...byChannel].map(([channel, subs]) =>
    deps.pacer
      .send(channel, () =>
        deps.slack.chat.postMessage({
          channel,
          text:
            `:pause_button: Paused ${countOf(subs.length, 'report')} of this channel (${reportList(subs)}): ` +
            `they run with ${userMention(owner)}'s token (profile ${codeSpan(profile)}), and ${PAUSE_REASONS[problem]}. ` +
            `${userMention(owner)} can link a new one with ${codeSpan(relink)} and then ${codeSpan('/cloud reports resume ID')}.`,
        }),
      )
      .catch((error: unknown) => deps.logger.warn('pause notice not posted', { team, channel, error })),
  );
  const channels = [...byChannel.keys()].map((c) => `<#${c}>`).join(', ');
  notices.push(
    deps.pacer
      .send(owner, () =>
        deps.slack.chat.postMessage({
          channel: owner,
          text:
            `:warning: I paused ${countOf(affected.length, 'report subscription')} in ${channels} that run with your ` +
            `token of profile ${codeSpan(profile)}: ${PAUSE_REASONS[problem]}. Link a new token with ${codeSpan(relink)}, ` +
            `then resume them with ${codeSpan('/cloud reports resume ID')} (${reportList(affected)}).`,
        }),
      )
      .catch((error: unknown) =>
        deps.logger.warn('pause notice to owner not posted', { team, owner, error }),
      ),
  );
  await Promise.all(notices);
  return affected;
}

/**
 * Tells the owner once, by direct message, that the token their subscriptions run with expires
 * within a week. True when the reminder was sent by this call. A reminder Slack refused (the app's
 * Messages tab off, rate limited) is given back and sent by a later run; one whose answer was lost
 * may have been delivered and stays claimed, so nobody gets it twice.
 */
export async function remindOfExpiry(deps: NoticeDeps, link: TokenLink, now: Date): Promise<boolean> {
  if (link.expiry === null) return false;
  const left = link.expiry.getTime() - now.getTime();
  if (left <= 0 || left > EXPIRY_REMINDER_MS) return false;
  const claimed = await deps.store.reports.claimExpiryReminder(
    link.team,
    link.user,
    link.profile,
    link.expiry,
  );
  if (!claimed) return false;
  const subs = await deps.store.reports.list(link.team, { owner: link.user, profile: link.profile });
  const relink = `/cloud login${link.profile === 'default' ? '' : ` --profile ${link.profile}`}`;
  try {
    await deps.pacer.send(link.user, () =>
      deps.slack.chat.postMessage({
        channel: link.user,
        text:
          `:hourglass_flowing_sand: Your token of profile ${codeSpan(link.profile)} (${escapeMrkdwn(link.label)}) expires ` +
          `${slackDate(link.expiry ?? now)}. ${countOf(subs.length, 'report subscription')} ` +
          `${subs.length === 1 ? 'runs' : 'run'} with it (${reportList(subs)}) and will pause when it expires. ` +
          `Create a new token and link it with ${codeSpan(relink)} before then.`,
      }),
    );
    return true;
  } catch (error) {
    const retry = certainlyNotPosted(error);
    deps.logger.warn('expiry reminder not posted', { team: link.team, owner: link.user, retry, error });
    if (retry) {
      await deps.store.reports
        .releaseExpiryReminder(link.team, link.user, link.profile, link.expiry)
        .catch((releaseError: unknown) =>
          deps.logger.warn('expiry reminder not given back; it stays unsent', {
            team: link.team,
            owner: link.user,
            error: releaseError,
          }),
        );
    }
    return false;
  }
}
