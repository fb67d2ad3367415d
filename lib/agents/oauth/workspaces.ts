import type { WebClient } from '@slack/web-api';
import { ensureBotCanPost } from '../../slack-kit/channel-access.js';
import { slackErrorOf } from '../../slack-kit/slack-refusals.js';
import type { BotTokens } from '../../slack-kit/web-client.js';
import type { OfferedChannel } from '../../store/agent-authorizations.js';
import { MAX_OFFERED_CHANNELS } from '../../store/agent-authorizations.js';

/**
 * What the consent page asks of Slack, through the bot's own client in the person's workspace:
 * whether the bot is installed there at all (a person may only sign an agent in where the bot can
 * carry out what it asks), and the channels that can be the agent's home channel, where its
 * changes wait for approval: those the bot and the person are both members of (not archived), so
 * the bot can post the cards there and the person sees them.
 *
 * Both are Web API calls with the bot token (`users.conversations`, scopes `channels:read` and
 * `groups:read`, Tier 3): once with `user` set to the person, which lists their public channels and
 * the private ones the bot shares with them ("Non-public channels are restricted to those where
 * the calling user shares membership", docs.slack.dev/reference/methods/users.conversations), and
 * once without, which lists the bot's own. The channel chosen is checked again on consent with
 * `ensureBotCanPost` (`lib/slack-kit/channel-access.ts`), as every other channel the bot is asked
 * to post in.
 */

export interface BotWorkspaces {
  /** The bot's client in `team`, or undefined when the bot is not installed there. */
  botIn(team: string): Promise<WebClient | undefined>;
}

/** Over the bot tokens the functions already keep (`lib/runtime.ts` `SlackAccess.botTokens`). */
export function botWorkspaces(botTokens: BotTokens, slackApiUrl?: string): BotWorkspaces {
  return {
    async botIn(team) {
      let token: string;
      try {
        token = await botTokens.tokenFor(team);
      } catch {
        // No installation for the team (or its token expired beyond refresh): not installed.
        return undefined;
      }
      // Loaded here, not with the function: only a sign-in reaches it, and it brings the Web API client.
      const { createSlackWebClient } = await import('../../slack-kit/web-client.js');
      const client = createSlackWebClient(token, slackApiUrl);
      // One workspace's bot has one token whatever team is asked: Slack says whose it is.
      const answer = await client.auth.test();
      return answer.team_id === team || answer.is_enterprise_install === true ? client : undefined;
    },
  };
}

/** At most this many pages of 200 per listing: a person in more channels picks from the first. */
const MAX_PAGES = 5;

interface ListedChannel {
  readonly id?: string;
  readonly name?: string;
  readonly is_archived?: boolean;
}

async function conversationsOf(client: WebClient, user: string | undefined): Promise<ListedChannel[]> {
  const channels: ListedChannel[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await client.users.conversations({
      ...(user === undefined ? {} : { user }),
      types: 'public_channel,private_channel',
      exclude_archived: true,
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
    channels.push(...((answer.channels ?? []) as ListedChannel[]));
    cursor = answer.response_metadata?.next_cursor;
    if (!cursor) break;
  }
  return channels;
}

/** Channels both the bot and `user` are in, by name; or the Slack error that stopped the listing. */
export async function homeChannelChoices(
  client: WebClient,
  user: string,
): Promise<readonly OfferedChannel[] | { readonly error: string }> {
  try {
    const [theirs, bots] = await Promise.all([
      conversationsOf(client, user),
      conversationsOf(client, undefined),
    ]);
    const botIn = new Set(bots.map((channel) => channel.id));
    return theirs
      .filter((channel) => channel.id !== undefined && botIn.has(channel.id) && channel.is_archived !== true)
      .map((channel) => ({ id: String(channel.id), name: String(channel.name ?? channel.id) }))
      .sort((a, b) => a.name.localeCompare(b.name))
      .slice(0, MAX_OFFERED_CHANNELS);
  } catch (error) {
    return { error: slackErrorOf(error) ?? 'no_answer' };
  }
}

/** Whether the bot can still post in the chosen channel (it may have been removed meanwhile). */
export async function botCanPostIn(client: WebClient, channel: string): Promise<boolean> {
  const access = await ensureBotCanPost(client, channel);
  return access.kind === 'member' || access.kind === 'joined';
}
