import type { BotCommandName } from '../../commands/bot-command-specs.js';
import type { ParsedCommand } from '../../commands/parse.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import type { BotCommandContext } from '../context.js';
import { auditLog } from './audit.js';
import { logout, openLogin, switchProfile, whoami } from './profiles.js';

/**
 * The bot's own commands, one file each in this folder, named for the command, and routed here by
 * name. Linking tokens (`profiles.ts`: login, logout, whoami, use) and the audit log (`audit.ts`)
 * load with this table; every other command loads with its first use.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

/** What one bot command does: the parsed command in, the reply out (none when a modal opened). */
export type BotHandler = (context: BotCommandContext, parsed: BotParsed) => Promise<Reply | undefined>;

/** `help` is answered by the Slack layer from the registry; every other declared command is here. */
export type HandledBotCommand = Exclude<BotCommandName, 'help'>;

/**
 * Keyed by the declared names, so a command declared in `bot-command-specs.ts` without a handler, or
 * a handler for a name that is not declared, is a type error rather than a reply saying the
 * command is not available.
 */
export type BotHandlers = { readonly [Name in HandledBotCommand]: BotHandler };

function profileFlag(parsed: BotParsed): string | undefined {
  const value = parsed.flags.profile;
  return typeof value === 'string' ? value : undefined;
}

const handlers = {
  login: (context, parsed) => openLogin(context, profileFlag(parsed) ?? 'default'),
  logout: (context, parsed) => logout(context, profileFlag(parsed)),
  whoami: (context) => whoami(context),
  use: (context, parsed) => switchProfile(context, parsed.args[0] ?? ''),
  approvals: async (context, parsed) => {
    // The change workflow and its renderers load with the first approvals command, not with a
    // login or whoami, which load with this table.
    const { handleApprovalsCommand } = await import('./approvals.js');
    return handleApprovalsCommand(context, parsed);
  },
  reports: async (context, parsed) => {
    // Reports bring charts and schedules along; they load when first asked for.
    const { handleReportsCommand } = await import('./reports.js');
    return handleReportsCommand(context, parsed);
  },
  policy: async (context, parsed) => {
    const { handlePolicyCommand } = await import('./policy.js');
    return handlePolicyCommand(context, parsed);
  },
  audit: (context, parsed) => auditLog(context, parsed),
  mfa: async (context, parsed) => {
    const { handleMfaCommand } = await import('./mfa.js');
    return handleMfaCommand(context, parsed);
  },
  alias: async (context, parsed) => {
    const { handleAliasCommand } = await import('./alias.js');
    return handleAliasCommand(context, parsed);
  },
  runbook: async (context, parsed) => {
    const { handleRunbookCommand } = await import('./runbook.js');
    return handleRunbookCommand(context, parsed);
  },
  settings: async (context, parsed) => {
    const { handleSettingsCommand } = await import('./settings.js');
    return handleSettingsCommand(context, parsed);
  },
  agents: async (context, parsed) => {
    const { handleAgentsCommand } = await import('./agents.js');
    return handleAgentsCommand(context, parsed);
  },
} satisfies BotHandlers;

// A Map, not an index into the object: the name reached here from user input, and `constructor`
// or `__proto__` would find the object's prototype members.
const handlerByName: ReadonlyMap<string, BotHandler> = new Map(Object.entries(handlers));

export async function handleBotCommand(
  context: BotCommandContext,
  parsed: BotParsed,
): Promise<Reply | undefined> {
  const handler = handlerByName.get(parsed.command);
  if (handler !== undefined) return handler(context, parsed);
  return notice(`\`${parsed.command}\` is not a command of this bot. \`/cloud help\` lists them.`);
}
