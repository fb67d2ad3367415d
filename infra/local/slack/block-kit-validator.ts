import { SLACK_LIMITS, serializedBlocksLength } from '../../../lib/slack-kit/limits.js';

/**
 * Block Kit checks as Slack applies them, run by the local Slack stand-in on whatever arrives on
 * the wire, so a payload Slack would refuse fails in tests and the local stack too.
 *
 * Problems are reported the way Slack reports them: a sentence and a JSON pointer to the
 * offending part (`must be less than 3001 characters [json-pointer:/blocks/0/text/text]`).
 * Everything here is a pure function of its input; payloads are `unknown` for that reason.
 */

/** The error code Slack answers with when it refuses the payload for this problem. */
export type SlackRefusal =
  | 'invalid_blocks'
  | 'msg_too_long'
  | 'msg_blocks_too_long'
  | 'no_text'
  | 'invalid_arguments';

export interface BlockProblem {
  readonly error: SlackRefusal;
  /** JSON pointer into the payload, as in Slack's `[json-pointer:...]`. */
  readonly pointer: string;
  readonly message: string;
}

/** Slack's wording of a problem, as it appears in `errors[]` and `response_metadata.messages`. */
export function describeProblem(problem: BlockProblem): string {
  return `${problem.message} [json-pointer:${problem.pointer}]`;
}

/**
 * The single error code Slack answers with for a set of problems: a message without content is
 * refused before its blocks are looked at, and a block that breaks a rule before the payload's
 * overall size is measured.
 */
export function refusalFor(problems: readonly BlockProblem[]): SlackRefusal | undefined {
  const order: readonly SlackRefusal[] = [
    'no_text',
    'msg_too_long',
    'invalid_arguments',
    'invalid_blocks',
    'msg_blocks_too_long',
  ];
  return order.find((error) => problems.some((problem) => problem.error === error));
}

export interface MessagePayload {
  readonly text?: unknown;
  readonly blocks?: unknown;
}

/** Problems Slack would refuse a message for (`chat.postMessage`, `chat.update`, `response_url`). */
export function validateMessage(message: MessagePayload): BlockProblem[] {
  const { text, blocks } = message;
  const hasText = typeof text === 'string' && text.length > 0;
  const hasBlocks = Array.isArray(blocks) && blocks.length > 0;
  if (!hasText && !hasBlocks) {
    return [{ error: 'no_text', pointer: '/text', message: 'must provide text or blocks' }];
  }
  const problems: BlockProblem[] = [];
  if (text !== undefined && typeof text !== 'string') {
    problems.push({ error: 'invalid_arguments', pointer: '/text', message: 'must be a string' });
  }
  if (typeof text === 'string' && text.length > SLACK_LIMITS.messageText) {
    problems.push({
      error: 'msg_too_long',
      pointer: '/text',
      message: `must be less than ${SLACK_LIMITS.messageText + 1} characters`,
    });
  }
  if (blocks !== undefined) {
    const checker = new Checker('invalid_blocks');
    checker.blockList(blocks, '/blocks', SLACK_LIMITS.blocksPerMessage);
    problems.push(...checker.problems);
    const length = serializedBlocksLength(blocks);
    if (checker.problems.length === 0 && length > SLACK_LIMITS.messageBlocksSerialized) {
      problems.push({
        error: 'msg_blocks_too_long',
        pointer: '/blocks',
        message: `blocks are ${length} characters long; Slack refuses more than about ${SLACK_LIMITS.messageBlocksSerialized}`,
      });
    }
  }
  return problems;
}

/** Problems Slack would refuse a view for (`views.open`, `views.update`, `views.push`, `views.publish`). */
export function validateView(view: unknown): BlockProblem[] {
  const checker = new Checker('invalid_arguments');
  if (!isRecord(view)) {
    checker.add('/view', 'must provide an object');
    return checker.problems;
  }
  const type = view.type;
  if (type !== 'modal' && type !== 'home') {
    checker.add('/view/type', `unsupported type: ${String(type)}`);
    return checker.problems;
  }
  if (type === 'modal') {
    checker.textObject(view.title, '/view/title', { max: SLACK_LIMITS.viewTitle, plainOnly: true });
    checker.optionalTextObject(view.submit, '/view/submit', {
      max: SLACK_LIMITS.viewSubmit,
      plainOnly: true,
    });
    checker.optionalTextObject(view.close, '/view/close', { max: SLACK_LIMITS.viewClose, plainOnly: true });
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isRecord(b) && b.type === 'input');
    if (hasInput && view.submit === undefined) {
      checker.add('/view/submit', 'is required when the view holds input blocks');
    }
  }
  checker.optionalString(view.private_metadata, '/view/private_metadata', SLACK_LIMITS.privateMetadata, 0);
  checker.optionalString(view.callback_id, '/view/callback_id', SLACK_LIMITS.callbackId, 0);
  checker.optionalString(view.external_id, '/view/external_id', SLACK_LIMITS.externalId);
  if (view.blocks === undefined) checker.add('/view/blocks', 'missing required field: blocks');
  else checker.blockList(view.blocks, '/view/blocks', SLACK_LIMITS.blocksPerView);
  return checker.problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SELECT_MENUS = new Set([
  'static_select',
  'external_select',
  'users_select',
  'conversations_select',
  'channels_select',
  'multi_static_select',
  'multi_external_select',
  'multi_users_select',
  'multi_conversations_select',
  'multi_channels_select',
]);
const CHOICE_GROUPS = new Set(['checkboxes', 'radio_buttons']);
const PICKERS = new Set(['datepicker', 'timepicker', 'datetimepicker']);
const TEXT_INPUTS = new Set([
  'plain_text_input',
  'email_text_input',
  'url_text_input',
  'number_input',
  'rich_text_input',
  'file_input',
]);

const ACTIONS_ELEMENTS = new Set([
  'button',
  'overflow',
  'workflow_button',
  ...SELECT_MENUS,
  ...CHOICE_GROUPS,
  ...PICKERS,
]);
const ACCESSORY_ELEMENTS = new Set(['image', ...ACTIONS_ELEMENTS]);
const INPUT_ELEMENTS = new Set([...SELECT_MENUS, ...CHOICE_GROUPS, ...PICKERS, ...TEXT_INPUTS]);

interface TextRule {
  readonly max: number;
  readonly plainOnly?: boolean;
}

/** Walks a payload and collects problems, all reported under one Slack error code. */
class Checker {
  readonly problems: BlockProblem[] = [];
  private markdownLength = 0;
  private readonly blockIds = new Set<string>();

  constructor(private readonly error: SlackRefusal) {}

  add(pointer: string, message: string): void {
    this.problems.push({ error: this.error, pointer, message });
  }

  blockList(blocks: unknown, pointer: string, maxBlocks: number): void {
    if (!Array.isArray(blocks)) {
      this.add(pointer, 'must provide an array');
      return;
    }
    if (blocks.length > maxBlocks) this.add(pointer, `no more than ${maxBlocks} items allowed`);
    blocks.forEach((block, index) => {
      this.block(block, `${pointer}/${index}`);
    });
  }

  private block(block: unknown, pointer: string): void {
    if (!isRecord(block)) {
      this.add(pointer, 'must provide an object');
      return;
    }
    if (block.block_id !== undefined) {
      this.string(block.block_id, `${pointer}/block_id`, SLACK_LIMITS.blockId);
      if (typeof block.block_id === 'string') {
        if (this.blockIds.has(block.block_id))
          this.add(`${pointer}/block_id`, 'must be unique in the payload');
        this.blockIds.add(block.block_id);
      }
    }
    switch (block.type) {
      case 'section':
        this.section(block, pointer);
        break;
      case 'header':
        this.textObject(block.text, `${pointer}/text`, { max: SLACK_LIMITS.headerText, plainOnly: true });
        break;
      case 'divider':
        break;
      case 'actions':
        this.elementList(block.elements, `${pointer}/elements`, SLACK_LIMITS.actionsElements, (el, at) =>
          this.element(el, at, ACTIONS_ELEMENTS),
        );
        break;
      case 'context':
        this.elementList(block.elements, `${pointer}/elements`, SLACK_LIMITS.contextElements, (el, at) =>
          this.contextElement(el, at),
        );
        break;
      case 'image':
        this.image(block, pointer, true);
        break;
      case 'input':
        this.input(block, pointer);
        break;
      case 'markdown':
        this.markdown(block, pointer);
        break;
      case 'rich_text':
        this.required(block, 'elements', pointer, Array.isArray(block.elements));
        break;
      case 'file':
        this.required(block, 'external_id', pointer, typeof block.external_id === 'string');
        break;
      case 'video':
        for (const field of ['video_url', 'thumbnail_url', 'alt_text']) {
          this.required(block, field, pointer, typeof block[field] === 'string');
        }
        this.textObject(block.title, `${pointer}/title`, { max: SLACK_LIMITS.videoTitle, plainOnly: true });
        break;
      case 'table':
        this.required(block, 'rows', pointer, Array.isArray(block.rows));
        break;
      default:
        this.add(`${pointer}/type`, `unsupported type: ${String(block.type)}`);
    }
  }

  private required(block: Record<string, unknown>, field: string, pointer: string, present: boolean): void {
    if (block[field] === undefined) this.add(pointer, `missing required field: ${field}`);
    else if (!present) this.add(`${pointer}/${field}`, 'has the wrong type');
  }

  private section(block: Record<string, unknown>, pointer: string): void {
    if (block.text === undefined && block.fields === undefined) {
      this.add(pointer, 'must define either `text` or `fields`');
      return;
    }
    this.optionalTextObject(block.text, `${pointer}/text`, { max: SLACK_LIMITS.sectionText });
    if (block.fields !== undefined) {
      this.elementList(block.fields, `${pointer}/fields`, SLACK_LIMITS.sectionFields, (field, at) =>
        this.textObject(field, at, { max: SLACK_LIMITS.sectionFieldText }),
      );
    }
    if (block.accessory !== undefined)
      this.element(block.accessory, `${pointer}/accessory`, ACCESSORY_ELEMENTS);
  }

  private markdown(block: Record<string, unknown>, pointer: string): void {
    if (typeof block.text !== 'string') {
      this.required(block, 'text', pointer, false);
      return;
    }
    this.markdownLength += block.text.length;
    if (this.markdownLength > SLACK_LIMITS.markdownText) {
      this.add(
        `${pointer}/text`,
        `markdown blocks must be less than ${SLACK_LIMITS.markdownText + 1} characters in total`,
      );
    }
  }

  private input(block: Record<string, unknown>, pointer: string): void {
    this.textObject(block.label, `${pointer}/label`, { max: SLACK_LIMITS.inputLabel, plainOnly: true });
    this.optionalTextObject(block.hint, `${pointer}/hint`, { max: SLACK_LIMITS.inputHint, plainOnly: true });
    if (block.element === undefined) this.add(pointer, 'missing required field: element');
    else this.element(block.element, `${pointer}/element`, INPUT_ELEMENTS);
  }

  private image(image: Record<string, unknown>, pointer: string, isBlock: boolean): void {
    if (image.image_url === undefined && image.slack_file === undefined) {
      this.add(pointer, 'must define either `image_url` or `slack_file`');
    }
    this.optionalString(image.image_url, `${pointer}/image_url`, SLACK_LIMITS.imageUrl);
    if (image.alt_text === undefined) this.add(pointer, 'missing required field: alt_text');
    else this.string(image.alt_text, `${pointer}/alt_text`, SLACK_LIMITS.imageAltText);
    if (isBlock) {
      this.optionalTextObject(image.title, `${pointer}/title`, {
        max: SLACK_LIMITS.imageTitle,
        plainOnly: true,
      });
    }
  }

  private elementList(
    list: unknown,
    pointer: string,
    max: number,
    each: (element: unknown, pointer: string) => void,
  ): void {
    if (!Array.isArray(list)) {
      this.add(pointer, list === undefined ? 'missing required field' : 'must provide an array');
      return;
    }
    if (list.length === 0) this.add(pointer, 'must provide at least 1 item');
    if (list.length > max) this.add(pointer, `no more than ${max} items allowed`);
    list.forEach((element, index) => {
      each(element, `${pointer}/${index}`);
    });
  }

  private contextElement(element: unknown, pointer: string): void {
    if (isRecord(element) && element.type === 'image') this.image(element, pointer, false);
    else this.textObject(element, pointer, { max: SLACK_LIMITS.sectionText });
  }

  private element(element: unknown, pointer: string, allowed: ReadonlySet<string>): void {
    if (!isRecord(element)) {
      this.add(pointer, 'must provide an object');
      return;
    }
    const type = String(element.type);
    if (!allowed.has(type)) {
      this.add(`${pointer}/type`, `unsupported type: ${type}`);
      return;
    }
    if (type === 'image') {
      this.image(element, pointer, false);
      return;
    }
    this.optionalString(element.action_id, `${pointer}/action_id`, SLACK_LIMITS.actionId);
    if (element.confirm !== undefined) this.confirm(element.confirm, `${pointer}/confirm`);
    this.optionalTextObject(element.placeholder, `${pointer}/placeholder`, {
      max: SLACK_LIMITS.placeholderText,
      plainOnly: true,
    });
    if (type === 'button' || type === 'workflow_button') {
      this.textObject(element.text, `${pointer}/text`, { max: SLACK_LIMITS.buttonText, plainOnly: true });
      this.optionalString(element.value, `${pointer}/value`, SLACK_LIMITS.buttonValue);
      this.optionalString(element.url, `${pointer}/url`, SLACK_LIMITS.buttonUrl);
      this.optionalString(
        element.accessibility_label,
        `${pointer}/accessibility_label`,
        SLACK_LIMITS.buttonText,
      );
      if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger') {
        this.add(`${pointer}/style`, 'must be primary or danger');
      }
    } else if (type === 'overflow') {
      this.options(element.options, `${pointer}/options`, SLACK_LIMITS.overflowOptions);
    } else if (CHOICE_GROUPS.has(type)) {
      this.options(element.options, `${pointer}/options`, SLACK_LIMITS.choiceOptions);
    } else if (type === 'static_select' || type === 'multi_static_select') {
      if (element.options === undefined && element.option_groups === undefined) {
        this.add(pointer, 'must define either `options` or `option_groups`');
      }
      if (element.options !== undefined) {
        this.options(element.options, `${pointer}/options`, SLACK_LIMITS.selectOptions);
      }
    } else if (type === 'file_input') {
      // Rule `file-input`: max_files "Minimum of 1, maximum of 10"; filetypes a list of extensions.
      const max = element.max_files;
      if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 1 && (max as number) <= 10)) {
        this.add(`${pointer}/max_files`, 'must be an integer from 1 to 10');
      }
      const types = element.filetypes;
      if (types !== undefined && !(Array.isArray(types) && types.every((t) => typeof t === 'string'))) {
        this.add(`${pointer}/filetypes`, 'must provide an array of strings');
      }
    }
  }

  private options(options: unknown, pointer: string, max: number): void {
    this.elementList(options, pointer, max, (option, at) => {
      if (!isRecord(option)) {
        this.add(at, 'must provide an object');
        return;
      }
      this.textObject(option.text, `${at}/text`, { max: SLACK_LIMITS.optionText });
      this.string(option.value, `${at}/value`, SLACK_LIMITS.optionValue);
      this.optionalTextObject(option.description, `${at}/description`, {
        max: SLACK_LIMITS.optionDescription,
      });
      this.optionalString(option.url, `${at}/url`, SLACK_LIMITS.buttonUrl);
    });
  }

  private confirm(confirm: unknown, pointer: string): void {
    if (!isRecord(confirm)) {
      this.add(pointer, 'must provide an object');
      return;
    }
    this.textObject(confirm.title, `${pointer}/title`, { max: SLACK_LIMITS.confirmTitle, plainOnly: true });
    this.textObject(confirm.text, `${pointer}/text`, { max: SLACK_LIMITS.confirmText });
    this.textObject(confirm.confirm, `${pointer}/confirm`, {
      max: SLACK_LIMITS.confirmButton,
      plainOnly: true,
    });
    this.textObject(confirm.deny, `${pointer}/deny`, { max: SLACK_LIMITS.confirmButton, plainOnly: true });
    if (confirm.style !== undefined && confirm.style !== 'primary' && confirm.style !== 'danger') {
      this.add(`${pointer}/style`, 'must be primary or danger');
    }
  }

  optionalTextObject(value: unknown, pointer: string, rule: TextRule): void {
    if (value !== undefined) this.textObject(value, pointer, rule);
  }

  textObject(value: unknown, pointer: string, rule: TextRule): void {
    if (value === undefined) {
      this.add(pointer, 'missing required field');
      return;
    }
    if (!isRecord(value)) {
      this.add(pointer, 'must provide an object');
      return;
    }
    if (value.type !== 'plain_text' && value.type !== 'mrkdwn') {
      this.add(`${pointer}/type`, `unsupported type: ${String(value.type)}`);
      return;
    }
    if (rule.plainOnly && value.type !== 'plain_text') {
      this.add(`${pointer}/type`, 'must be plain_text');
    }
    this.string(value.text, `${pointer}/text`, rule.max);
  }

  optionalString(value: unknown, pointer: string, max: number, min = 1): void {
    if (value !== undefined) this.string(value, pointer, max, min);
  }

  private string(value: unknown, pointer: string, max: number, min = 1): void {
    if (typeof value !== 'string') {
      this.add(pointer, value === undefined ? 'missing required field' : 'must be a string');
    } else if (value.length < min) {
      this.add(pointer, `must be more than ${min - 1} characters`);
    } else if (value.length > max) {
      this.add(pointer, `must be less than ${max + 1} characters`);
    }
  }
}
