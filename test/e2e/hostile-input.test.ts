import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { openTable } from '../../lib/runtime.js';
import { keys } from '../../lib/store/keys.js';
import { ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import { liveMarkup as liveMarkupIn } from '../support/markup.js';

/**
 * Hostile text typed into Slack, through signed requests and the whole stack. Every input must be
 * answered with a clear ephemeral message, must leave `Object.prototype` as it was (the bot serves
 * every user of a workspace from one process), and must leave every other user's commands
 * working. Text that came from users or the API must reach the channel as text, never as an
 * @channel notification, a mention or a disguised link.
 */

let e2e: E2E;

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();
/** Names that reach a prototype when used as a key; refused wherever they would become one. */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];
/** Names an object inherits: ordinary words that must not be mistaken for existing entries. */
const INHERITED_NAMES = ['toString', 'hasOwnProperty', 'valueOf'];
const HUGE = 'x'.repeat(100_000);
const ODD = [
  'a\u202Eevil', // right-to-left override
  'a\u200Bb', // zero-width space
  'a\u0000b', // NUL
  'a\uD800b', // lone surrogate
  'a\uFEFF\u2066b', // byte-order mark, isolate
];

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
  await e2e.login(BOB, e2e.emulator.demoToken);
  // BOB's own subscription, which every `reports list` after a hostile command must still show.
  await e2e.command(BOB, 'reports add issues --daily 09:00');
});

afterAll(async () => {
  await e2e?.close();
});

function expectPrototypeUntouched(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(({} as Record<string, unknown>).x).toBeUndefined();
}

/** The commands another user relies on, each answered as usual. */
async function expectOthersUnaffected(): Promise<void> {
  const whoami = e2e.textOf((await e2e.command(BOB, 'whoami')).message);
  expect(whoami).toContain('Your linked tokens');
  const volumes = e2e.textOf((await e2e.command(BOB, 'volumes list')).message);
  expect(volumes).toContain('Volumes');
  expect(volumes).not.toContain('is not a known field');
  const reports = e2e.textOf((await e2e.command(BOB, 'reports list')).message);
  expect(reports).toContain('managed issues digest');
}

async function expectClearAnswer(text: string): Promise<string> {
  const delivery = await e2e.command(ALICE, text);
  expect(delivery.status).toBe(200);
  const message = delivery.message;
  expect(message, `no answer to ${text.slice(0, 80)}`).toBeDefined();
  expect(message?.ephemeral).toBe(true);
  const shown = e2e.textOf(message);
  expect(shown).not.toContain('Something went wrong');
  expect(shown.length).toBeLessThan(20_000);
  return shown;
}

const prototypeCommands = [...PROTOTYPE_KEYS, ...INHERITED_NAMES].flatMap((key) => [
  key,
  `volumes ${key}`,
  `approvals ${key}`,
  `reports ${key}`,
  `reports add ${key}`,
  `reports pause ${key}`,
  `volumes list --${key} 1`,
  `volumes view 1 --${key}.x 1`,
  `login --${key} x`,
  `use ${key}`,
  `logout --profile ${key}`,
  `help ${key}`,
  `help volumes ${key}`,
  `volumes list --filter '{"${key}":{"polluted":1}}'`,
]);

/** Only the names that reach a prototype are refused inside free-form keys. */
const freeKeyCommands = PROTOTYPE_KEYS.flatMap((key) => [
  `profile preferences-update --${key}.polluted 1`,
  `profile preferences-update --theme '{"${key}":{"polluted":1}}'`,
]);

const otherCommands = [
  'profile preferences-update --__proto__.polluted 1',
  'profile preferences-update --constructor.prototype.polluted 1',
  'profile preferences-update --a.__proto__.polluted 1',
  `profile preferences-update --a '{"b":[{"__proto__":{"polluted":1}}]}'`,
  `volumes list --filter '{"+or":[{"label":"a"},{"constructor":{"prototype":{"polluted":1}}}]}'`,
  'logout --profile ../x',
  'login --profile ../x',
  `volumes create --region us-east --label ${HUGE}`,
  HUGE,
  `volumes ${HUGE}`,
  `volumes list --${HUGE} 1`,
  `reports add ${HUGE}`,
  `logout --profile ${HUGE}`,
  ...ODD.flatMap((odd) => [
    odd,
    `volumes ${odd}`,
    `reports add ${odd}`,
    `use ${odd}`,
    `volumes list --label ${odd}`,
  ]),
];

describe('hostile words in every position', () => {
  it.each(
    [...prototypeCommands, ...freeKeyCommands, ...otherCommands].map((text) => [text.slice(0, 100), text]),
  )('/cloud %s is answered clearly and harms no one', async (_shown, text) => {
    await expectClearAnswer(text);
    expectPrototypeUntouched();
    await expectOthersUnaffected();
  });

  it('logout --profile ../x answers with usage', async () => {
    const shown = await expectClearAnswer('logout --profile ../x');
    expect(shown).toContain('Usage');
  });

  it('reports add constructor is refused and subscribes nothing', async () => {
    const before = await e2e.stack.store.reports.list(e2e.stack.workspace.teamId);
    const shown = await expectClearAnswer('reports add constructor');
    expect(shown).toContain('is not a report');
    expect(await e2e.stack.store.reports.list(e2e.stack.workspace.teamId)).toEqual(before);
  });

  it.each(INHERITED_NAMES)('%s as a preference key is stored as an ordinary own key', async (key) => {
    const delivery = await e2e.command(ALICE, `profile preferences-update --${key}.polluted 1`);
    expect(e2e.textOf(delivery.message)).not.toContain('Something went wrong');
    const stored = e2e.textOf((await e2e.command(ALICE, 'profile preferences-view --json')).message);
    expect(stored).toContain(key);
    expectPrototypeUntouched();
    await expectOthersUnaffected();
  });

  it('a dotted flag through __proto__ names the flag', async () => {
    const shown = await expectClearAnswer('profile preferences-update --__proto__.polluted 1');
    expect(shown).toContain('--__proto__.polluted');
  });
});

describe('over-long input', () => {
  /** The one sentence every over-long value is told with, whatever it is and wherever it was typed. */
  const overLong = (length: string, most: string) => `is ${length} characters; the most it can be is ${most}`;

  it.each([
    ['a text flag', `volumes create --region us-east --label ${'x'.repeat(5000)}`, '--label:', '5,000', '32'],
    [
      'odd unicode',
      `volumes create --region us-east --label ${'😀'.repeat(2500)}`,
      '--label:',
      '5,000',
      '32',
    ],
    ['a reason', `volumes delete 1 --reason ${'x'.repeat(5000)}`, '`--reason`:', '5,000', '500'],
    [
      'a break-glass reason',
      `volumes delete 1 --break-glass ${'x'.repeat(5000)}`,
      '`--break-glass`:',
      '5,000',
      '500',
    ],
    [
      'an alias expansion',
      `alias add big "volumes list --label ${'x'.repeat(600)}"`,
      'The expansion',
      '621',
      '500',
    ],
  ])('%s is told its length and the most it can be', async (_what, text, subject, length, most) => {
    const shown = await expectClearAnswer(text);
    expect(shown).not.toMatch(/Too big|expected string|<=/);
    expect(shown).toContain(`${subject} ${overLong(length, most)}`);
    expectPrototypeUntouched();
  });
});

describe('the login form', () => {
  it.each(['__proto__', '../x', '.hidden', ...ODD, HUGE.slice(0, 3000)])(
    'a profile named %s is refused next to the field',
    async (profile) => {
      await e2e.stack.workspace.command(ALICE, CHANNEL, 'login');
      const view = e2e.openView(ALICE);
      if (!view) throw new Error('no login modal');
      const delivery = await e2e.stack.workspace.submitView(ALICE, view, {
        profile: { profile_input: profile },
        token: { token_input: e2e.emulator.demoToken },
      });
      expect(delivery.status).toBe(200);
      expect(delivery.body).toMatchObject({
        response_action: 'errors',
        errors: { profile: expect.any(String) },
      });
      e2e.stack.standIn.store.closeView(view.id);
      expectPrototypeUntouched();
      await expectOthersUnaffected();
    },
  );

  it.each(['constructor', 'prototype', ...INHERITED_NAMES])(
    'a profile named %s is an ordinary profile of its own',
    async (profile) => {
      await e2e.login(ALICE, e2e.emulator.demoToken, profile);
      const whoami = e2e.textOf((await e2e.command(ALICE, 'whoami')).message);
      expect(whoami).toContain(`\`${profile}\` *(active)*`);
      expect(e2e.textOf((await e2e.command(ALICE, 'use default')).message)).toContain('now run with');
      expect(e2e.textOf((await e2e.command(ALICE, `logout --profile ${profile}`)).message)).toContain(
        'Unlinked',
      );
      expectPrototypeUntouched();
      await expectOthersUnaffected();
    },
  );
});

describe('one malformed stored item', () => {
  it('is skipped by the listings it belongs to, which still show the rest', async () => {
    const table = openTable({ DYNAMODB_ENDPOINT: inject('dynamoEndpoint') }, 'background');
    try {
      const team = e2e.stack.workspace.teamId;
      // What the bot stored before report kinds were checked as own keys.
      await table.put({
        TableName: e2e.stack.tableName,
        Item: {
          pk: keys.team(team),
          sk: keys.report('00000000-bad0-4000-8000-000000000000'),
          kind: 'report_subscription',
          id: '00000000-bad0-4000-8000-000000000000',
          team_id: team,
          report_kind: 'constructor',
          channel_id: CHANNEL,
        },
      });
      await table.put({
        TableName: e2e.stack.tableName,
        Item: { pk: keys.user(team, BOB), sk: keys.link('broken'), kind: 'token_link', profile: 7 },
      });
      await expectOthersUnaffected();
      const reports = e2e.textOf((await e2e.command(ALICE, 'reports list')).message);
      expect(reports).not.toContain('00000000');
    } finally {
      table.destroy();
    }
  });
});

/** Live markup other than dates and the bot's own user mentions. */
const liveMarkup = (message: StoredMessage | undefined) => liveMarkupIn(message, /^<(!date\^|@U0)/);

describe('labels from the API reach the channel as text', () => {
  const LABEL = '<!channel> ping';

  it('a credential labelled <!channel> is announced without notifying anyone', async () => {
    const before = e2e.seen(ALICE).length;
    const created = await e2e.command(
      ALICE,
      `managed credentials-create --label "${LABEL}" --username ops --password s3cret-pass`,
    );
    expect(created.status).toBe(200);
    const posted = e2e.seen(ALICE).slice(before);
    expect(posted.map((m) => m.text).join('\n')).toContain('&lt;!channel&gt; ping');
    for (const message of posted) expect(liveMarkup(message)).toEqual([]);
  });

  it('listing and viewing it show the label as text', async () => {
    const listed = (await e2e.command(ALICE, 'managed credentials-list')).message;
    expect(liveMarkup(listed)).toEqual([]);
    const row = JSON.stringify(listed?.blocks).split('&lt;!channel&gt; ping')[1] ?? '';
    const id = /`(\d+)`/.exec(row)?.[1];
    expect(id, 'the credential is listed with its label escaped').toBeDefined();

    const viewed = (await e2e.command(ALICE, `managed credentials-view ${id}`)).message;
    expect(viewed?.text).toContain('&lt;!channel&gt; ping');
    expect(liveMarkup(viewed)).toEqual([]);
  });
});
