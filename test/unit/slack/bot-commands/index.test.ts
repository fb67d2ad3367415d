import { describe, expect, expectTypeOf, it } from 'vitest';
import { BOT_COMMANDS, type BotCommandName } from '../../../../lib/commands/bot-command-specs.js';
import { type ParsedCommand, parseCommand } from '../../../../lib/commands/parse.js';
import {
  type BotHandler,
  type BotHandlers,
  type HandledBotCommand,
  handleBotCommand,
} from '../../../../lib/slack/bot-commands/index.js';
import type { BotCommandContext } from '../../../../lib/slack/context.js';

/**
 * The bot's own commands are a closed set declared once (`lib/commands/bot-command-specs.ts`), and the
 * Slack handler table is typed by it. `audit` was once declared, listed in help and documented
 * while its handler still answered "not available yet"; these checks make that a compile error.
 * The `@ts-expect-error` lines are checked by `tsc --noEmit` (part of `npm test`): were the table's
 * type to stop catching the mistake, the directive would be unused and the type-check would fail.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

const stub: BotHandler = async () => undefined;

/** A complete table built from the declared names, as the real one must be. */
function completeTable(): BotHandlers {
  const names = BOT_COMMANDS.map((c) => c.name).filter((n): n is HandledBotCommand => n !== 'help');
  return Object.fromEntries(names.map((n) => [n, stub])) as unknown as BotHandlers;
}

describe('the bot command handler table (checked by tsc)', () => {
  it('regression: a declared command without a handler (audit) does not compile', () => {
    const { audit: _audit, ...withoutAudit } = completeTable();
    // @ts-expect-error `audit` is declared in BOT_COMMANDS, so a table without it is incomplete.
    const table: BotHandlers = withoutAudit;
    expect(Object.keys(table)).not.toContain('audit');
  });

  it('a handler for a name that is not declared does not compile', () => {
    const table = {
      ...completeTable(),
      // @ts-expect-error `deploy` is not a declared bot command.
      deploy: stub,
    } satisfies BotHandlers;
    expect(Object.keys(table)).toContain('deploy');
  });

  it('help is not in the table: the Slack layer answers it before a handler is looked up', () => {
    expectTypeOf<'help'>().toExtend<BotCommandName>();
    expectTypeOf<'help'>().not.toExtend<keyof BotHandlers>();
    expect(parseCommand('help')).toEqual({ kind: 'help' });
  });

  it('a parsed bot command names a declared command, not any string', () => {
    expectTypeOf<BotParsed['command']>().toEqualTypeOf<BotCommandName>();
    const parsed = parseCommand('audit --limit 5');
    expect(parsed).toMatchObject({ kind: 'bot', command: 'audit', flags: { limit: 5 } });
  });
});

describe('handleBotCommand looks the handler up safely', () => {
  // The context is never read when no handler matches; a lookup that reached a prototype member
  // would call it and throw (or answer) instead of returning the notice.
  const context = {} as BotCommandContext;

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'help'])(
    'answers `%s` with the not-a-command notice instead of calling a prototype member',
    async (name) => {
      const parsed = { kind: 'bot', command: name as BotCommandName, args: [], flags: {} } as const;
      const reply = await handleBotCommand(context, parsed);
      expect(reply?.text).toBe(`\`${name}\` is not a command of this bot. \`/cloud help\` lists them.`);
    },
  );
});
