import type { KnownBlock } from '@slack/types';
import type { AnyOperation } from '../../api/operation.js';
import { SLASH_COMMAND } from '../../commands/registry.js';
import { contextBlock } from '../../slack-kit/blocks.js';
import { codeSpan, userMention } from '../../slack-kit/text.js';

/**
 * A change posted in a channel is the bot's message, so Slack shows the bot as its author: the
 * person who ran it is named under it, on the first post and on every update of a status watch.
 */

/** `:bust_in_silhouette: <@U…> ran `/cloud volumes create``. */
export function changeAuthorLine(user: string, op: Pick<AnyOperation, 'group' | 'action'>): string {
  return `:bust_in_silhouette: ${userMention(user)} ran ${codeSpan(`${SLASH_COMMAND} ${op.group} ${op.action}`)}`;
}

/**
 * The message with its author's line under it. The text is left as it is: it is also what the
 * outcome of an approved request quotes on its card, where the author is named already.
 */
export function withChangeAuthor(
  message: { readonly text: string; readonly blocks: readonly unknown[] },
  user: string,
  op: Pick<AnyOperation, 'group' | 'action'>,
): { text: string; blocks: KnownBlock[] } {
  return {
    text: message.text,
    // The renderers build nothing but Block Kit blocks.
    blocks: [...(message.blocks as readonly KnownBlock[]), contextBlock(changeAuthorLine(user, op))],
  };
}
