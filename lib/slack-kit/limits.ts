/**
 * Block Kit limits as Slack enforces them, for the renderers to stay within. The validator that
 * checks payloads against them the way Slack does lives with the local Slack stand-in
 * (`infra/local/slack/block-kit-validator.ts`), the only code that needs it.
 */

export const SLACK_LIMITS = {
  blocksPerMessage: 50,
  blocksPerView: 100,
  /** Slack refuses messages whose blocks serialize to about this many characters, whatever the other limits. */
  messageBlocksSerialized: 13_000,
  /** Top-level `text` of a message (Slack's `msg_too_long`). */
  messageText: 40_000,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  headerText: 150,
  actionsElements: 25,
  contextElements: 10,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  actionId: 255,
  blockId: 255,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  placeholderText: 150,
  optionText: 75,
  optionValue: 150,
  optionDescription: 75,
  selectOptions: 100,
  overflowOptions: 5,
  choiceOptions: 10,
  inputLabel: 2000,
  inputHint: 2000,
  imageUrl: 3000,
  imageAltText: 2000,
  imageTitle: 2000,
  videoTitle: 200,
  viewTitle: 24,
  viewSubmit: 24,
  viewClose: 24,
  privateMetadata: 3000,
  callbackId: 255,
  externalId: 255,
  /** Views pushed on top of each other in one modal. */
  viewStackDepth: 3,
  /** Cumulative over every `markdown` block of a payload. */
  markdownText: 12_000,
} as const;

/** How long the blocks are in the form Slack measures for `msg_blocks_too_long`. */
export function serializedBlocksLength(blocks: unknown): number {
  return blocks === undefined ? 0 : JSON.stringify(blocks).length;
}
