import type { KnownBlock } from '@slack/types';
import { CLASS_WORDS } from '../../changes/guardrails.js';
import type { ParsedCommand } from '../../commands/parse.js';
import { SLASH_COMMAND } from '../../commands/registry.js';
import {
  type AgentAccess,
  type AgentHomeChannels,
  accessOf,
  listAgents,
  type RevokeAgentOutcome,
  revokeAgent,
  type SlackbotHomeOutcome,
  setSlackbotHome,
} from '../../core/agents.js';
import { contextBlock, sectionBlock } from '../../slack-kit/blocks.js';
import { channelRefusalHint } from '../../slack-kit/channel-access.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { codeSpan, countOf } from '../../slack-kit/text.js';
import { slackApprovalSurface } from '../approval-surface.js';
import { callerOf } from '../caller.js';
import type { BotCommandContext } from '../context.js';
import { republishHome } from '../home-refresh.js';
import { accessWords, agentLine, agentName } from '../render/agents.js';
import { loginPrompt } from '../token-resolution.js';

/**
 * `/cloud agents [list]|revoke|slackbot`, and the Revoke button of the Home tab, as Slack shows
 * them. Whose agents a person sees and revokes and where Slackbot's home may be are the core's
 * (`lib/core/agents.ts`); this words the outcomes and keeps the person's Home up to date.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

const LINES_PER_SECTION = 10;
/** Agents one reply lists: about 250 characters a line keeps it far below Slack's message budget. */
const AGENTS_LISTED = 30;

export async function handleAgentsCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  switch (parsed.subcommand) {
    case 'revoke':
      return answerRevoke(context, parsed.args[0] ?? '');
    case 'slackbot':
      // Read as `read` or `change` by the parser (`ACCESS` is a choice of those words).
      return answerSlackbot(context, parsed.args[0] === 'change' ? 'change' : 'read');
    default:
      return answerList(context);
  }
}

// ---------------------------------------------------------------------------------------------
// list

async function answerList(context: BotCommandContext): Promise<Reply> {
  const agents = await listAgents(context.deps, callerOf(context));
  if (agents.length === 0) {
    return notice(
      ':robot_face: No agent acts for you. An MCP client (Claude Code, Cursor) is added when you sign it in; ' +
        `${codeSpan(`${SLASH_COMMAND} agents slackbot`)} in a channel lets your Slackbot act for you from there.`,
    );
  }
  const lines = agents
    .slice(0, AGENTS_LISTED)
    .map((grant, i) => `${i + 1}. ${agentLine(grant)} · id ${codeSpan(grant.id)}`);
  const blocks: KnownBlock[] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_SECTION) {
    const head = i === 0 ? '*Agents acting for you*\n' : '';
    blocks.push(sectionBlock(`${head}${lines.slice(i, i + LINES_PER_SECTION).join('\n')}`));
  }
  const more = agents.length - lines.length;
  blocks.push(
    contextBlock(
      ...(more > 0 ? [`…and ${more} more, numbers ${AGENTS_LISTED + 1} to ${agents.length}.`] : []),
      `Each acts with your linked token, under the guardrails and approvals of its home channel. ` +
        `${codeSpan(`${SLASH_COMMAND} agents revoke N`)} takes one away.`,
    ),
  );
  return {
    text: `${countOf(agents.length, 'agent')} acting for you`,
    blocks,
    visibility: 'ephemeral',
  };
}

// ---------------------------------------------------------------------------------------------
// revoke

async function answerRevoke(context: BotCommandContext, which: string): Promise<Reply> {
  return (await revokeAgentAs(context, which)).reply;
}

/**
 * `/cloud agents revoke WHICH` by the context's person, typed or clicked: the outcome, and its reply.
 * A revoke that took an agent (or found it taken) publishes the person's Home again.
 */
export async function revokeAgentAs(
  context: BotCommandContext,
  which: string,
): Promise<{ readonly outcome: RevokeAgentOutcome; readonly reply: Reply }> {
  const { deps, ctx } = context;
  const outcome = await revokeAgent(deps, callerOf(context), { which });
  if (outcome.kind === 'revoked' || outcome.kind === 'already_revoked') {
    await republishHome(deps, ctx.team, [ctx.user], ctx.correlationId);
  }
  return { outcome, reply: revokeReply(outcome) };
}

function revokeReply(outcome: RevokeAgentOutcome): Reply {
  switch (outcome.kind) {
    case 'revoked':
      return notice(
        `:wastebasket: Revoked ${agentName(outcome.grant)} (home <#${outcome.grant.homeChannel}>): ` +
          'it no longer acts for you, and its tokens stopped working.',
      );
    case 'already_revoked':
      return notice(`${agentName(outcome.grant)} was revoked already.`);
    case 'not_found':
      return notice(
        outcome.count === 0
          ? 'No agent acts for you: there is nothing to revoke.'
          : `You have no such agent. ${codeSpan(`${SLASH_COMMAND} agents`)} lists your ${outcome.count}, numbered.`,
      );
    case 'invalid_reference':
      return notice(
        `Name the agent by its number in ${codeSpan(`${SLASH_COMMAND} agents`)}, e.g. ${codeSpan(`${SLASH_COMMAND} agents revoke 2`)}, or by its id.`,
      );
    case 'refused':
      return notice('An agent cannot revoke agents: only the person it acts for can.');
  }
}

// ---------------------------------------------------------------------------------------------
// slackbot

/**
 * Where Slackbot's changes can become cards, as Slack says: a direct message is known by its id
 * (`D…`; channels are `C…` and private ones `G…`, as `lib/commands/slack-ids.ts` reads them), and
 * any other channel is checked as an approval card's is before it is posted.
 */
function slackHomeChannels(context: BotCommandContext): AgentHomeChannels {
  const cards = slackApprovalSurface(context.client, context.deps);
  return {
    canBeHome: async (channel) =>
      channel.startsWith('D') ? { kind: 'direct_message' } : cards.canPostCard(channel),
  };
}

async function answerSlackbot(context: BotCommandContext, access: AgentAccess): Promise<Reply> {
  const { deps, ctx } = context;
  const outcome = await setSlackbotHome(
    { ...deps, channels: slackHomeChannels(context) },
    callerOf(context),
    { access },
  );
  if (outcome.kind === 'granted') await republishHome(deps, ctx.team, [ctx.user], ctx.correlationId);
  return slackbotReply(outcome);
}

function slackbotReply(outcome: SlackbotHomeOutcome): Reply {
  switch (outcome.kind) {
    case 'granted': {
      const access = accessOf(outcome.grant);
      const what =
        access === 'change'
          ? 'it may read, and ask for changes: each becomes an approval card here, decided as yours are'
          : `it may read; ${codeSpan(`${SLASH_COMMAND} agents slackbot change`)} lets it ask for changes too`;
      const before = outcome.previous
        ? ` It acted from <#${outcome.previous.homeChannel}> before; it no longer does.`
        : '';
      return notice(
        `:robot_face: Your Slackbot acts for you from this channel now: ${what}, with your linked token.${before} ` +
          `${codeSpan(`${SLASH_COMMAND} agents revoke slackbot`)} stops it.`,
      );
    }
    case 'no_profile':
      return loginPrompt(
        `Slackbot acts with your linked token, and you have none yet. Run ${codeSpan(`${SLASH_COMMAND} login`)}, then this again.`,
      );
    case 'guardrails': {
      const allowed = outcome.allowedClasses.map((c) => CLASS_WORDS[c]).join(', ') || 'nothing';
      const instead =
        outcome.access === 'change' && outcome.allowedClasses.includes('read')
          ? ` ${codeSpan(`${SLASH_COMMAND} agents slackbot read`)} lets it read from here.`
          : '';
      return notice(
        `This channel's guardrails allow ${allowed} here, so Slackbot could not ${accessWords(outcome.access)} from it ` +
          `(${codeSpan(`${SLASH_COMMAND} policy`)} shows them). Run this in a channel that allows it.${instead}`,
      );
    }
    case 'direct_message':
      return notice(
        "Slackbot's home must be a channel: the changes it asks for become approval cards there, where the people who approve them see them. Run this in a channel.",
      );
    case 'channel_refused':
      return notice(
        `The changes Slackbot asks for become approval cards in its home channel. ${channelRefusalHint(outcome.refusal)}`,
      );
    case 'refused':
      return notice('An agent cannot grant Slackbot anything: only the person it acts for can.');
  }
}
