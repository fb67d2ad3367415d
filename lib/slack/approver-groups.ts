import type { WebClient } from '@slack/web-api';
import type { GroupMembers } from '../changes/ports.js';
import { rateLimitedFor, slackErrorOf } from '../slack-kit/slack-refusals.js';

/**
 * Who is in an approver user group, as Slack says (`usergroups.users.list`), for the approval
 * card's eligibility checks and for finding whose Home a request concerns. A group Slack would
 * not list is said to be so, never taken for an empty group.
 */
export async function approverGroupMembers(client: WebClient, group: string): Promise<GroupMembers> {
  try {
    const answer = await client.usergroups.users.list({ usergroup: group });
    return { kind: 'members', users: answer.users ?? [] };
  } catch (error) {
    const retryAfterSeconds = rateLimitedFor(error);
    if (retryAfterSeconds !== undefined) return { kind: 'rate_limited', retryAfterSeconds };
    const slackError = slackErrorOf(error);
    if (slackError === 'plan_upgrade_required') return { kind: 'plan' };
    if (slackError === 'no_such_subteam') return { kind: 'no_such_group' };
    return { kind: 'unreadable' };
  }
}
