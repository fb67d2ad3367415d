import type { AnyOperation, Group } from '../api/operation.js';
import { type ActionWords, readActionWords, spokenActionOf } from './action-words.js';
import { BOT_COMMANDS, type BotCommand } from './bot-command-specs.js';
import { suggest } from './suggest.js';

/** The slash command the bot is installed under; help and usage lines start with it. */
export const SLASH_COMMAND = '/cloud';

interface GroupInfo {
  readonly summary: string;
  readonly aliases: readonly string[];
}

/** Groups in the order of the documents, with the singular and short names people type. */
const GROUP_INFO: Readonly<Record<Group, GroupInfo>> = {
  profile: {
    summary: 'Your user profile: tokens, SSH keys, two-factor login, phone, apps, devices, logins',
    aliases: ['me', 'account'],
  },
  managed: {
    summary: 'Managed monitoring: contacts, credentials, issues, node settings, services, stats',
    aliases: ['monitoring'],
  },
  databases: {
    summary: 'Managed MySQL and PostgreSQL databases, their backups, credentials and certificates',
    aliases: ['database', 'db', 'dbs'],
  },
  volumes: {
    summary: 'Block storage volumes: create, attach, detach, clone, resize',
    aliases: ['volume', 'vol'],
  },
  images: { summary: 'Machine images: list, capture from a disk, upload, update', aliases: ['image', 'img'] },
  nodes: {
    summary:
      'Compute nodes: reboot, shut down, resize, rebuild, rescue; their disks, backups, configuration profiles; node types and kernels',
    aliases: ['node', 'instances', 'instance'],
  },
  regions: { summary: 'Regions: where nodes, volumes and databases can be placed', aliases: ['region'] },
  events: {
    summary: 'Account events: what happened on the account, and marking them seen',
    aliases: ['event'],
  },
};

/**
 * What finding a command, fitting help to a caller and listing a group need of an operation row:
 * the command catalog (`catalog.ts`) holds just this for every row, so `/cloud help` and the bot's
 * own commands answer without loading the table and its schemas. A full row is one too.
 */
export type CommandOperation = Pick<AnyOperation, (typeof COMMAND_FIELDS)[number]>;

/** The fields of `CommandOperation`, in the order the catalog writes them. */
export const COMMAND_FIELDS = [
  'id',
  'group',
  'action',
  'method',
  'aliases',
  'summary',
  'access',
  'scopes',
  'class',
  'pathParams',
  'destructive',
  'charges',
  'sensitive',
] as const satisfies readonly (keyof AnyOperation)[];

export interface CommandGroup<Op extends CommandOperation = AnyOperation> {
  readonly name: Group;
  readonly aliases: readonly string[];
  readonly summary: string;
  /** The group's operations, in the order of the table. */
  readonly actions: readonly Op[];
}

export type Lookup<T> =
  | { readonly found: true; readonly value: T }
  | { readonly found: false; readonly suggestions: readonly string[] };

export interface CommandRegistry<Op extends CommandOperation = AnyOperation> {
  /** Groups that have at least one operation, in table order. */
  readonly groups: readonly CommandGroup<Op>[];
  readonly botCommands: readonly BotCommand[];
  findGroup(name: string): Lookup<CommandGroup<Op>>;
  /** An action of a group, by its name or one of its aliases. */
  findAction(group: CommandGroup<Op>, name: string): Lookup<Op>;
  /**
   * The action named by the leading words after a group, one hyphenated word or the same words
   * split by spaces (`issues list`), and how many words it took (`action-words.ts` says when).
   */
  readActionWords(group: CommandGroup<Op>, words: readonly string[]): ActionWords<Op>;
  /** `issues list` for `issues-list`: how help writes an action of its group. */
  spokenAction(op: Op): string;
  findBotCommand(name: string): BotCommand | undefined;
  /** A top-level word: a group (or alias) or a bot command; suggestions name both kinds. */
  findTopic(name: string): Lookup<CommandGroup<Op> | BotCommand>;
}

export function isBotCommand<Op extends CommandOperation>(
  value: CommandGroup<Op> | BotCommand,
): value is BotCommand {
  return !('actions' in value);
}

export function actionNamesOf(op: Pick<CommandOperation, 'action' | 'aliases'>): readonly string[] {
  return [op.action, ...(op.aliases ?? [])];
}

/**
 * Builds a registry from operation rows: the full table (`operation-registry.ts`), the command
 * catalog (`catalog.ts`), or rows a test writes for itself. Built the same way from the same
 * rows, the two the bot uses find and suggest alike.
 */
export function createRegistry<Op extends CommandOperation = AnyOperation>(
  // Not inferred: rows written as literals would otherwise make a registry of their own narrow type.
  ops: readonly NoInfer<Op>[],
  botCommands: readonly BotCommand[] = BOT_COMMANDS,
): CommandRegistry<Op> {
  const byGroup = new Map<Group, Op[]>();
  for (const op of ops) byGroup.set(op.group, [...(byGroup.get(op.group) ?? []), op]);
  const groups: CommandGroup<Op>[] = (Object.keys(GROUP_INFO) as Group[]).flatMap((name) => {
    const actions = byGroup.get(name);
    if (actions === undefined) return [];
    return [{ name, aliases: GROUP_INFO[name].aliases, summary: GROUP_INFO[name].summary, actions }];
  });

  const groupByName = new Map<string, CommandGroup<Op>>();
  for (const group of groups) {
    for (const name of [group.name, ...group.aliases]) groupByName.set(name, group);
  }
  const actionsByGroup = new Map<CommandGroup<Op>, Map<string, Op>>(
    groups.map((group) => [
      group,
      new Map(group.actions.flatMap((op) => actionNamesOf(op).map((n) => [n, op]))),
    ]),
  );
  const spoken = new Map<Op, string>();
  const botByName = new Map<string, BotCommand>(botCommands.map((command) => [command.name, command]));

  const findGroup = (name: string): Lookup<CommandGroup<Op>> => {
    const group = groupByName.get(name.toLowerCase());
    if (group !== undefined) return { found: true, value: group };
    return { found: false, suggestions: canonicalSuggestions(name, groupByName, (g) => g.name) };
  };

  return {
    groups,
    botCommands,
    findGroup,
    findAction(group, name) {
      const actions = actionsByGroup.get(group) ?? new Map<string, Op>();
      const op = actions.get(name.toLowerCase());
      if (op !== undefined) return { found: true, value: op };
      return { found: false, suggestions: canonicalSuggestions(name, actions, (o) => o.action) };
    },
    readActionWords(group, words) {
      const actions = actionsByGroup.get(group) ?? new Map<string, Op>();
      return readActionWords(words, (name) => actions.get(name.toLowerCase()));
    },
    spokenAction(op) {
      const known = spoken.get(op);
      if (known !== undefined) return known;
      const group = groups.find((g) => g.name === op.group);
      const written = spokenActionOf(op, group?.actions ?? [op]);
      spoken.set(op, written);
      return written;
    },
    findBotCommand(name) {
      return botByName.get(name.toLowerCase());
    },
    findTopic(name) {
      const bot = botByName.get(name.toLowerCase());
      if (bot !== undefined) return { found: true, value: bot };
      const group = findGroup(name);
      if (group.found) return group;
      const names = new Map<string, CommandGroup<Op> | BotCommand>([...groupByName, ...botByName]);
      return {
        found: false,
        suggestions: canonicalSuggestions(name, names, (t) => t.name),
      };
    },
  };
}

/**
 * Suggestions matched against every name and alias, reported by canonical name, so `volum`
 * suggests `volumes` once even though it is also close to `volume`.
 */
function canonicalSuggestions<T>(
  typed: string,
  byName: ReadonlyMap<string, T>,
  canonical: (value: T) => string,
) {
  const matches = suggest(typed, byName.keys(), 8);
  const names = matches.flatMap((name) => {
    const value = byName.get(name);
    return value === undefined ? [] : [canonical(value)];
  });
  return [...new Set(names)].slice(0, 4);
}
