import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { WebClient } from '@slack/web-api';
import { findOperation } from '../api/operations/index.js';
import { effectiveApprovalPolicy } from '../changes/guardrails.js';
import type {
  ApprovalEvent,
  ApprovalSurface,
  BreakGlassAnnouncement,
  CardAccess,
  PostedCard,
} from '../changes/ports.js';
import type { ApprovalEnd, RequestFollower } from '../changes/runbooks.js';
import { contextBlock, type RenderedMessage, sectionBlock } from '../slack-kit/blocks.js';
import { channelRefusalOf, ensureBotCanPost } from '../slack-kit/channel-access.js';
import { codeSpan } from '../slack-kit/text.js';
import { inSlackTeam } from '../slack-kit/web-client.js';
import type { Approval, CardCopy, StepUpRequirement, Store } from '../store/index.js';
import type { Handoff } from '../worker/handoff.js';
import { approverGroupMembers } from './approver-groups.js';
import { isDeployOrWorkspaceAdmin } from './caller.js';
import { renderApprovalCard } from './render/approval.js';
import { approvalEventText, breakGlassAlarm } from './render/approval-events.js';

export { approverGroupMembers };

/**
 * Approval requests as Slack shows them: a card in the channel, updated in place, whose thread
 * keeps the trail. Implements the workflow's ports (`lib/changes/ports.ts`) on a Web API client.
 */

/**
 * With a `follower`, whatever waits on a request (a runbook's step) hears when it ends: denied,
 * cancelled, expired, in doubt or closed without a clean run.
 */
export function slackApprovalSurface(
  client: WebClient,
  deps: {
    readonly logger: Logger;
    readonly store: Store;
    readonly handoff?: Handoff;
    /** The deployment's admins (`APPROVAL_ADMINS`), who decide settings changes with the workspace's. */
    readonly approvalAdmins?: readonly string[];
  },
  follower?: RequestFollower,
): ApprovalSurface {
  const { logger } = deps;
  return {
    // Loaded on first use: a cold start's first answer does not wait for the Home renderer.
    // Where a hand-off exists (the Slack function, under Slack's 3 s), the worker publishes the
    // Homes; the worker and the reporter, which answer nobody, publish them in place.
    requestChanged: async (team, approvalId) =>
      deps.handoff
        ? (await import('./home-refresh.js')).republishRequestHomes(
            { handoff: deps.handoff, logger },
            team,
            approvalId,
            randomUUID(),
          )
        : (await import('./home.js')).refreshHomesFor(deps, client, team, approvalId),

    async canPostCard(channel: string): Promise<CardAccess> {
      const access = await ensureBotCanPost(client, channel);
      return access.kind === 'refused' ? access : { kind: 'open' };
    },

    postCard: async (approval) => postCard(client, logger, await withStepUp(deps, approval)),

    async markCardUnsaved(channel: string, ts: string): Promise<void> {
      await client.chat
        .update({
          channel,
          ts,
          text: 'This approval request could not be saved; ask again.',
          blocks: [
            sectionBlock(
              ':heavy_multiplication_x: This approval request could not be saved; nothing will run. Ask again.',
            ),
          ],
        })
        .catch(() => undefined);
    },

    async showCard(approval: Approval): Promise<boolean> {
      // Every copy says what the card says (a break-glass announcement in the audit channel).
      await Promise.all((approval.copies ?? []).map((copy) => updateCopy(client, logger, approval, copy)));
      if (!approval.messageTs) return true;
      const card = renderApprovalCard({ approval: await withStepUp(deps, approval) });
      return client.chat
        .update({ channel: approval.channel, ts: approval.messageTs, text: card.text, blocks: card.blocks })
        .then(
          () => true,
          (error: unknown) => {
            logger.warn('approval card not updated', { approvalId: approval.id, error });
            return false;
          },
        );
    },

    copyNotFollowed: (approval, copy) => copyNotFollowed(client, logger, approval, copy),

    async tell(approval, event): Promise<void> {
      if (!approval.messageTs) return;
      await client.chat
        .postMessage({
          channel: approval.channel,
          thread_ts: approval.messageTs,
          text: approvalEventText(event, approval),
        })
        .catch((error: unknown) =>
          logger.warn('approval thread not updated', { approvalId: approval.id, error }),
        );
      const end = runbookEndOf(event);
      if (follower && end) await follower.requestEnded(approval, end);
    },

    announceBreakGlass: (approval, announcement) =>
      announceBreakGlass(client, logger, approval, announcement),
    approverGroupMembers: (group) => approverGroupMembers(client, group),
    isAdmin: (user) => isDeployOrWorkspaceAdmin(client, deps.approvalAdmins, user),
    withinTeam: inSlackTeam,
  };
}

/**
 * A pending request with the proof its rule asks of whoever decides, for the card to say before
 * anyone clicks. The rule is read as it stands (it may change while the request waits); a card
 * whose rule cannot be read just leaves the line out.
 */
async function withStepUp(
  deps: { readonly logger: Logger; readonly store: Store },
  approval: Approval,
): Promise<Approval & { readonly stepUp?: StepUpRequirement }> {
  if (approval.status !== 'pending' || approval.breakGlass) return approval;
  const op = findOperation(approval.operationId);
  try {
    const policy = op
      ? (await effectiveApprovalPolicy(deps.store, approval.team, approval.channel, op)).policy
      : await deps.store.approvalPolicy.get(approval.team);
    return { ...approval, stepUp: policy.stepUp };
  } catch (error) {
    deps.logger.warn('approval card: rule not read for its step-up line', { approvalId: approval.id, error });
    return approval;
  }
}

/** The approval events that end a runbook step waiting on the request; none for the others. */
function runbookEndOf(event: ApprovalEvent): ApprovalEnd | undefined {
  switch (event.kind) {
    case 'denied':
    case 'cancelled':
      return { kind: event.kind, by: event.by };
    case 'expired':
      return { kind: 'expired' };
    case 'checking':
      return { kind: 'in_doubt' };
    case 'closed':
      // An approved run that answered goes on through `approvedStepRan`.
      return event.outcome === 'executed'
        ? undefined
        : { kind: 'closed', outcome: event.outcome, detail: event.detail };
    default:
      return undefined;
  }
}

async function postCard(client: WebClient, logger: Logger, approval: Approval): Promise<PostedCard> {
  const card = renderApprovalCard({ approval });
  try {
    const posted = await client.chat.postMessage({
      channel: approval.channel,
      text: card.text,
      blocks: card.blocks,
    });
    if (posted.ts && approval.viaAlias) {
      // The thread keeps the trail: it starts by saying the request came through an alias.
      await client.chat
        .postMessage({
          channel: approval.channel,
          thread_ts: posted.ts,
          text: `:link: <@${approval.requester}> asked for this via alias ${codeSpan(approval.viaAlias)}.`,
        })
        .catch((error: unknown) =>
          logger.warn('approval thread not started', { approvalId: approval.id, error }),
        );
    }
    return { kind: 'posted', ts: posted.ts };
  } catch (error) {
    logger.warn('approval card not posted', { approvalId: approval.id, error });
    return { kind: 'not_posted', certain: slackRefused(error), refusal: channelRefusalOf(error) };
  }
}

/**
 * Break-glass is loud: the alarm in the card's thread, and a copy of the card in the audit
 * channel, which is returned so that the request keeps it and `showCard` updates it.
 */
async function announceBreakGlass(
  client: WebClient,
  logger: Logger,
  approval: Approval,
  announcement: BreakGlassAnnouncement,
): Promise<CardCopy | undefined> {
  const loud = breakGlassAlarm(approval.channel, announcement);
  if (approval.messageTs) {
    await client.chat
      .postMessage({ channel: approval.channel, thread_ts: approval.messageTs, text: loud })
      .catch(() => undefined);
  }
  const channel = announcement.auditChannel;
  if (!channel) return undefined;
  const copy = renderCardCopy(approval);
  try {
    const posted = await client.chat.postMessage({
      channel,
      text: `${loud} — in <#${approval.channel}>: ${copy.text}`,
      blocks: copy.blocks,
    });
    return posted.ts ? { channel, ts: posted.ts } : undefined;
  } catch (error) {
    logger.warn('break-glass not posted to the audit channel', { error });
    return undefined;
  }
}

/** A copy of the card elsewhere: the card as it stands, under a line that says whose copy it is. */
function renderCardCopy(approval: Approval): RenderedMessage {
  const card = renderApprovalCard({ approval });
  return {
    text: `Copy of the card in <#${approval.channel}>: ${card.text}`,
    blocks: [contextBlock(`A copy of the card in <#${approval.channel}>, updated with it.`), ...card.blocks],
  };
}

async function updateCopy(client: WebClient, logger: Logger, approval: Approval, copy: CardCopy) {
  const rendered = renderCardCopy(approval);
  await client.chat
    .update({ channel: copy.channel, ts: copy.ts, text: rendered.text, blocks: rendered.blocks })
    .catch((error: unknown) =>
      logger.warn('copy of the card not updated', { approvalId: approval.id, error }),
    );
}

/**
 * A copy the request could not keep will never be updated: it says so, and where the outcome is
 * told, instead of a state ("starting") that would soon be untrue.
 */
async function copyNotFollowed(client: WebClient, logger: Logger, approval: Approval, copy: CardCopy) {
  const text =
    `:rotating_light: <@${approval.breakGlass?.user ?? approval.requester}> used break-glass in <#${approval.channel}>. ` +
    `This copy is not kept up to date: how it ends is on the card in <#${approval.channel}>.`;
  await client.chat
    .update({ channel: copy.channel, ts: copy.ts, text, blocks: [sectionBlock(text)] })
    .catch((error: unknown) => logger.warn('unfollowed copy not marked', { approvalId: approval.id, error }));
}

/** Slack answered with a refusal (or a rate limit): the message was certainly not posted. */
function slackRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'slack_webapi_platform_error' || code === 'slack_webapi_rate_limited_error';
}
