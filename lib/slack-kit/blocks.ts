import type {
  ActionsBlock,
  ActionsBlockElement,
  Button,
  ConfirmationDialog,
  ContextBlock,
  HeaderBlock,
  KnownBlock,
  Overflow,
  PlainTextOption,
  SectionBlock,
  SectionBlockAccessory,
} from '@slack/types';
import { truncate } from '../truncate.js';
import { type ActionPayload, encodeActionValue, type RunPayload } from './interaction-ids.js';
import { SLACK_LIMITS, serializedBlocksLength } from './limits.js';
import { escapeMrkdwn } from './text.js';

/**
 * Block builders that cannot produce a block Slack would refuse: every text is cut visibly to its
 * limit, and an element whose value would not fit is left out rather than sent broken.
 */

/** What every renderer returns: the notification/fallback text and the blocks. */
export interface RenderedMessage {
  text: string;
  blocks: KnownBlock[];
}

/** A reply that must only ever be shown to the person who asked (`response_type: ephemeral`). */
export interface EphemeralOnlyMessage extends RenderedMessage {
  ephemeralOnly: true;
}

/**
 * What a message may add up to. Slack refuses blocks serialized to about 13,000 characters
 * (`msg_blocks_too_long`) even within the per-block limits; renderers stay well below.
 */
export const MESSAGE_BUDGET = 11_000;

/** The fallback `text` of a message (notifications, screen readers): one short line. */
const FALLBACK_TEXT_MAX = 300;

/**
 * The fallback `text` from plain text: a heading, a sentence with a resource's label in it.
 * Slack reads this field as mrkdwn and notifies from it, so a label `<!channel>` left as it is
 * would ping the whole channel; it is escaped here because this is where every renderer's
 * fallback is made.
 */
export function fallbackText(plain: string): string {
  return mrkdwnFallback(escapeMrkdwn(plain));
}

/**
 * The fallback `text` from mrkdwn the bot composed itself, whose outside values were escaped as it
 * was built (a notice's sentence with a user mention in it). Escaping it again would show `&lt;`.
 */
export function mrkdwnFallback(mrkdwn: string): string {
  return truncateMrkdwn(mrkdwn.replace(/\s+/g, ' ').trim(), FALLBACK_TEXT_MAX) || 'Cloud';
}

function plainText(text: string, max: number) {
  return { type: 'plain_text' as const, text: truncate(text.trim() === '' ? ' ' : text, max) };
}

/** Text cut short must not end in half an escape (`&am…`), which Slack would show as is. */
export function truncateMrkdwn(text: string, max: number): string {
  const cut = truncate(text, max);
  // Half an entity or half a `<!date^…>` token would show as raw markup.
  return cut === text ? cut : cut.replace(/&[a-z]{0,3}…$/, '…').replace(/<[^<>]*…$/, '…');
}

function mrkdwnText(text: string, max: number = SLACK_LIMITS.sectionText) {
  return { type: 'mrkdwn' as const, text: truncateMrkdwn(text.trim() === '' ? ' ' : text, max) };
}

export function headerBlock(text: string): HeaderBlock {
  return { type: 'header', text: plainText(text, SLACK_LIMITS.headerText) };
}

export function sectionBlock(text: string, accessory?: SectionBlockAccessory): SectionBlock {
  const block: SectionBlock = { type: 'section', text: mrkdwnText(text) };
  if (accessory) block.accessory = accessory;
  return block;
}

/** Label/value pairs as section fields, ten to a section, each within the field limit. */
export function fieldSections(
  fields: readonly (readonly [string, string])[],
  fieldMax = 500,
): SectionBlock[] {
  const sections: SectionBlock[] = [];
  for (let start = 0; start < fields.length; start += SLACK_LIMITS.sectionFields) {
    const chunk = fields.slice(start, start + SLACK_LIMITS.sectionFields);
    sections.push({
      type: 'section',
      fields: chunk.map(([label, value]) =>
        mrkdwnText(`*${label}*\n${value}`, Math.min(fieldMax, SLACK_LIMITS.sectionFieldText)),
      ),
    });
  }
  return sections;
}

export function contextBlock(...texts: string[]): ContextBlock {
  const elements = texts
    .filter((t) => t.trim() !== '')
    .slice(0, SLACK_LIMITS.contextElements)
    .map((t) => mrkdwnText(t, 1000));
  return { type: 'context', elements: elements.length > 0 ? elements : [mrkdwnText(' ')] };
}

export interface ConfirmInput {
  title: string;
  text: string;
  confirm: string;
  deny?: string;
  style?: 'danger' | 'primary';
}

export function confirmDialog(input: ConfirmInput): ConfirmationDialog {
  const dialog: ConfirmationDialog = {
    title: plainText(input.title, SLACK_LIMITS.confirmTitle),
    text: plainText(input.text, SLACK_LIMITS.confirmText),
    confirm: plainText(input.confirm, SLACK_LIMITS.confirmButton),
    deny: plainText(input.deny ?? 'Cancel', SLACK_LIMITS.confirmButton),
  };
  if (input.style) dialog.style = input.style;
  return dialog;
}

export interface ButtonInput {
  label: string;
  actionId: string;
  /** What a click hands its listener; none when the action id says it all (Log in). */
  payload?: ActionPayload;
  style?: 'primary' | 'danger';
  confirm?: ConfirmationDialog;
}

/** A button carrying an encoded payload; undefined when the payload would not fit in a value. */
export function actionButton(input: ButtonInput): Button | undefined {
  const value = input.payload === undefined ? undefined : encodeActionValue(input.payload);
  if (value !== undefined && value.length > SLACK_LIMITS.buttonValue) return undefined;
  const button: Button = {
    type: 'button',
    action_id: input.actionId,
    text: plainText(input.label, SLACK_LIMITS.buttonText),
  };
  if (value !== undefined) button.value = value;
  if (input.style) button.style = input.style;
  if (input.confirm) button.confirm = input.confirm;
  return button;
}

export interface OverflowOptionInput {
  label: string;
  payload: RunPayload;
}

/** An overflow menu; options whose payload does not fit an option value are left out. */
export function overflowMenu(
  actionId: string,
  options: readonly OverflowOptionInput[],
): Overflow | undefined {
  const fitting: PlainTextOption[] = [];
  for (const option of options) {
    const value = encodeActionValue(option.payload);
    if (value.length > SLACK_LIMITS.optionValue) continue;
    fitting.push({ text: plainText(option.label, SLACK_LIMITS.optionText), value });
  }
  if (fitting.length < 2) return undefined;
  return { type: 'overflow', action_id: actionId, options: fitting.slice(0, SLACK_LIMITS.overflowOptions) };
}

/**
 * Slack refuses two elements with the same `action_id` in one block, yet several buttons of a
 * block share a contract action id (`op:run`). The first keeps it as is, later ones get a
 * `:<n>` suffix; listeners match with `actionIdPattern`.
 */
export function actionsBlock(
  elements: readonly (ActionsBlockElement | undefined)[],
): ActionsBlock | undefined {
  const present = elements.filter((e): e is ActionsBlockElement => e !== undefined);
  if (present.length === 0) return undefined;
  const seen = new Map<string, number>();
  const unique = present.slice(0, SLACK_LIMITS.actionsElements).map((element) => {
    const id = 'action_id' in element ? element.action_id : undefined;
    if (id === undefined) return element;
    const count = seen.get(id) ?? 0;
    seen.set(id, count + 1);
    return count === 0 ? element : { ...element, action_id: `${id}:${count + 1}` };
  });
  return { type: 'actions', elements: unique };
}

/** Serialized size of blocks, the way Slack measures `msg_blocks_too_long`. */
export function blocksLength(blocks: readonly KnownBlock[]): number {
  return serializedBlocksLength(blocks);
}

/** Three backticks inside a code block would end it early; a zero-width space keeps them apart. */
function fenceSafe(text: string): string {
  return escapeMrkdwn(text).replace(/```/g, '``\u200b`');
}

const FENCE_OVERHEAD = '```\n\n```'.length;

/**
 * Preformatted text as code-block sections, each within the section limit and cut at line ends
 * where possible. Text beyond `maxChars` (measured escaped) is left out; the caller says so.
 * Returns the sections and whether everything fit.
 */
export function codeSections(
  text: string,
  maxChars: number,
): { sections: SectionBlock[]; complete: boolean } {
  const perSection = SLACK_LIMITS.sectionText - FENCE_OVERHEAD;
  const sections: SectionBlock[] = [];
  let remaining = fenceSafe(text);
  let budget = maxChars;
  while (remaining.length > 0 && budget > 0) {
    const longest = Math.min(perSection, budget, remaining.length);
    let size = longest;
    if (size < remaining.length) {
      const lineEnd = remaining.lastIndexOf('\n', size);
      if (lineEnd > size / 2) size = lineEnd + 1;
      // Never cut an escape such as `&amp;` in half.
      const amp = remaining.lastIndexOf('&', size);
      if (amp > size - 5 && remaining.indexOf(';', amp) >= size) size = amp;
      if (size <= 0) size = longest;
    }
    const chunk = remaining.slice(0, size).replace(/\n$/, '');
    sections.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `\`\`\`\n${chunk === '' ? ' ' : chunk}\n\`\`\`` },
    });
    remaining = remaining.slice(size);
    budget -= size;
  }
  return { sections, complete: remaining.length === 0 };
}
