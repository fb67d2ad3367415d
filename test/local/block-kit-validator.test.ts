import { describe, expect, it } from 'vitest';
import {
  describeProblem,
  refusalFor,
  validateMessage,
  validateView,
} from '../../infra/local/slack/block-kit-validator.js';
import { SLACK_LIMITS, serializedBlocksLength } from '../../lib/slack-kit/limits.js';

const plain = (text: string) => ({ type: 'plain_text', text });
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text });
const section = (text: string) => ({ type: 'section', text: mrkdwn(text) });
const x = (length: number) => 'x'.repeat(length);
const button = (overrides: Record<string, unknown> = {}) => ({
  type: 'button',
  text: plain('Run'),
  action_id: 'run',
  ...overrides,
});
const confirm = (overrides: Record<string, unknown> = {}) => ({
  title: plain('Sure?'),
  text: mrkdwn('This deletes the volume.'),
  confirm: plain('Delete'),
  deny: plain('Keep'),
  ...overrides,
});
const actions = (...elements: unknown[]) => ({ type: 'actions', elements });
const option = (text: string, value: string) => ({ text: plain(text), value });
const options = (count: number) => Array.from({ length: count }, (_, i) => option(`Option ${i}`, `v${i}`));
const modal = (overrides: Record<string, unknown> = {}) => ({
  type: 'modal',
  title: plain('Log in'),
  blocks: [section('Paste your token')],
  ...overrides,
});

function messageProblems(blocks: unknown[]): string[] {
  return validateMessage({ text: 'fallback', blocks }).map(describeProblem);
}

function viewProblems(view: unknown): string[] {
  return validateView(view).map(describeProblem);
}

interface LimitCase {
  readonly limit: string;
  readonly at: unknown[];
  readonly over: unknown[];
  readonly problem: string;
}

const messageLimits: LimitCase[] = [
  {
    limit: 'blocks per message (50)',
    at: Array.from({ length: 50 }, () => ({ type: 'divider' })),
    over: Array.from({ length: 51 }, () => ({ type: 'divider' })),
    problem: 'no more than 50 items allowed [json-pointer:/blocks]',
  },
  {
    limit: 'section text (3000)',
    at: [section(x(3000))],
    over: [section(x(3001))],
    problem: 'must be less than 3001 characters [json-pointer:/blocks/0/text/text]',
  },
  {
    limit: 'section fields (10)',
    at: [{ type: 'section', fields: Array.from({ length: 10 }, () => mrkdwn('*Region*')) }],
    over: [{ type: 'section', fields: Array.from({ length: 11 }, () => mrkdwn('*Region*')) }],
    problem: 'no more than 10 items allowed [json-pointer:/blocks/0/fields]',
  },
  {
    limit: 'section field text (2000)',
    at: [{ type: 'section', fields: [mrkdwn(x(2000))] }],
    over: [{ type: 'section', fields: [mrkdwn(x(2001))] }],
    problem: 'must be less than 2001 characters [json-pointer:/blocks/0/fields/0/text]',
  },
  {
    limit: 'header text (150)',
    at: [{ type: 'header', text: plain(x(150)) }],
    over: [{ type: 'header', text: plain(x(151)) }],
    problem: 'must be less than 151 characters [json-pointer:/blocks/0/text/text]',
  },
  {
    limit: 'elements in an actions block (25)',
    at: [actions(...Array.from({ length: 25 }, (_, i) => button({ action_id: `a${i}` })))],
    over: [actions(...Array.from({ length: 26 }, (_, i) => button({ action_id: `a${i}` })))],
    problem: 'no more than 25 items allowed [json-pointer:/blocks/0/elements]',
  },
  {
    limit: 'button text (75)',
    at: [actions(button({ text: plain(x(75)) }))],
    over: [actions(button({ text: plain(x(76)) }))],
    problem: 'must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]',
  },
  {
    limit: 'button value (2000)',
    at: [actions(button({ value: x(2000) }))],
    over: [actions(button({ value: x(2001) }))],
    problem: 'must be less than 2001 characters [json-pointer:/blocks/0/elements/0/value]',
  },
  {
    limit: 'button url (3000)',
    at: [actions(button({ url: `https://${x(2992)}` }))],
    over: [actions(button({ url: `https://${x(2993)}` }))],
    problem: 'must be less than 3001 characters [json-pointer:/blocks/0/elements/0/url]',
  },
  {
    limit: 'action_id (255)',
    at: [actions(button({ action_id: x(255) }))],
    over: [actions(button({ action_id: x(256) }))],
    problem: 'must be less than 256 characters [json-pointer:/blocks/0/elements/0/action_id]',
  },
  {
    limit: 'block_id (255)',
    at: [{ ...section('hi'), block_id: x(255) }],
    over: [{ ...section('hi'), block_id: x(256) }],
    problem: 'must be less than 256 characters [json-pointer:/blocks/0/block_id]',
  },
  {
    limit: 'confirm dialog title (100)',
    at: [actions(button({ confirm: confirm({ title: plain(x(100)) }) }))],
    over: [actions(button({ confirm: confirm({ title: plain(x(101)) }) }))],
    problem: 'must be less than 101 characters [json-pointer:/blocks/0/elements/0/confirm/title/text]',
  },
  {
    limit: 'confirm dialog text (300)',
    at: [actions(button({ confirm: confirm({ text: mrkdwn(x(300)) }) }))],
    over: [actions(button({ confirm: confirm({ text: mrkdwn(x(301)) }) }))],
    problem: 'must be less than 301 characters [json-pointer:/blocks/0/elements/0/confirm/text/text]',
  },
  {
    limit: 'confirm dialog confirm button (30)',
    at: [actions(button({ confirm: confirm({ confirm: plain(x(30)) }) }))],
    over: [actions(button({ confirm: confirm({ confirm: plain(x(31)) }) }))],
    problem: 'must be less than 31 characters [json-pointer:/blocks/0/elements/0/confirm/confirm/text]',
  },
  {
    limit: 'confirm dialog deny button (30)',
    at: [actions(button({ confirm: confirm({ deny: plain(x(30)) }) }))],
    over: [actions(button({ confirm: confirm({ deny: plain(x(31)) }) }))],
    problem: 'must be less than 31 characters [json-pointer:/blocks/0/elements/0/confirm/deny/text]',
  },
  {
    limit: 'markdown block text (12,000 across the message)',
    at: [
      { type: 'markdown', text: x(6000) },
      { type: 'markdown', text: x(6000) },
    ],
    over: [
      { type: 'markdown', text: x(6000) },
      { type: 'markdown', text: x(6001) },
    ],
    problem: 'markdown blocks must be less than 12001 characters in total [json-pointer:/blocks/1/text]',
  },
  {
    limit: 'elements in a context block (10)',
    at: [{ type: 'context', elements: Array.from({ length: 10 }, () => mrkdwn('note')) }],
    over: [{ type: 'context', elements: Array.from({ length: 11 }, () => mrkdwn('note')) }],
    problem: 'no more than 10 items allowed [json-pointer:/blocks/0/elements]',
  },
  {
    limit: 'overflow options (5)',
    at: [actions({ type: 'overflow', action_id: 'more', options: options(5) })],
    over: [actions({ type: 'overflow', action_id: 'more', options: options(6) })],
    problem: 'no more than 5 items allowed [json-pointer:/blocks/0/elements/0/options]',
  },
  {
    limit: 'static select options (100)',
    at: [actions({ type: 'static_select', action_id: 'pick', options: options(100) })],
    over: [actions({ type: 'static_select', action_id: 'pick', options: options(101) })],
    problem: 'no more than 100 items allowed [json-pointer:/blocks/0/elements/0/options]',
  },
  {
    limit: 'option text (75)',
    at: [actions({ type: 'static_select', action_id: 'pick', options: [option(x(75), 'v')] })],
    over: [actions({ type: 'static_select', action_id: 'pick', options: [option(x(76), 'v')] })],
    problem: 'must be less than 76 characters [json-pointer:/blocks/0/elements/0/options/0/text/text]',
  },
  {
    limit: 'option value (150)',
    at: [actions({ type: 'static_select', action_id: 'pick', options: [option('One', x(150))] })],
    over: [actions({ type: 'static_select', action_id: 'pick', options: [option('One', x(151))] })],
    problem: 'must be less than 151 characters [json-pointer:/blocks/0/elements/0/options/0/value]',
  },
  {
    limit: 'select placeholder (150)',
    at: [actions({ type: 'users_select', action_id: 'who', placeholder: plain(x(150)) })],
    over: [actions({ type: 'users_select', action_id: 'who', placeholder: plain(x(151)) })],
    problem: 'must be less than 151 characters [json-pointer:/blocks/0/elements/0/placeholder/text]',
  },
  {
    limit: 'image alt_text (2000)',
    at: [{ type: 'image', image_url: 'https://example.com/chart.png', alt_text: x(2000) }],
    over: [{ type: 'image', image_url: 'https://example.com/chart.png', alt_text: x(2001) }],
    problem: 'must be less than 2001 characters [json-pointer:/blocks/0/alt_text]',
  },
  {
    limit: 'image_url (3000)',
    at: [{ type: 'image', image_url: `https://${x(2992)}`, alt_text: 'chart' }],
    over: [{ type: 'image', image_url: `https://${x(2993)}`, alt_text: 'chart' }],
    problem: 'must be less than 3001 characters [json-pointer:/blocks/0/image_url]',
  },
  {
    limit: 'input label (2000)',
    at: [{ type: 'input', label: plain(x(2000)), element: { type: 'plain_text_input', action_id: 'token' } }],
    over: [
      { type: 'input', label: plain(x(2001)), element: { type: 'plain_text_input', action_id: 'token' } },
    ],
    problem: 'must be less than 2001 characters [json-pointer:/blocks/0/label/text]',
  },
];

describe.each(messageLimits)('message limit: $limit', ({ at, over, problem }) => {
  it('accepts a payload just at the limit', () => {
    expect(messageProblems(at)).toEqual([]);
  });
  it('refuses a payload one past it, in Slack words', () => {
    expect(messageProblems(over)).toEqual([problem]);
  });
});

/** Sections whose serialized JSON is exactly `length` characters. */
function sectionsSerializingTo(length: number): unknown[] {
  const blocks: unknown[] = Array.from({ length: 4 }, () => section(x(2500)));
  const overhead = serializedBlocksLength([...blocks, section('')]) - serializedBlocksLength(blocks);
  blocks.push(section(x(length - serializedBlocksLength(blocks) - overhead)));
  return blocks;
}

describe('message size as a whole', () => {
  it('accepts blocks that serialize to 13,000 characters', () => {
    const blocks = sectionsSerializingTo(SLACK_LIMITS.messageBlocksSerialized);
    expect(serializedBlocksLength(blocks)).toBe(13_000);
    expect(validateMessage({ text: 'fallback', blocks })).toEqual([]);
  });
  it('refuses blocks that serialize to more, with msg_blocks_too_long, though every block is within its limits', () => {
    const problems = validateMessage({ text: 'fallback', blocks: sectionsSerializingTo(13_001) });
    expect(problems.map((problem) => problem.error)).toEqual(['msg_blocks_too_long']);
    expect(refusalFor(problems)).toBe('msg_blocks_too_long');
  });
  it('accepts message text of 40,000 characters', () => {
    expect(validateMessage({ text: x(40_000) })).toEqual([]);
  });
  it('refuses longer message text with msg_too_long', () => {
    expect(refusalFor(validateMessage({ text: x(40_001) }))).toBe('msg_too_long');
  });
  it('refuses a message with neither text nor blocks with no_text', () => {
    expect(refusalFor(validateMessage({ text: '', blocks: [] }))).toBe('no_text');
  });
  it('reports block problems as invalid_blocks', () => {
    expect(refusalFor(validateMessage({ blocks: [section(x(3001))] }))).toBe('invalid_blocks');
  });
});

describe('message structure', () => {
  it('refuses an unknown block type', () => {
    expect(messageProblems([{ type: 'sections', text: mrkdwn('hi') }])).toEqual([
      'unsupported type: sections [json-pointer:/blocks/0/type]',
    ]);
  });
  it('refuses a section with neither text nor fields', () => {
    expect(messageProblems([{ type: 'section' }])).toEqual([
      'must define either `text` or `fields` [json-pointer:/blocks/0]',
    ]);
  });
  it('refuses a header in mrkdwn, as headers are plain_text only', () => {
    expect(messageProblems([{ type: 'header', text: mrkdwn('*Nodes*') }])).toEqual([
      'must be plain_text [json-pointer:/blocks/0/text/type]',
    ]);
  });
  it('refuses an empty section text', () => {
    expect(messageProblems([section('')])).toEqual([
      'must be more than 0 characters [json-pointer:/blocks/0/text/text]',
    ]);
  });
  it('refuses a button without text', () => {
    expect(messageProblems([actions({ type: 'button', action_id: 'go' })])).toEqual([
      'missing required field [json-pointer:/blocks/0/elements/0/text]',
    ]);
  });
  it('refuses a confirm dialog without a deny button', () => {
    const { deny: _deny, ...withoutDeny } = confirm();
    expect(messageProblems([actions(button({ confirm: withoutDeny }))])).toEqual([
      'missing required field [json-pointer:/blocks/0/elements/0/confirm/deny]',
    ]);
  });
  it('refuses an input element in an actions block', () => {
    expect(messageProblems([actions({ type: 'plain_text_input', action_id: 'x' })])).toEqual([
      'unsupported type: plain_text_input [json-pointer:/blocks/0/elements/0/type]',
    ]);
  });
  it('refuses the same block_id twice', () => {
    expect(
      messageProblems([
        { ...section('a'), block_id: 'row' },
        { ...section('b'), block_id: 'row' },
      ]),
    ).toEqual(['must be unique in the payload [json-pointer:/blocks/1/block_id]']);
  });
  it('refuses blocks that are not a list', () => {
    expect(messageProblems(section('hi') as unknown as unknown[])).toEqual([
      'must provide an array [json-pointer:/blocks]',
    ]);
  });
  it('accepts a typical list card', () => {
    const card = [
      { type: 'header', text: plain('Volumes') },
      {
        type: 'section',
        text: mrkdwn('*data* · 20 GB · us-east'),
        accessory: button({ text: plain('Delete'), style: 'danger', value: '12', confirm: confirm() }),
      },
      {
        type: 'context',
        elements: [mrkdwn('Page 1 of 3'), { type: 'image', image_url: 'https://e.x/a.png', alt_text: 'a' }],
      },
      { type: 'divider' },
      actions(button({ action_id: 'next', text: plain('Next page') })),
    ];
    expect(messageProblems(card)).toEqual([]);
  });
});

const viewLimits: Array<{ limit: string; at: unknown; over: unknown; problem: string }> = [
  {
    limit: 'blocks in a modal (100)',
    at: modal({ blocks: Array.from({ length: 100 }, () => ({ type: 'divider' })) }),
    over: modal({ blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) }),
    problem: 'no more than 100 items allowed [json-pointer:/view/blocks]',
  },
  {
    limit: 'modal title (24)',
    at: modal({ title: plain(x(24)) }),
    over: modal({ title: plain(x(25)) }),
    problem: 'must be less than 25 characters [json-pointer:/view/title/text]',
  },
  {
    limit: 'modal submit (24)',
    at: modal({ submit: plain(x(24)) }),
    over: modal({ submit: plain(x(25)) }),
    problem: 'must be less than 25 characters [json-pointer:/view/submit/text]',
  },
  {
    limit: 'modal close (24)',
    at: modal({ close: plain(x(24)) }),
    over: modal({ close: plain(x(25)) }),
    problem: 'must be less than 25 characters [json-pointer:/view/close/text]',
  },
  {
    limit: 'private_metadata (3000)',
    at: modal({ private_metadata: x(3000) }),
    over: modal({ private_metadata: x(3001) }),
    problem: 'must be less than 3001 characters [json-pointer:/view/private_metadata]',
  },
  {
    limit: 'callback_id (255)',
    at: modal({ callback_id: x(255) }),
    over: modal({ callback_id: x(256) }),
    problem: 'must be less than 256 characters [json-pointer:/view/callback_id]',
  },
  {
    limit: 'external_id (255)',
    at: modal({ external_id: x(255) }),
    over: modal({ external_id: x(256) }),
    problem: 'must be less than 256 characters [json-pointer:/view/external_id]',
  },
];

describe.each(viewLimits)('view limit: $limit', ({ at, over, problem }) => {
  it('accepts a view just at the limit', () => {
    expect(viewProblems(at)).toEqual([]);
  });
  it('refuses a view one past it, as invalid_arguments', () => {
    expect(viewProblems(over)).toEqual([problem]);
    expect(refusalFor(validateView(over))).toBe('invalid_arguments');
  });
});

describe('view structure', () => {
  const tokenInput = {
    type: 'input',
    label: plain('Token'),
    element: { type: 'plain_text_input', action_id: 'token' },
  };

  it('refuses a modal without a title', () => {
    expect(viewProblems({ type: 'modal', blocks: [] })).toEqual([
      'missing required field [json-pointer:/view/title]',
    ]);
  });
  it('refuses a modal with input blocks but no submit button', () => {
    expect(viewProblems(modal({ blocks: [tokenInput] }))).toEqual([
      'is required when the view holds input blocks [json-pointer:/view/submit]',
    ]);
  });
  it('takes a file_input with max_files from 1 to 10 and filetypes as a list (rule file-input)', () => {
    const fileInput = (element: Record<string, unknown>) =>
      modal({
        submit: plain('Send'),
        blocks: [{ type: 'input', label: plain('File'), element: { type: 'file_input', ...element } }],
      });
    expect(viewProblems(fileInput({ max_files: 1, filetypes: ['yaml', 'yml'] }))).toEqual([]);
    expect(viewProblems(fileInput({ max_files: 11 }))).toEqual([
      'must be an integer from 1 to 10 [json-pointer:/view/blocks/0/element/max_files]',
    ]);
    expect(viewProblems(fileInput({ filetypes: 'yaml' }))).toEqual([
      'must provide an array of strings [json-pointer:/view/blocks/0/element/filetypes]',
    ]);
  });
  it('accepts a login modal with an input and a submit button', () => {
    expect(
      viewProblems(modal({ blocks: [tokenInput], submit: plain('Save'), close: plain('Cancel') })),
    ).toEqual([]);
  });
  it('refuses an unknown view type', () => {
    expect(viewProblems({ type: 'dialog', blocks: [] })).toEqual([
      'unsupported type: dialog [json-pointer:/view/type]',
    ]);
  });
  it('refuses a section without text inside a modal with its view pointer', () => {
    expect(viewProblems(modal({ blocks: [{ type: 'section' }] }))).toEqual([
      'must define either `text` or `fields` [json-pointer:/view/blocks/0]',
    ]);
  });
  it('refuses an input block without an element', () => {
    expect(
      viewProblems(modal({ blocks: [{ type: 'input', label: plain('Token') }], submit: plain('Save') })),
    ).toEqual(['missing required field: element [json-pointer:/view/blocks/0]']);
  });
});
