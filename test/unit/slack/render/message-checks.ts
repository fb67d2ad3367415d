import type { KnownBlock } from '@slack/types';
import { expect } from 'vitest';
import { describeProblem, validateMessage } from '../../../../infra/local/slack/block-kit-validator.js';
import { serializedBlocksLength } from '../../../../lib/slack-kit/limits.js';

/** What the renderers return. */
export interface Message {
  text: string;
  blocks: KnownBlock[];
}

/** Slack's own rules (limits.ts), plus unique action ids per block, which Slack also enforces. */
export function problemsOf(message: Message): string[] {
  const problems = validateMessage(message).map(describeProblem);
  message.blocks.forEach((block, index) => {
    if (block.type !== 'actions') return;
    const ids = block.elements.map((e) => ('action_id' in e ? e.action_id : undefined)).filter(Boolean);
    if (new Set(ids).size !== ids.length) problems.push(`duplicate action_id in /blocks/${index}`);
  });
  return problems;
}

export function expectSendable(message: Message): void {
  expect(problemsOf(message)).toEqual([]);
  expect(serializedBlocksLength(message.blocks)).toBeLessThan(12_000);
  expect(message.text.length).toBeGreaterThan(0);
}

export interface Interactive {
  type: string;
  action_id?: string;
  value?: string;
  style?: string;
  text?: { text: string };
  confirm?: {
    title?: { text: string };
    text: { text: string };
    confirm?: { text: string };
    deny?: { text: string };
  };
  options?: { text: { text: string }; value?: string }[];
}

/** Every button and overflow menu of a message, in block order. */
export function interactiveElements(message: Message): Interactive[] {
  const found: Interactive[] = [];
  for (const block of message.blocks) {
    if (block.type === 'actions') found.push(...(block.elements as unknown as Interactive[]));
    if (block.type === 'section' && block.accessory && block.accessory.type !== 'image') {
      found.push(block.accessory as unknown as Interactive);
    }
  }
  return found;
}

export function buttons(message: Message): Interactive[] {
  return interactiveElements(message).filter((e) => e.type === 'button');
}

export function buttonLabeled(message: Message, label: string): Interactive | undefined {
  return buttons(message).find((b) => b.text?.text === label);
}

/** All text of a message, for "never shows X" checks. */
export function everything(message: Message): string {
  return JSON.stringify(message);
}

/** The mrkdwn and plain texts of the blocks, joined. */
export function visibleText(message: Message): string {
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if ((record.type === 'mrkdwn' || record.type === 'plain_text') && typeof record.text === 'string') {
        texts.push(record.text);
      }
      Object.entries(record).forEach(([key, nested]) => {
        if (key !== 'value') walk(nested);
      });
    }
  };
  walk(message.blocks);
  return texts.join('\n');
}
