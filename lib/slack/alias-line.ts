import type { KnownBlock } from '@slack/types';
import { contextBlock } from '../slack-kit/blocks.js';
import { SLACK_LIMITS } from '../slack-kit/limits.js';
import type { Reply } from '../slack-kit/reply.js';
import { truncate } from '../truncate.js';

/**
 * The line that says which alias ran what, on top of an answer: the immediate one, and the
 * worker's later one for an alias whose command was handed off. Apart from the alias command so
 * the worker need not load the catalog to add it.
 */
/** The reply with the alias line on top; when its blocks are full, in its text only. */
export function withAliasLine(reply: Reply, line: string): Reply {
  const text = truncate(`${line}\n${reply.text}`, SLACK_LIMITS.messageText);
  const blocks: KnownBlock[] = [contextBlock(line), ...reply.blocks];
  const fits =
    reply.blocks.length > 0 &&
    blocks.length <= SLACK_LIMITS.blocksPerMessage &&
    JSON.stringify(blocks).length <= SLACK_LIMITS.messageBlocksSerialized;
  return fits ? { ...reply, text, blocks } : { ...reply, text };
}
