import type { SlackStandInOptions } from '../../infra/local/slack/server.js';
import { DEFAULT_SLACK_SEED, type SlackChannel, type SlackUser } from '../../infra/local/slack/store.js';

/**
 * The Slack stand-in knows only the channels and people it was seeded with, as a real workspace
 * does: a test that posts in its own channel, or makes the bot message its own people, seeds them
 * here. Channels have the bot and every seeded person as members.
 */
export interface SlackFixtures {
  /** Public channel ids, the bot a member of each. */
  readonly channels?: readonly string[];
  /** User ids besides the seeded ones (Ada, Alice, Bob). */
  readonly people?: readonly string[];
}

export function slackFixtures(fixtures: SlackFixtures): Pick<SlackStandInOptions, 'seed' | 'channels'> {
  const people: SlackUser[] = (fixtures.people ?? []).map((id) => ({
    id,
    name: id.slice(2).toLowerCase(),
    real_name: id.slice(2),
    is_admin: false,
    is_owner: false,
    is_bot: false,
    tz: 'UTC',
    tz_offset: 0,
  }));
  const channels: SlackChannel[] = (fixtures.channels ?? []).map((id) => ({
    id,
    name: id.slice(2).toLowerCase(),
    is_private: false,
    is_im: false,
  }));
  return { seed: { ...DEFAULT_SLACK_SEED, users: [...DEFAULT_SLACK_SEED.users, ...people] }, channels };
}
