import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helpFor } from '../../lib/commands/help.js';
import { registry } from '../../lib/commands/operation-registry.js';
import type { HelpTopic } from '../../lib/commands/parse/result.js';
import { parseCommand } from '../../lib/commands/parse.js';
import { renderError } from '../../lib/slack/render/errors.js';
import { renderHelp } from '../../lib/slack/render/help.js';
import { ALICE, type E2E, startE2E } from '../support/e2e.js';

/**
 * The Slack function answers help, bot commands and unknown names from the command catalog, and
 * loads the operations table only once a command names an operation. Through signed slash
 * commands, each answer must be the one the table itself gives: the same blocks, byte for byte.
 * Alice's token has every scope and the channel no policy, so help fitted to her hides nothing.
 */

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

/** The ack's message, as JSON text: what Slack shows, compared byte for byte. */
async function answer(text: string): Promise<string> {
  const delivery = await e2e.command(ALICE, text);
  expect(delivery.status, text).toBe(200);
  const body = delivery.body as { text?: unknown; blocks?: unknown };
  return JSON.stringify({ text: body.text, blocks: body.blocks });
}

function fromTable(topic: HelpTopic | undefined): string {
  const rendered = renderHelp(helpFor(topic, registry));
  return JSON.stringify({ text: rendered.text, blocks: rendered.blocks });
}

describe('help answered from the catalog is the help of the table', () => {
  it.each([
    ['help', undefined],
    ['help volumes', { group: 'volumes' }],
    ['help vol', { group: 'volumes' }],
    ['help nosuch', { group: 'nosuch' }],
    ['help volumes nosuch', { group: 'volumes', action: 'nosuch' }],
    ['help login', { group: 'login' }],
  ] as const)('/cloud %s', async (text, topic) => {
    expect(await answer(text)).toBe(fromTable(topic));
  });

  it("/cloud help volumes list and its alias load the operation's help, with its flags", async () => {
    const expected = fromTable({ group: 'volumes', action: 'list' });
    expect(expected).toContain('--page-size');
    expect(await answer('help volumes list')).toBe(expected);
    expect(await answer('help vol ls')).toBe(expected);
  });
});

describe('commands that name an operation still reach the full parser', () => {
  it('a mistyped action is answered as the table words it, with no API call', async () => {
    const before = e2e.emulator.control.requestCount();
    const parsed = parseCommand('volumes atach 12');
    const rendered = renderError(parsed, { referenceId: 'unused' });
    expect(await answer('volumes atach 12')).toBe(
      JSON.stringify({ text: rendered.text, blocks: rendered.blocks }),
    );
    expect(e2e.emulator.control.requestCount()).toBe(before);
  });

  it("a wrong value is checked against the operation's schema, with no API call", async () => {
    const before = e2e.emulator.control.requestCount();
    expect(await answer('volumes view twelve')).toContain('whole number');
    expect(e2e.emulator.control.requestCount()).toBe(before);
  });

  it('/cloud volumes list answers from the API', async () => {
    const before = e2e.emulator.control.requestCount();
    expect(await answer('volumes list')).toContain('Volumes');
    expect(e2e.emulator.control.requestCount()).toBeGreaterThan(before);
  });
});

describe('checks made before parsing still hold', () => {
  it('a token typed after login is refused without echoing it, and no form opens', async () => {
    const views = e2e.stack.standIn.store.views().length;
    const answered = await answer('login xoxp-1234-typed-in-the-channel');
    expect(answered).toContain('A token never goes into a command');
    expect(answered).not.toContain('xoxp-1234');
    expect(e2e.stack.standIn.store.views().length).toBe(views);
  });

  it('--break-glass with help is refused: it goes only with a command that needs approval', async () => {
    expect(await answer('help volumes --break-glass "on fire"')).toContain(
      '`--break-glass` goes with a command that needs approval',
    );
  });
});
