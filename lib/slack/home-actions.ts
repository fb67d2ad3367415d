import type { WebClient } from '@slack/web-api';
import { decodeActionValue } from '../slack-kit/interactions.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import { revokeAgentAs } from './bot-commands/agents.js';
import { answerReportChange } from './bot-commands/reports.js';
import type { BotDeps, RequestContext } from './context.js';
import { AgentButtonSchema, ReportButtonSchema } from './home.js';
import { republishHome } from './home-refresh.js';

/**
 * What a click on a Home tab's report button does: the same as `/cloud reports pause|resume|run
 * ID` typed in the report's own channel (the same core rules: owner or admin, the token, the bot
 * in the channel). A change re-publishes the Homes of the report's owner and the clicker (as when
 * typed; a run once the worker has run it); a click that changed nothing (a report paused
 * already, one gone) re-publishes the clicker's, whose Home was out of date.
 * A Home click has no channel and no `response_url`; the answer is returned for the listener to
 * send to the clicker's direct messages with the app.
 */
export async function answerHomeReportButton(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  value: string | undefined,
): Promise<Reply | undefined> {
  const button = decodeActionValue(ReportButtonSchema, value);
  if (!button) return notice('That button is out of date. Open the Home tab again.');
  const answer = await answerReportChange({ deps, ctx, client }, button.c, { id: button.r });
  const changedOrHandedOff = answer.effect === 'changed' || answer.effect === 'handed_off';
  if (!changedOrHandedOff) await republishHome(deps, ctx.team, [ctx.user], ctx.correlationId);
  return answer.effect === 'no_report' ? notice('That report no longer exists.') : answer.reply;
}

/**
 * What a click on an agent's Revoke on the Home tab does: the same as `/cloud agents revoke ID`
 * (the same core rule: the clicker's own agents only). Its Home is published again whatever the
 * click found: a revoke publishes it, and a Home that offered an agent already gone was out of date.
 */
export async function answerHomeAgentButton(
  deps: BotDeps,
  ctx: RequestContext,
  client: WebClient,
  value: string | undefined,
): Promise<Reply | undefined> {
  const button = decodeActionValue(AgentButtonSchema, value);
  if (!button) return notice('That button is out of date. Open the Home tab again.');
  const { outcome, reply } = await revokeAgentAs({ deps, ctx, client }, button.g);
  if (outcome.kind === 'revoked' || outcome.kind === 'already_revoked') return reply;
  await republishHome(deps, ctx.team, [ctx.user], ctx.correlationId);
  return outcome.kind === 'not_found' ? notice('That agent no longer acts for you.') : reply;
}
