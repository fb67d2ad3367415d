import type { AnyOperation } from '../../api/operation.js';
import type { BotCommandName } from '../bot-command-specs.js';

/** What `/cloud …` text parses to, and the wording shared by every part of the parser. */

/** `group` names a group or a bot command; both are canonical names when they exist. */
export interface HelpTopic {
  readonly group?: string;
  readonly action?: string;
}

export type SortOrder = 'asc' | 'desc';

export interface OperationOptions {
  /** Fetch every page (`--all`). */
  readonly all: boolean;
  readonly page?: number;
  readonly pageSize?: number;
  /** Show the raw JSON result (`--json`). */
  readonly json: boolean;
  /** The `X-Filter` object: `--filter` JSON and filter flags combined; sorting is in `orderBy`/`order`. */
  readonly filter?: Readonly<Record<string, unknown>>;
  readonly orderBy?: string;
  readonly order?: SortOrder;
}

/**
 * What a bot-command handler receives for one flag or word, read as its declared kind
 * (`parse/bot-values.ts`). `null` is `none` where a flag clears a setting.
 */
export type BotValue = string | number | boolean | null | readonly string[];

export type ParsedCommand =
  /** `all`: `--all` asks for every action, not only those the caller's token and channel allow. */
  | { readonly kind: 'help'; readonly topic?: HelpTopic; readonly all?: true }
  | {
      readonly kind: 'bot';
      readonly command: BotCommandName;
      readonly subcommand?: string;
      /** The positional words, each read as its declared kind (a profile name, a report kind…). */
      readonly args: readonly string[];
      /** Each flag given, read as its declared kind: ids, numbers, switches, never text to re-check. */
      readonly flags: Readonly<Record<string, BotValue>>;
    }
  | {
      readonly kind: 'operation';
      readonly op: AnyOperation;
      /** The request as `op.request` parsed it: path, query and body fields side by side. */
      readonly input: Readonly<Record<string, unknown>>;
      readonly options: OperationOptions;
      /** The reason given with `--break-glass`. */
      readonly breakGlass?: string;
      /** `--reason "…"`: why the change is asked for. */
      readonly reason?: string;
    }
  /** `--form`: the action's form, prefilled with what the rest of the command said (when it parsed). */
  | { readonly kind: 'form'; readonly op: AnyOperation; readonly input: Readonly<Record<string, unknown>> }
  | {
      readonly kind: 'error';
      /** One problem per line, ready to show. */
      readonly message: string;
      readonly usage?: string;
      readonly suggestions?: readonly string[];
    };

export type ParseError = Extract<ParsedCommand, { kind: 'error' }>;

/** Every problem found in one command, so the reply lists them all at once. */
export interface Problems {
  readonly messages: string[];
  readonly suggestions: string[];
}

const MAX_ECHO = 40;

export function clip(text: string): string {
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO - 1)}…` : text;
}

export function given(count: number): string {
  return count === 1 ? '1 was given' : `${count} were given`;
}

export function failure(
  message: string,
  extra: { usage?: string; suggestions?: readonly string[] } = {},
): ParseError {
  return {
    kind: 'error',
    message,
    ...(extra.usage === undefined ? {} : { usage: extra.usage }),
    ...(extra.suggestions === undefined || extra.suggestions.length === 0
      ? {}
      : { suggestions: extra.suggestions }),
  };
}
