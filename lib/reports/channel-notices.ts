import type { ChannelRefusal } from '../slack-kit/channel-access.js';
import { codeSpan } from '../slack-kit/text.js';
import type { ReportSubscription } from '../store/index.js';
import { reportKindOf } from './kinds.js';
import type { NoticeDeps } from './token-notices.js';

/**
 * A subscription whose channel stopped taking the bot's posts (the bot was removed, the channel
 * archived or deleted) would fail on every run: it pauses itself and tells its owner by direct
 * message, once — only the run whose pause write lands sends the message.
 */

const PAUSE_REASONS: Readonly<Record<ChannelRefusal, string>> = {
  not_in_channel: 'the bot is no longer a member of the channel',
  private: 'the channel is gone, or private and the bot is no longer in it',
  archived: 'the channel is archived',
};

const WHAT_TO_DO: Readonly<Record<ChannelRefusal, string>> = {
  not_in_channel: 'Invite @cloud back with `/invite @cloud` in that channel',
  private: 'Invite @cloud back with `/invite @cloud` in that channel',
  archived: 'Unarchive the channel',
};

/** Pauses `sub` for a channel that refused its post. True when this call paused it (and told the owner). */
export async function pauseForChannelProblem(
  deps: NoticeDeps,
  sub: ReportSubscription,
  refusal: ChannelRefusal,
): Promise<boolean> {
  const reason = PAUSE_REASONS[refusal];
  if (!(await deps.store.reports.pauseRunning(sub.team, sub.id, reason))) return false;
  const id = sub.id.slice(0, 8);
  const text =
    `:pause_button: I paused your *${reportKindOf(sub.kind).title}* ${codeSpan(id)} in <#${sub.channel}>: ${reason}, ` +
    `so its posts were refused. ${WHAT_TO_DO[refusal]}, then run ${codeSpan(`/cloud reports resume ${id}`)} there.`;
  await deps.pacer
    .send(sub.owner, () => deps.slack.chat.postMessage({ channel: sub.owner, text }))
    .catch((error: unknown) =>
      deps.logger.warn('channel pause notice not sent', { subscription: sub.id, owner: sub.owner, error }),
    );
  return true;
}
