/**
 * Actions typed with spaces: `managed issues list` for `managed issues-list`, `databases mysql
 * backup restore 5 9` for `databases mysql-backup-restore 5 9`, as `volumes list` reads.
 *
 * The words are joined only where that cannot change what a command means:
 * - the first word is not an action (or alias) of the group on its own — otherwise the later words
 *   are that action's arguments, as they always were (`nodes clone list` stays `clone` with `list`
 *   as its node id, an error, never a different operation);
 * - only words before the first flag are joined, and each is plain letters and digits, as every
 *   part of an action name is (never `__proto__`, punctuation or odd unicode);
 * - the longest joined name that is an action wins, unless a shorter joined name is an action that
 *   takes positional arguments: then the extra words could be its arguments, and the command is
 *   refused with both readings (`managed credentials update login` could be `credentials-update-login`,
 *   or `credentials-update` with `login` as the credential). The hyphenated name always works.
 * Before this, each of these texts was an error (the first word was no action), so no command
 * that worked changes meaning.
 */

/** What this module needs of an operation row (the registry's rows have it). */
export interface NamedAction {
  readonly action: string;
  readonly aliases?: readonly string[] | undefined;
  readonly pathParams: readonly string[];
}

/** What the leading words of a group command name. */
export type ActionWords<Op extends NamedAction> =
  | { readonly kind: 'action'; readonly op: Op; readonly wordCount: number }
  | { readonly kind: 'ambiguous'; readonly readings: readonly ActionReading<Op>[] }
  | { readonly kind: 'none' };

export interface ActionReading<Op extends NamedAction> {
  readonly op: Op;
  /** The words that name the action; the rest are arguments in this reading. */
  readonly wordCount: number;
}

/** More words than any action name has (`postgresql-backup-restore` has three). */
const MAX_ACTION_WORDS = 6;

/** Action names are lowercase letters and digits joined by hyphens; a word joined must be one part. */
const ACTION_WORD = /^[a-z0-9]+$/i;

/**
 * `findExact` looks an action up by its name or an alias; `words` are the leading words of the
 * command after the group, in order, up to the first flag.
 */
export function readActionWords<Op extends NamedAction>(
  words: readonly string[],
  findExact: (name: string) => Op | undefined,
): ActionWords<Op> {
  const [first] = words;
  if (first === undefined) return { kind: 'none' };
  const single = findExact(first);
  if (single !== undefined) return { kind: 'action', op: single, wordCount: 1 };
  const plain = words.slice(0, MAX_ACTION_WORDS);
  const usable = plain.findIndex((word) => !ACTION_WORD.test(word));
  const joinable = usable === -1 ? plain : plain.slice(0, usable);
  const readings: ActionReading<Op>[] = [];
  for (let count = 2; count <= joinable.length; count++) {
    const op = findExact(joinable.slice(0, count).join('-'));
    if (op !== undefined) readings.push({ op, wordCount: count });
  }
  const longest = readings.at(-1);
  if (longest === undefined) return { kind: 'none' };
  const rivals = readings.filter((r) => r !== longest && r.op !== longest.op && r.op.pathParams.length > 0);
  if (rivals.length > 0) return { kind: 'ambiguous', readings: [longest, ...rivals] };
  return { kind: 'action', op: longest.op, wordCount: longest.wordCount };
}

/**
 * How help writes an action: with spaces (`issues list`) when those words read back as this very
 * action in its group, hyphenated otherwise (`credentials-update-login`, whose spaced words are
 * ambiguous). Help and the command reference show it; both forms are accepted.
 */
export function spokenActionOf<Op extends NamedAction>(op: Op, groupActions: readonly Op[]): string {
  if (!op.action.includes('-')) return op.action;
  const byName = new Map<string, Op>();
  for (const action of groupActions) {
    for (const name of [action.action, ...(action.aliases ?? [])]) byName.set(name, action);
  }
  const words = op.action.split('-');
  const read = readActionWords(words, (name) => byName.get(name.toLowerCase()));
  return read.kind === 'action' && read.op === op && read.wordCount === words.length
    ? words.join(' ')
    : op.action;
}
