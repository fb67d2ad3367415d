import { overLongWords } from '../../truncate.js';
import { normalizeName } from '../names.js';
import { SLASH_COMMAND } from '../registry.js';
import type { Token } from '../tokenize.js';

/**
 * Flags that go with any command, read from the tokens like every other flag: only where the
 * tokenizer found a flag, so `--form` or `--break-glass` inside a quoted value is part of the
 * value, and the typographic quotes Slack clients type quote a reason like straight ones.
 *
 * - `--help`: help for whatever the words name.
 * - `--form`: open the action's form, prefilled with the rest of the command.
 * - `--break-glass REASON`: run a command that needs approval at once (where the channel allows it).
 * - `--all`: with help, every action, not only those the caller's token and channel allow. It
 *   stays in the words as well, because on a list command it is the list option "every page".
 */

export const MAX_BREAK_GLASS_REASON = 500;
/** `--reason`: why a change is asked for, shown on its card and in the audit. */
export const MAX_REQUEST_REASON = 500;

export interface GlobalFlags {
  readonly help: boolean;
  readonly form: boolean;
  readonly all: boolean;
  /** The reason given with `--break-glass`, trimmed and not empty. */
  readonly breakGlass?: string;
  /** `--reason "…"`: why the change is asked for, trimmed and not empty. */
  readonly reason?: string;
}

export type GlobalFlagsReading =
  | { readonly ok: true; readonly globals: GlobalFlags; readonly rest: readonly Token[] }
  | { readonly ok: false; readonly message: string };

const NEEDS_REASON = `Break-glass needs a reason, e.g. \`${SLASH_COMMAND} volumes delete 12 --break-glass "db down, restoring last night's backup"\`.`;
export const BREAK_GLASS_ONLY_WITH_OPERATIONS = `\`--break-glass\` goes with a command that needs approval, e.g. \`${SLASH_COMMAND} volumes delete 12 --break-glass "why"\`.`;
const NEEDS_REQUEST_REASON = `\`--reason\` needs the reason itself, e.g. \`${SLASH_COMMAND} volumes delete 12 --reason "replaced by vol-2"\`.`;
export const REASON_ONLY_WITH_OPERATIONS = `\`--reason\` goes with a command that asks for a change, e.g. \`${SLASH_COMMAND} volumes delete 12 --reason "why"\`.`;
export const FORM_ONLY_WITH_ACTIONS = `\`--form\` goes with an action, e.g. \`${SLASH_COMMAND} volumes create --form\`. \`${SLASH_COMMAND} help\` lists them.`;

type GlobalName = 'help' | 'form' | 'all' | 'break_glass' | 'reason';
const GLOBAL_NAMES: ReadonlySet<string> = new Set<GlobalName>([
  'help',
  'form',
  'all',
  'break_glass',
  'reason',
]);

function globalNameOf(token: Token): GlobalName | undefined {
  if (token.kind !== 'flag') return undefined;
  const name = normalizeName(token.name);
  return GLOBAL_NAMES.has(name) ? (name as GlobalName) : undefined;
}

/** Takes the global flags out of `tokens` (`--all` is noted and left in); flags after `--` are words. */
export function takeGlobalFlags(tokens: readonly Token[]): GlobalFlagsReading {
  const rest: Token[] = [];
  let help = false;
  let form = false;
  let all = false;
  let breakGlass: string | undefined;
  let reason: string | undefined;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    const name = globalNameOf(token);
    if (name === undefined || token.kind !== 'flag') {
      rest.push(token);
      continue;
    }
    if (name === 'all') {
      all = token.value === undefined || !isFalseWord(token.value);
      rest.push(token);
    } else if (name === 'help') help = true;
    else if (name === 'form') form = true;
    else {
      const next = tokens[index + 1];
      const text = token.value ?? (next?.kind === 'word' ? next.text : undefined);
      if (token.value === undefined && next?.kind === 'word') index++;
      const read =
        name === 'reason'
          ? readReason(text, NEEDS_REQUEST_REASON, '`--reason`', MAX_REQUEST_REASON)
          : readReason(text, NEEDS_REASON, '`--break-glass`', MAX_BREAK_GLASS_REASON);
      if (!read.ok) return read;
      if (name === 'reason') reason = read.reason;
      else breakGlass = read.reason;
    }
  }
  return {
    ok: true,
    globals: {
      help,
      form,
      all,
      ...(breakGlass === undefined ? {} : { breakGlass }),
      ...(reason === undefined ? {} : { reason }),
    },
    rest,
  };
}

/** `--all=false` and friends, as the list option reads them. */
function isFalseWord(text: string): boolean {
  return /^(false|no|off|0)$/i.test(text.trim());
}

function readReason(
  text: string | undefined,
  needed: string,
  flag: string,
  max: number,
): { readonly ok: true; readonly reason: string } | { readonly ok: false; readonly message: string } {
  const reason = text?.trim() ?? '';
  if (reason === '') return { ok: false, message: needed };
  if (reason.length > max) {
    return { ok: false, message: `${flag}: ${overLongWords(reason.length, max)}.` };
  }
  return { ok: true, reason };
}
