import type { Logger } from '@aws-lambda-powertools/logger';
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import { mayDecide, policyInForce } from '../changes/decisions.js';
import type { GroupMembers } from '../changes/ports.js';
import { standingOf } from '../changes/request-standing.js';
import { actionsBlock, confirmDialog, contextBlock, headerBlock, sectionBlock } from '../slack-kit/blocks.js';
import { ActionId } from '../slack-kit/interaction-ids.js';
import { SLACK_LIMITS } from '../slack-kit/limits.js';
import { rateLimitedFor, slackErrorOf } from '../slack-kit/slack-refusals.js';
import {
  bold,
  codeSpan,
  escapeKeepingMentions,
  escapeMrkdwn,
  slackDate,
  userMention,
} from '../slack-kit/text.js';
import type {
  AgentGrant,
  Approval,
  ApprovalPolicy,
  ReportSubscription,
  Store,
  TokenLink,
} from '../store/index.js';
import { truncate } from '../truncate.js';
import { approverGroupMembers } from './approver-groups.js';
import { isDeployOrWorkspaceAdmin } from './caller.js';
import { agentLine, plainAgentName } from './render/agents.js';
import { requestWords, runbookWords, voteButtons } from './render/approval.js';
import { standingLine } from './render/request-standing.js';
import '../zod-settings.js';

/**
 * Each person's App Home tab: the requests waiting for their vote (with the card's own Approve and
 * Deny buttons, so the same listeners decide them), their own requests and how they stand, their
 * linked profiles, the agents acting for them with Revoke, and the reports they own with Pause /
 * Resume / Run. Published with
 * `views.publish` when they open the tab, whenever a request of theirs, or one they may vote
 * on, changes, and when their profiles or reports change (`home-refresh.ts`). A Home view holds at most 100 blocks: each section shows a fixed number of items
 * and says how many more there are and which command lists them.
 */

/** What a Home needs: the store to read, and a log for what Slack refused. */
export interface HomeDeps {
  readonly store: Store;
  readonly logger: Logger;
  /** The deployment's admins (`APPROVAL_ADMINS`), who decide settings changes with the workspace's. */
  readonly approvalAdmins?: readonly string[];
}

/**
 * Items shown per section. Two blocks per waiting request and per report (a line and its
 * buttons), one per own request, per profile and per agent (its Revoke button is the line's
 * accessory); with the headers, dividers and "more" lines the view stays at or under
 * `SLACK_LIMITS.blocksPerView` whatever the counts (a test checks the sum). A person has a few
 * agents; `/cloud agents` lists them all.
 */
/** A reason on Home is cut shorter than on the card: a section holds 3,000 characters. */
const HOME_REASON_MAX = 300;

export const HOME_SECTION_LIMITS = { waiting: 20, own: 10, profiles: 8, agents: 5, reports: 10 } as const;

/** People whose Home one change re-publishes at most: `views.publish` is Tier 4 (100 a minute). */
export const HOME_REFRESH_MAX_PEOPLE = 10;

/** A report button's value on Home: which subscription, and what to do with it. */
export const ReportButtonSchema = z.object({
  r: z.string().min(1).max(100),
  c: z.enum(['pause', 'resume', 'run']),
});
export type ReportButton = z.infer<typeof ReportButtonSchema>;

/** An agent's Revoke button on Home: the grant's id, as the store keys it. */
export const AgentButtonSchema = z.object({ g: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });
export type AgentButton = z.infer<typeof AgentButtonSchema>;

/** Everything one Home shows, read from the store (and Slack for approver groups). */
export interface HomeContent {
  readonly user: string;
  /** Pending requests this person may approve or deny, oldest first. */
  readonly waiting: readonly Approval[];
  /** Their own requests, newest first. */
  readonly own: readonly Approval[];
  /**
   * Others' requests that concern them, decided: those they voted on or denied, and break-glass
   * runs of a channel whose approvers they are (they were told of the run). Newest first.
   */
  readonly concerning?: readonly Approval[];
  /** False when the workspace has more requests than one Home reads: the lists may miss some. */
  readonly complete: boolean;
  readonly profiles: readonly TokenLink[];
  readonly activeProfile: string | undefined;
  /** The agents acting for them, oldest first. */
  readonly agents: readonly AgentGrant[];
  readonly reports: readonly ReportSubscription[];
}

export type HomePublish =
  | { readonly kind: 'published'; readonly blocks: number }
  /** Slack asked to slow down: nothing is retried, the next open or change publishes again. */
  | { readonly kind: 'rate_limited'; readonly retryAfterSeconds: number }
  | { readonly kind: 'refused'; readonly error: string };

// ---------------------------------------------------------------------------------------------
// gathering

export async function gatherHome(
  deps: HomeDeps,
  client: WebClient,
  team: string,
  user: string,
): Promise<HomeContent> {
  const [requests, links, agents, reports] = await Promise.all([
    deps.store.approvals.listForPerson(team, user),
    deps.store.tokenLinks.listLinks(team, user),
    deps.store.agentGrants.listFor(team, user),
    deps.store.reports.list(team, { owner: user }),
  ]);
  const groups = new Map<string, Promise<GroupMembers>>();
  const surface = {
    approverGroupMembers: (group: string) => {
      let members = groups.get(group);
      if (!members) {
        members = approverGroupMembers(client, group);
        groups.set(group, members);
      }
      return members;
    },
    // Admins decide settings changes: asked of Slack once per Home, for such a request only.
    isAdmin: (() => {
      let asked: Promise<boolean> | undefined;
      return async (who: string) => {
        asked ??= isDeployOrWorkspaceAdmin(client, deps.approvalAdmins, who)
          // Not known: Home leaves such a request out, and a click on its card would say why.
          .catch(() => false);
        return asked;
      };
    })(),
  };
  // The rule in force depends on the channel and the operation only: read once per pair.
  const policies = new Map<string, ReturnType<typeof policyInForce>>();
  const policyOf = (approval: Approval) => {
    const where = `${approval.channel} ${approval.operationId}`;
    let policyRead = policies.get(where);
    if (!policyRead) {
      policyRead = policyInForce(deps, approval);
      policies.set(where, policyRead);
    }
    return policyRead;
  };
  const waiting: Approval[] = [];
  for (const approval of requests.pending) {
    if (approval.approvals.some((vote) => vote.user === user)) continue;
    const policy = await policyOf(approval);
    // An approver group Slack would not list leaves the request out: Home shows only what the
    // person can be told they may decide (a click on the card would say why not).
    if ((await mayDecide(surface, policy, approval, user)) === undefined) waiting.push(approval);
  }
  const concerning: Approval[] = [];
  for (const approval of requests.others) {
    if (approval.approvals.some((vote) => vote.user === user) || approval.deniedBy?.user === user) {
      concerning.push(approval);
    } else if (approval.breakGlass && (await approverOf(surface, await policyOf(approval), user))) {
      concerning.push(approval);
    }
  }
  return {
    user,
    waiting,
    own: requests.own,
    concerning,
    complete: requests.complete,
    profiles: links.links,
    activeProfile: links.activeProfile,
    agents,
    reports: [...reports].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()),
  };
}

/** Whether the policy names `user` as an approver, by name or through its group: they hear its break-glass. */
async function approverOf(
  surface: { approverGroupMembers(group: string): Promise<GroupMembers> },
  policy: ApprovalPolicy,
  user: string,
): Promise<boolean> {
  if (policy.approverUsers.includes(user)) return true;
  if (!policy.approverGroup) return false;
  const members = await surface.approverGroupMembers(policy.approverGroup);
  return members.kind === 'members' && members.users.includes(user);
}

// ---------------------------------------------------------------------------------------------
// rendering

export function renderHome(content: HomeContent, now: Date): { type: 'home'; blocks: KnownBlock[] } {
  const blocks: KnownBlock[] = [];
  const limits = HOME_SECTION_LIMITS;

  blocks.push(headerBlock('Waiting for your vote'));
  if (content.waiting.length === 0) blocks.push(contextBlock('Nothing is waiting for you.'));
  for (const approval of content.waiting.slice(0, limits.waiting)) blocks.push(...waitingItem(approval));
  moreLine(blocks, content.waiting.length - limits.waiting, 'request', '`/cloud approvals list`');

  // Their own requests and the decided ones of others that concern them, in one list: how each
  // ended reads the same as on its card.
  const listed = [...content.own, ...(content.concerning ?? [])].sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime(),
  );
  blocks.push({ type: 'divider' }, headerBlock('Your requests and votes'));
  if (listed.length === 0) blocks.push(contextBlock('You have asked for nothing lately.'));
  for (const approval of listed.slice(0, limits.own)) blocks.push(listedItem(approval, content.user));
  moreLine(blocks, listed.length - limits.own, 'older request', 'the cards in their channels');
  if (!content.complete) {
    blocks.push(contextBlock('This workspace has more requests than Home reads at once; some may not show.'));
  }

  blocks.push({ type: 'divider' }, headerBlock('Your profiles'));
  if (content.profiles.length === 0) blocks.push(contextBlock('No token linked: `/cloud login` links one.'));
  for (const link of content.profiles.slice(0, limits.profiles))
    blocks.push(profileItem(link, content.activeProfile, now));
  moreLine(blocks, content.profiles.length - limits.profiles, 'profile', '`/cloud whoami`');

  blocks.push({ type: 'divider' }, headerBlock('Agents acting for you'));
  if (content.agents.length === 0) {
    blocks.push(
      contextBlock(
        'No agent acts for you: `/cloud agents slackbot` in a channel lets your Slackbot act for you there.',
      ),
    );
  }
  for (const grant of content.agents.slice(0, limits.agents)) blocks.push(agentItem(grant));
  moreLine(blocks, content.agents.length - limits.agents, 'agent', '`/cloud agents`');

  blocks.push({ type: 'divider' }, headerBlock('Your reports'));
  if (content.reports.length === 0)
    blocks.push(contextBlock('You own no reports: `/cloud reports add` in a channel starts one.'));
  for (const sub of content.reports.slice(0, limits.reports)) blocks.push(...reportItem(sub));
  moreLine(
    blocks,
    content.reports.length - limits.reports,
    'report',
    '`/cloud reports list` in their channels',
  );

  return { type: 'home', blocks };
}

function moreLine(blocks: KnownBlock[], more: number, noun: string, where: string): void {
  if (more > 0) blocks.push(contextBlock(`…and ${more} more ${noun}${more === 1 ? '' : 's'}: ${where}.`));
}

function requestTitle(approval: Approval): string {
  const { phrase, named } = requestWords({ ...approval, summary: truncate(approval.summary, 200) });
  return `${escapeMrkdwn(phrase)} ${named}`;
}

function waitingItem(approval: Approval): KnownBlock[] {
  // The approver decides on the reason too: it is the card's, shown here as there.
  const reason = approval.reason
    ? `\n*Reason:* “${escapeMrkdwn(truncate(approval.reason, HOME_REASON_MAX))}”`
    : '';
  const text =
    `${requestTitle(approval)}${runbookWords(approval.viaRunbook)}\nAsked by ${userMention(approval.requester)} in <#${approval.channel}> · ` +
    `${approval.approvals.length} of ${approval.requiredApprovals} approvals · expires ${slackDate(approval.decideBy, 'at')}${reason}`;
  const buttons = voteButtons(approval, { withCancel: false });
  return buttons ? [sectionBlock(text), buttons] : [sectionBlock(text)];
}

/**
 * How a request stands, in the words its card, thread and every other surface use
 * (`standingLine`), with who denied or cancelled it.
 */
export function requestState(approval: Approval): string {
  const line = standingLine(standingOf(approval));
  const by = approval.deniedBy ?? approval.cancelledBy;
  return by ? `${line} (by ${userMention(by.user)})` : line;
}

/** One of their requests, or another's that concerns them, and how it stands. */
function listedItem(approval: Approval, user: string): KnownBlock {
  const asked = approval.breakGlass ? 'run' : 'asked';
  const who = approval.requester === user ? '' : ` by ${userMention(approval.requester)}`;
  return sectionBlock(
    `${requestTitle(approval)} in <#${approval.channel}> · ${requestState(approval)} · ` +
      `${asked}${who} ${slackDate(approval.createdAt)}`,
  );
}

function profileItem(link: TokenLink, active: string | undefined, now: Date): KnownBlock {
  const marks = [
    link.profile === (active ?? 'default') ? 'active' : undefined,
    link.status === 'invalid' ? ':warning: rejected by the API: `/cloud login` again' : undefined,
  ].filter((mark): mark is string => mark !== undefined);
  const expiry =
    link.expiry === null
      ? 'does not expire'
      : link.expiry <= now
        ? `expired ${slackDate(link.expiry)}`
        : `expires ${slackDate(link.expiry, 'at')}`;
  const scopes = truncate(link.scopes, 500);
  return sectionBlock(
    `${codeSpan(link.profile)}${marks.length > 0 ? ` (${marks.join(', ')})` : ''} · ` +
      `${escapeMrkdwn(truncate(link.apiUsername, 100))} · scopes ${codeSpan(scopes)} · ${expiry}`,
  );
}

/** An agent's line, with Revoke beside it (asking first: the agent's sign-in ends at once). */
function agentItem(grant: AgentGrant): KnownBlock {
  return sectionBlock(agentLine(grant), {
    type: 'button',
    action_id: ActionId.homeAgent,
    text: { type: 'plain_text', text: 'Revoke' },
    style: 'danger',
    value: JSON.stringify({ g: grant.id } satisfies AgentButton),
    confirm: confirmDialog({
      title: 'Revoke this agent?',
      text: `${plainAgentName(grant)} will no longer act for you, and its tokens stop working at once.`,
      confirm: 'Revoke',
      style: 'danger',
    }),
  });
}

function reportButton(sub: ReportSubscription, change: ReportButton['c'], label: string) {
  return {
    type: 'button' as const,
    action_id: ActionId.homeReport,
    text: { type: 'plain_text' as const, text: label },
    value: JSON.stringify({ r: sub.id, c: change } satisfies ReportButton),
  };
}

function reportItem(sub: ReportSubscription): KnownBlock[] {
  const state = sub.paused
    ? `:double_vertical_bar: paused${sub.pauseReason ? ` (${escapeKeepingMentions(truncate(sub.pauseReason, 200))})` : ''}`
    : `next run ${slackDate(sub.nextRunAt)}`;
  const last = sub.lastRun ? ` · last run ${slackDate(sub.lastRun.at)} ${sub.lastRun.status}` : '';
  const text = `${bold(sub.kind)} report ${codeSpan(sub.id.slice(0, 8))} in <#${sub.channel}> · ${state}${last}`;
  const buttons = actionsBlock(
    sub.paused
      ? [reportButton(sub, 'resume', 'Resume')]
      : [reportButton(sub, 'pause', 'Pause'), reportButton(sub, 'run', 'Run now')],
  );
  return buttons ? [sectionBlock(text), buttons] : [sectionBlock(text)];
}

// ---------------------------------------------------------------------------------------------
// publishing

/**
 * Gathers and publishes `user`'s Home. Never throws for Slack's refusals: a 429 is not retried (a
 * Lambda cannot wait it out; the next open or change publishes again) and is reported as such.
 */
export async function publishHome(
  deps: HomeDeps,
  client: WebClient,
  team: string,
  user: string,
): Promise<HomePublish> {
  const content = await gatherHome(deps, client, team, user);
  const view = renderHome(content, deps.store.now());
  try {
    await client.views.publish({ user_id: user, view });
    return { kind: 'published', blocks: view.blocks.length };
  } catch (error) {
    const retryAfterSeconds = rateLimitedFor(error);
    if (retryAfterSeconds !== undefined) {
      deps.logger.warn('home not published: rate limited', { user, retryAfterSeconds });
      return { kind: 'rate_limited', retryAfterSeconds };
    }
    const slackError = slackErrorOf(error);
    if (slackError === undefined) throw error;
    deps.logger.warn('home not published', { user, error: slackError });
    return { kind: 'refused', error: slackError };
  }
}

/**
 * A request changed: the Homes of the people it concerns are published again — its requester,
 * who voted or decided, and the approvers the policy names (a group's members when Slack lists
 * them). A policy of "anyone" names nobody: their Homes catch up when they next open them. At most
 * `HOME_REFRESH_MAX_PEOPLE`, and the first 429 stops the rest. Never throws.
 */
export async function refreshHomesFor(
  deps: HomeDeps,
  client: WebClient,
  team: string,
  approvalId: string,
): Promise<void> {
  try {
    const approval = await deps.store.approvals.get(team, approvalId);
    if (!approval) return;
    const people = new Set<string>([approval.requester]);
    for (const vote of approval.approvals) people.add(vote.user);
    if (approval.deniedBy) people.add(approval.deniedBy.user);
    const policy = await policyInForce(deps, approval);
    for (const approver of policy.approverUsers) people.add(approver);
    if (policy.approverGroup) {
      const members = await approverGroupMembers(client, policy.approverGroup);
      if (members.kind === 'members') for (const member of members.users) people.add(member);
    }
    await refreshHomes(deps, client, team, [...people]);
  } catch (error) {
    deps.logger.warn('homes not refreshed', {
      team,
      approvalId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * Publishes again the Homes of `users` (the first `HOME_REFRESH_MAX_PEOPLE` of them), one after
 * the other; the first 429 stops the rest, which catch up at their next open or change. Never
 * throws: a failed read or refusal is logged by its name only (no token or view in the log).
 */
export async function refreshHomes(
  deps: HomeDeps,
  client: WebClient,
  team: string,
  users: readonly string[],
): Promise<void> {
  for (const user of [...new Set(users)].slice(0, HOME_REFRESH_MAX_PEOPLE)) {
    try {
      const outcome = await publishHome(deps, client, team, user);
      if (outcome.kind === 'rate_limited') return;
    } catch (error) {
      deps.logger.warn('home not refreshed', { team, user, error: errorName(error) });
    }
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

/** The largest Home `renderHome` can make, whatever the counts. */
export const HOME_MAX_BLOCKS =
  // 5 headers, 4 dividers, 5 "more" lines, 1 "incomplete" line
  5 +
  4 +
  5 +
  1 +
  HOME_SECTION_LIMITS.waiting * 2 +
  HOME_SECTION_LIMITS.own +
  HOME_SECTION_LIMITS.profiles +
  HOME_SECTION_LIMITS.agents +
  HOME_SECTION_LIMITS.reports * 2;

// Checked where it is defined: a change of the limits that would break Slack's cap fails to load.
if (HOME_MAX_BLOCKS > SLACK_LIMITS.blocksPerView) throw new Error('Home sections exceed Slack’s 100 blocks');
