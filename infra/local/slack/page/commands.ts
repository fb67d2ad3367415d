import type { AnyOperation } from '../../../../lib/api/operation.js';
import { registry } from '../../../../lib/commands/operation-registry.js';
import { type CommandRegistry, SLASH_COMMAND } from '../../../../lib/commands/registry.js';
import { usageOf } from '../../../../lib/commands/usage.js';
import { SLACK_LIMITS } from '../../../../lib/slack-kit/limits.js';
import type {
  ClientCompletionAction as CompletionAction,
  ClientCompletionData as CompletionData,
  ClientCompletionTopic as CompletionTopic,
} from './client-api.js';

/**
 * What the page's command box completes: the first word (a group of API operations or one of
 * the bot's own commands), then the second (an action of the group, or a subcommand), with the
 * usage line of the choice. Derived from the registry, so completion never drifts from the parser.
 */

export type { CompletionAction, CompletionData, CompletionTopic };

/**
 * The most a command typed in the page's box may hold, in UTF-16 code units as JavaScript and zod
 * count them. Slack documents no bound of its own for a slash command's text; it is typed in the
 * message box, whose text Slack takes up to 40,000 characters ("Truncating really long messages",
 * api.slack.com/changelog/2018-04-truncating-really-long-messages; `SLACK_LIMITS.messageText`).
 * The box refuses more, saying by how much, instead of cutting what was typed; the page's server
 * refuses it too.
 */
export const COMMAND_TEXT_LIMIT = SLACK_LIMITS.messageText;

/** `allows`: completion fitted to a person and channel (their token's scopes, the channel's policy). */
export function completionData(
  commands: CommandRegistry = registry,
  allows: (op: AnyOperation) => boolean = () => true,
): CompletionData {
  const fitted = commands.groups
    .map((group) => ({ ...group, actions: group.actions.filter(allows) }))
    .filter((group) => group.actions.length > 0);
  const groups: CompletionTopic[] = fitted.map((group) => ({
    kind: 'group',
    name: group.name,
    aliases: group.aliases,
    summary: group.summary,
    usage: `${SLASH_COMMAND} ${group.name} <action>`,
    actions: group.actions.map((op) => ({
      name: op.action,
      aliases: op.aliases ?? [],
      summary: op.summary,
      usage: usageOf(op),
    })),
  }));
  const botCommands: CompletionTopic[] = commands.botCommands.map((command) => ({
    kind: 'bot',
    name: command.name,
    aliases: [],
    summary: command.summary,
    usage: `${SLASH_COMMAND} ${command.usage[0] ?? command.name}`,
    actions: (command.subcommands ?? []).map((sub) => ({
      name: sub.name,
      aliases: [],
      summary: sub.summary,
      usage: `${SLASH_COMMAND} ${sub.usage}`,
    })),
  }));
  return { command: SLASH_COMMAND, topics: [...botCommands, ...groups] };
}
