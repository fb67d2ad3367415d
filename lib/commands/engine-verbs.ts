import type { EngineKind } from '../api/operations/index.js';
import type { NamedAction } from './action-words.js';
import type { CommandGroup, CommandOperation, CommandRegistry } from './registry.js';
import type { Token } from './tokenize.js';

/**
 * `databases view 42`: a verb of one database typed without its engine. Every operation an engine
 * has for one database (`mysql-view`, `postgresql-delete`, `…-backups-list`, `…-creds-view`,
 * `…-ssl-cert` and their aliases) can be typed so; the engine is not in the words, so the bot finds
 * it from the id before the command is read against that engine's operation. `list` and `create`
 * are not among them: `databases list` is engine-neutral already, and a create names its engine in
 * `--engine`.
 *
 * Only the words are read here, with the command catalog: no operation's schema, no API call.
 */

/** The group whose operations come once per engine, and the path parameter that names a database. */
export const ENGINE_GROUP = 'databases';
const DATABASE_ID = 'instanceId';

/** The engines, in the table's order; `EngineKind` is the operations table's own list. */
export const ENGINES = ['mysql', 'postgresql'] as const satisfies readonly EngineKind[];
// A new engine in the table that is missing here fails to compile.
const everyEngine: readonly (typeof ENGINES)[number][] = [] as EngineKind[];
void everyEngine;

/** Short words people guess for a database's own reads, besides the actions' names and aliases. */
const GUESSES: Readonly<Record<string, string>> = {
  backups: 'backups-list',
  credentials: 'creds-view',
  creds: 'creds-view',
};

/** What follows the engine in the action's name (`view`, `backups-list`), and the words it took. */
export interface EngineNeutralVerb {
  readonly action: string;
  readonly wordCount: number;
}

/**
 * The engine action the leading words name, when every engine has it for one database; undefined
 * otherwise. Read as the first engine's action, since every engine's actions have the same names.
 */
export function readEngineNeutralVerb<Op extends CommandOperation>(
  group: CommandGroup<Op>,
  words: readonly string[],
  commands: CommandRegistry<Op>,
): EngineNeutralVerb | undefined {
  const [first, ...rest] = words;
  if (group.name !== ENGINE_GROUP || first === undefined) return undefined;
  const guessed = Object.hasOwn(GUESSES, first.toLowerCase()) ? GUESSES[first.toLowerCase()] : undefined;
  const read = commands.readActionWords(group, [`${ENGINES[0]}-${guessed ?? first}`, ...rest]);
  if (read.kind !== 'action' || !isOneDatabaseAction(read.op)) return undefined;
  return { action: read.op.action.slice(`${ENGINES[0]}-`.length), wordCount: read.wordCount };
}

function isOneDatabaseAction(op: NamedAction): boolean {
  return op.pathParams[0] === DATABASE_ID;
}

/** `databases postgresql-view 42`: the command that names the engine. */
export function engineCommand(engine: EngineKind, action: string, ids: string): string {
  return `${ENGINE_GROUP} ${engine}-${action} ${ids}`;
}

/** Where the engine's own commands are, for a text that cannot find the engine itself. */
export function engineCommandsText(action: string, ids: string, slashCommand: string): string {
  return ENGINES.map((engine) => `\`${slashCommand} ${engineCommand(engine, action, ids)}\``).join(' or ');
}

/** An engine action typed without the engine, and the words after it, the id first. */
export interface EngineNeutralWords {
  readonly group: string;
  readonly action: string;
  readonly args: readonly Token[];
}

/**
 * Where no lookup runs (a runbook step, an alias's expansion: stored text run later, whose
 * operation is checked when it is saved), the command must name its engine.
 */
export function engineNotNamedMessage(front: EngineNeutralWords, slashCommand: string): string {
  const ids = idWordsOf(front.args) || 'ID';
  return `\`${front.group} ${front.action}\` finds the engine from the database's id only when typed as a command; here, name the engine: ${engineCommandsText(front.action, ids, slashCommand)}.`;
}

/** The ids typed after the action (`42`, or `42 9` for a backup), as the engine's command takes them. */
export function idWordsOf(args: readonly Token[]): string {
  const ids: string[] = [];
  for (const token of args) {
    if (token.kind !== 'word' || !/^[0-9]{1,15}$/.test(token.text) || ids.length === 2) break;
    ids.push(token.text);
  }
  return ids.join(' ');
}
