import { catalog } from '../../commands/catalog.js';
import { parseFront } from '../../commands/parse/front.js';
import { isStorageUnavailable } from '../../store/errors.js';
import type { BotDeps, RequestContext } from '../context.js';

/**
 * Slack may deliver one request twice (a retry after a slow answer, a replayed payload): the
 * stable id of the delivery is claimed once, and a repeat does nothing. Conditional writes keep
 * approvals exact anyway; this keeps a repeated "Boot" or "Create" from running twice. The claim
 * stays in the Slack surface: it is about how Slack delivers requests, not a rule of the bot, and
 * another surface claims its own deliveries its own way.
 */
async function isFirstDelivery(deps: BotDeps, key: string): Promise<boolean> {
  return deps.store.deliveries.claimOnce(key);
}

/**
 * Help and malformed commands change nothing and need no storage, so they are answered even when
 * the claim cannot be made; everything else needs storage next anyway.
 */
export async function isFirstCommandDelivery(
  deps: BotDeps,
  ctx: RequestContext,
  command: { trigger_id: string; text: string },
): Promise<boolean> {
  try {
    return await isFirstDelivery(deps, `command:${ctx.team}:${command.trigger_id}`);
  } catch (error) {
    if (!isStorageUnavailable(error)) throw error;
    const front = parseFront(command.text, catalog);
    // Whether an operation's arguments are malformed takes its schema, loaded only here.
    const kind =
      front.kind === 'operation-args'
        ? (await import('../../commands/parse.js')).parseCommand(command.text).kind
        : front.kind;
    if (kind === 'help' || kind === 'error') return true;
    throw error;
  }
}

export async function isFirstClick(deps: BotDeps, ctx: RequestContext, action: object): Promise<boolean> {
  const { action_ts: at, action_id: id } = action as { action_ts?: unknown; action_id?: unknown };
  if (typeof at !== 'string' || typeof id !== 'string') return true;
  try {
    return await isFirstDelivery(deps, `click:${ctx.team}:${ctx.user}:${id}:${at}`);
  } catch (error) {
    // Without the claim table nothing else works either; the listener reports that itself.
    deps.logger.error('delivery claim failed', { correlationId: ctx.correlationId, error });
    return true;
  }
}
