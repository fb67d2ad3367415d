import type { WebClient } from '@slack/web-api';
import { slackErrorOf } from './slack-refusals.js';

/**
 * Whether the bot can post in a channel, asked before anything is stored for that channel (a
 * report subscription, a status watch, an approval request). Slash commands and their
 * response_url work in any channel the person is in, but the bot's own posts need it to be a
 * member: a public channel it is not in answers `not_in_channel`, a private one
 * `channel_not_found`, an archived one `is_archived`. A public channel is joined when the app has
 * `channels:join`; anything else is the person's to fix, with `/invite @cloud`.
 */

/** Why the bot cannot post in a channel. */
export type ChannelRefusal = 'not_in_channel' | 'private' | 'archived';

export type ChannelAccess =
  | { readonly kind: 'member' }
  /** A public channel the bot has just joined. */
  | { readonly kind: 'joined' }
  /** Slack would not say (an install without `channels:read`, a rate limit, an outage). */
  | { readonly kind: 'unknown'; readonly reason: string }
  | { readonly kind: 'refused'; readonly refusal: ChannelRefusal };

/** The answers that mean the bot can no longer post in the channel, whatever it retries. */
const REFUSALS: Readonly<Record<string, ChannelRefusal>> = {
  not_in_channel: 'not_in_channel',
  channel_not_found: 'private',
  is_archived: 'archived',
};

/** The channel refusal a failed post carries, or undefined for any other failure. */
export function channelRefusalOf(error: unknown): ChannelRefusal | undefined {
  const code = slackErrorOf(error);
  return code === undefined ? undefined : REFUSALS[code];
}

interface ChannelInfo {
  readonly is_member?: boolean;
  readonly is_archived?: boolean;
  readonly is_private?: boolean;
  readonly is_im?: boolean;
}

/** Finds out whether the bot can post in `channel`, joining it if it is public and the app may. */
export async function ensureBotCanPost(client: WebClient, channel: string): Promise<ChannelAccess> {
  let info: ChannelInfo;
  try {
    const answer = await client.conversations.info({ channel });
    info = (answer.channel ?? {}) as ChannelInfo;
  } catch (error) {
    const code = slackErrorOf(error);
    // A private channel the bot is not in does not exist for it.
    if (code === 'channel_not_found') return { kind: 'refused', refusal: 'private' };
    return { kind: 'unknown', reason: code ?? 'no_answer' };
  }
  if (info.is_archived === true) return { kind: 'refused', refusal: 'archived' };
  if (info.is_member === true || info.is_im === true) return { kind: 'member' };
  if (info.is_private === true) return { kind: 'refused', refusal: 'private' };
  try {
    await client.conversations.join({ channel });
    return { kind: 'joined' };
  } catch (error) {
    // Without `channels:join` (an install from before it was asked for) someone has to invite it.
    return { kind: 'refused', refusal: channelRefusalOf(error) ?? 'not_in_channel' };
  }
}

const INVITE = '`/invite @cloud`';

/**
 * What the person can do about a refusal, to end a sentence that says what did not happen.
 * `channel` names another channel than the one the person typed in.
 */
export function channelRefusalHint(refusal: ChannelRefusal, channel?: string): string {
  const which = channel === undefined ? 'this channel' : `<#${channel}>`;
  const where = channel === undefined ? '' : ' there';
  switch (refusal) {
    case 'archived':
      return `${capitalized(which)} is archived, so I cannot post in it. Unarchive it or use another channel.`;
    case 'private':
      return `I am not a member of ${which === 'this channel' ? 'this private channel' : which}, so I cannot post in it. Invite @cloud${where} with ${INVITE}, then try again.`;
    case 'not_in_channel':
      return `I am not a member of ${which}, so I cannot post in it. Invite @cloud${where} with ${INVITE}, then try again.`;
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
