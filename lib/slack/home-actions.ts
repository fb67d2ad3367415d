import type { WebClient } from '@slack/web-api';
import type { BotDeps, RequestContext } from './context.js';
import { publishHome, ReportButtonSchema } from './home.js';
import { decodeActionValue } from './interactions.js';
import { notice, type Reply } from './reply.js';
import { handleReportsCommand } from './reports-command.js';

/**
 * What a click on a Home tab's report button does: the same as `/cloud reports pause|resume|run
 * ID` typed in the report's own channel (the same checks: owner or admin, the token, the bot in
 * the channel), then the clicker's Home is published again to show the report as it now stands.
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
  const sub = await deps.store.reports.get(ctx.team, button.r);
  if (!sub) return notice('That report no longer exists.');
  const reply = await handleReportsCommand(
    { deps, ctx: { ...ctx, channel: sub.channel }, client },
    { kind: 'bot', command: 'reports', subcommand: button.c, args: [sub.id], flags: {} },
  );
  await publishHome(deps, client, ctx.team, ctx.user);
  return reply;
}
