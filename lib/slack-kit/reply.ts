import type { KnownBlock } from '@slack/types';
import type { AnyOperation } from '../api/operation.js';
import { mrkdwnFallback, sectionBlock } from './blocks.js';

/**
 * What the bot answers a request with, whichever path the answer took (inline, the worker, an
 * approval): the same shape goes to `ack`, a response_url or the Web API.
 */
export interface Reply {
  readonly text: string;
  readonly blocks: KnownBlock[];
  /** Ephemeral replies are seen only by the person who asked. */
  readonly visibility: 'ephemeral' | 'in_channel';
  /** How the request ended, for metrics: answered unless handed to the worker or failed. */
  readonly outcome?: 'answered' | 'handed_off' | 'failed' | undefined;
  /** Already shown as a message of its own (a working note posted in the channel): nothing to send. */
  readonly shownElsewhere?: true;
}

/** Reads stay with the person who asked; changes are announced to the channel. */
export function visibilityOf(op: AnyOperation): Reply['visibility'] {
  if (op.sensitive || op.method === 'GET') return 'ephemeral';
  return 'in_channel';
}

/**
 * A sentence the bot composed (outside values escaped as it was built), for the asker alone, with
 * blocks to show under it (a Log in button).
 */
export function notice(text: string, extra: readonly KnownBlock[] = []): Reply {
  return { text: mrkdwnFallback(text), blocks: [sectionBlock(text), ...extra], visibility: 'ephemeral' };
}
