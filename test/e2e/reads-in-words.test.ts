import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { ApiClient } from '../../lib/api/client.js';
import type { AnyOperation } from '../../lib/api/operation.js';
import { operations } from '../../lib/api/operations/index.js';
import { decodeActionValue, RunPayloadSchema } from '../../lib/slack-kit/interactions.js';
import { ALICE, type E2E, startE2E } from '../support/e2e.js';
import { existingInputFor } from '../support/sample-inputs.js';

/**
 * Every read of the operations table typed into Slack as a person would (`/cloud GROUP ACTION`,
 * the ids of things the emulator has, the flags of the row's example), its answer read back from
 * the Slack stand-in: the words people read (a message's text, its sections and context lines;
 * not code spans, ids in backticks or addresses) hold no raw API words. Issue 38, item 6: "every
 * raw enum, unit and id in human text goes through the field-words layer".
 */

let e2e: E2E;
let api: ApiClient;

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
  api = new ApiClient({ baseUrl: e2e.emulator.url, token: e2e.emulator.demoToken, maxRetries: 0 });
});

afterAll(async () => {
  await e2e?.close();
});

const READS = operations.filter((op) => op.method === 'GET');

/**
 * `group action ids… flags`: the row's example with the ids of things that exist; for a list
 * whose example filters it, the whole list too, since a filter may leave no rows to read.
 */
async function commandsFor(op: AnyOperation): Promise<{ texts: string[]; input: Record<string, unknown> }> {
  const input = await existingInputFor(op, api);
  const prefix = `${op.group} ${op.action}`;
  let flags = op.example.startsWith(prefix) ? op.example.slice(prefix.length) : '';
  for (const _ of op.pathParams) flags = flags.replace(/^\s*\S+/, '');
  const bare = [prefix, ...op.pathParams.map((name) => String(input[name]))].join(' ');
  const texts = flags.trim() === '' ? [bare] : [`${bare} ${flags.trim()}`];
  if (op.paginated && flags.trim() !== '') texts.push(bare);
  return { texts, input };
}

/** The mrkdwn and plain text a person reads: the message's text, its sections, context lines and headers. */
function humanTexts(message: StoredMessage): string[] {
  const texts = [message.text];
  const take = (object: unknown) => {
    const text = (object as { text?: unknown } | undefined)?.text;
    if (typeof text === 'string') texts.push(text);
  };
  for (const block of message.blocks as Record<string, unknown>[]) {
    if (block.type === 'section') {
      take(block.text);
      for (const field of (block.fields as unknown[] | undefined) ?? []) take(field);
    } else if (block.type === 'context') {
      for (const element of (block.elements as unknown[] | undefined) ?? []) take(element);
    } else if (block.type === 'header') take(block.text);
  }
  return texts;
}

/** Text without what is not words: code, Slack's markup (a link keeps its label), addresses, emoji. */
function wordsOf(text: string): string {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    .replace(/<(https?:[^|>]*)\|([^>]*)>/g, '$2')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\b[a-z]+:\/\/\S+/gi, ' ')
    .replace(/:[a-z][a-z0-9_+-]*:/g, ' ');
}

/**
 * What the person wrote or the API names (labels, names, user agents, addresses): their own
 * words, which may hold underscores (`before_migration`) and are shown as written.
 */
const OWN_WORDS_KEY =
  /label|name|description|notes|comments|body|user_agent|email|address|group|path|message/i;

function ownWordsOf(value: unknown, key = '', into: string[] = []): string[] {
  if (typeof value === 'string' && OWN_WORDS_KEY.test(key)) into.push(value);
  else if (Array.isArray(value)) for (const v of value) ownWordsOf(v, key, into);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) ownWordsOf(v, k, into);
  return into;
}

/** Fields the API counts in a unit (`API-FACTS-MORE.md` §3–5, the spec): a bare number beside one lacks it. */
const MEASURED =
  'size|total disk size|used disk size|disk|memory|memory limit|swap|transfer|used|quota|billable|network out|timeout|duration';
const BARE_FIELD = new RegExp(`^\\*(${MEASURED})\\*\\n[\\d,.]+$`, 'i');
const BARE_FACT = new RegExp(`(?:^|· )(${MEASURED}) [\\d,.]+(?= ·|$)`, 'im');

/** The raw API words in `texts`, each as `what: where`. */
function rawWords(texts: readonly string[], own: readonly string[]): string[] {
  const found: string[] = [];
  for (const text of texts) {
    const words = wordsOf(text);
    // `shutting_down`, `needsPostProcessing`: the API's spelling of a value, unless it is the
    // person's own (a label).
    const tokens = words.match(/(?<![\w/.@-])[a-z][a-z0-9]*(?:_[a-z0-9]+|[A-Z][a-z0-9]+)+(?![\w/@-])/g) ?? [];
    for (const token of tokens) if (!own.some((o) => o.includes(token))) found.push(`API spelling ${token}`);
    for (const [pattern, what] of [
      [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/, 'ISO timestamp'],
      [/\bnull\b/, 'null'],
      [/\bundefined\b/, 'undefined'],
      [/\bNaN\b/, 'NaN'],
      [/\[object Object\]/, '[object Object]'],
      [/\{"|":/, 'JSON'],
    ] as const) {
      const match = pattern.exec(words);
      if (match) found.push(`${what}: ${match[0]}`);
    }
    const bare = BARE_FIELD.exec(words.trim()) ?? BARE_FACT.exec(words);
    if (bare) found.push(`no unit: ${bare[0].replace(/\n/g, ' ')}`);
  }
  return found;
}

async function answerOf(op: AnyOperation): Promise<{ texts: string[]; own: string[] }> {
  const { texts: commands, input } = await commandsFor(op);
  const before = e2e.seen(ALICE).length;
  for (const text of commands) await e2e.command(ALICE, text);
  const answers = e2e
    .seen(ALICE)
    .slice(before)
    .filter((m) => m.via !== 'slash_command');
  const pathInput = Object.fromEntries(op.pathParams.map((name) => [name, input[name]]));
  const output = op.paginated ? await api.listAll(op, pathInput) : await api.call(op, pathInput as never);
  return { texts: answers.flatMap(humanTexts), own: ownWordsOf(output) };
}

describe('every read answers in words, not the API’s raw values', () => {
  it.each(READS.map((op) => [op.id, op] as const))('%s', async (_id, op) => {
    const { texts, own } = await answerOf(op);
    expect(texts.join('\n').trim(), 'an answer').not.toBe('');
    expect(rawWords(texts, own)).toEqual([]);
    // A heading names what it shows, never its kind twice (`Node: node` for a node's addresses).
    expect(texts.filter((text) => /^(\w+): \1$/i.test(text.trim()))).toEqual([]);
  });

  it('finds each kind of raw word, and leaves code, links and the person’s own labels alone', () => {
    expect(
      rawWords(
        [
          '*Status*\n:white_circle: shutting_down',
          'Status needsPostProcessing',
          'created 2025-06-02T08:30:00',
          'Region null · undefined · NaN · [object Object]',
          ':mag: filter: {"label":"db"}',
          '*Total disk size*\n80',
          'class dedicated · disk 81,920 · memory 4,096',
        ],
        [],
      ),
    ).toEqual([
      'API spelling shutting_down',
      'API spelling needsPostProcessing',
      'ISO timestamp: 2025-06-02T08:30',
      'null: null',
      'undefined: undefined',
      'NaN: NaN',
      '[object Object]: [object Object]',
      'JSON: {"',
      'no unit: *Total disk size* 80',
      'no unit: · disk 81,920',
    ]);
    expect(
      rawWords(
        [
          '*before_migration*  `8001`\nsnapshot · `g6-standard-2` · <https://x.example/a_b|ticket> · :large_green_circle: OK',
          '*Memory*\n1,024 MB',
        ],
        ['before_migration'],
      ),
    ).toEqual([]);
  });

  it('walks every read of the operations table', () => {
    expect(READS.length).toBe(67);
  });
});

/** The operations a message's row buttons and menus run, from their payloads. */
function rowOperations(message: StoredMessage): string[] {
  const ids: string[] = [];
  for (const block of message.blocks as { type?: string; accessory?: Record<string, unknown> }[]) {
    const accessory = block.type === 'section' ? block.accessory : undefined;
    if (!accessory) continue;
    const values = [
      accessory.value,
      ...((accessory.options as { value?: unknown }[] | undefined) ?? []).map((o) => o.value),
    ];
    for (const value of values) {
      if (typeof value !== 'string') continue;
      const id = decodeActionValue(RunPayloadSchema, value)?.operationId;
      if (typeof id === 'string') ids.push(id);
    }
  }
  return ids;
}

describe('the rows of what belongs to a node', () => {
  it.each([
    ['nodes disks-list 1001', /^nodes\.disks-/],
    ['nodes volumes 1001', /^volumes\./],
  ])('`%s` offers the row’s own actions, never the node’s', async (text, own) => {
    const before = e2e.seen(ALICE).length;
    await e2e.command(ALICE, text);
    const answer = e2e
      .seen(ALICE)
      .slice(before)
      .find((m) => m.via !== 'slash_command');
    if (!answer) throw new Error(`no answer to ${text}`);
    const offered = rowOperations(answer);
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.filter((id) => !own.test(id))).toEqual([]);
  });
});
