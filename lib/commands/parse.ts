import type { z } from 'zod';
import { type AnyOperation, PageQuerySchema } from '../api/operation.js';
import type { BotCommand, BotFlag } from './bot-commands.js';
import {
  accepts,
  type FieldShape,
  isBooleanField,
  isSecretField,
  itemShapeOf,
  requestShapeOf,
} from './field-shapes.js';
import { convertText, isBooleanWord, parseJson, splitListText } from './field-values.js';
import { isPrototypeKey, PROTOTYPE_KEY_REASON } from './prototype-keys.js';
import {
  type CommandGroup,
  type CommandRegistry,
  isBotCommand,
  registry,
  SLASH_COMMAND,
} from './registry.js';
import { didYouMean, suggest } from './suggest.js';
import { type Token, tokenize } from './tokenize.js';
import { flagNameOf, normalizeName, PAGE_FIELDS, positionalName, usageOf } from './usage.js';

/**
 * `/cloud <group> <action> [ID ...] [--field value ...]` → what to do. The parser knows every
 * operation's fields from its request schema, converts typed text to the field's type, and
 * validates the assembled request with the schema itself, so a command that parses is a request
 * the table accepts.
 */

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

export type BotFlagValue = string | boolean | readonly string[];

export type ParsedCommand =
  | { readonly kind: 'help'; readonly topic?: HelpTopic }
  | {
      readonly kind: 'bot';
      readonly command: string;
      readonly subcommand?: string;
      readonly args: readonly string[];
      readonly flags: Readonly<Record<string, BotFlagValue>>;
    }
  | {
      readonly kind: 'operation';
      readonly op: AnyOperation;
      /** The request as `op.request` parsed it: path, query and body fields side by side. */
      readonly input: Readonly<Record<string, unknown>>;
      readonly options: OperationOptions;
    }
  | {
      readonly kind: 'error';
      /** One problem per line, ready to show. */
      readonly message: string;
      readonly usage?: string;
      readonly suggestions?: readonly string[];
    };

export type ParseError = Extract<ParsedCommand, { kind: 'error' }>;

const MAX_ECHO = 40;

function clip(text: string): string {
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO - 1)}…` : text;
}

function failure(
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

function isHelpFlag(token: Token | undefined): boolean {
  return token?.kind === 'flag' && normalizeName(token.name) === 'help';
}

export function parseCommand(text: string, commands: CommandRegistry = registry): ParsedCommand {
  const tokenized = tokenize(text);
  if (!tokenized.ok) return failure(tokenized.message);
  const [first, ...rest] = tokenized.tokens;
  if (first === undefined) return { kind: 'help' };
  if (first.kind !== 'word') {
    if (isHelpFlag(first)) return { kind: 'help' };
    return failure(
      `Start with a group or a command, e.g. \`${SLASH_COMMAND} volumes list\`; \`${SLASH_COMMAND} help\` lists them.`,
    );
  }
  if (first.text.toLowerCase() === 'help') return helpCommand(rest, commands);

  const topic = commands.findTopic(first.text);
  if (!topic.found) {
    return failure(
      `There is no \`${clip(first.text)}\` command.${didYouMean(topic.suggestions)} \`${SLASH_COMMAND} help\` lists the groups and commands.`,
      { suggestions: topic.suggestions },
    );
  }
  if (isBotCommand(topic.value)) {
    if (rest.some(isHelpFlag)) return { kind: 'help', topic: { group: topic.value.name } };
    return parseBotCommand(topic.value, rest);
  }
  return parseGroupCommand(topic.value, rest, commands);
}

function helpCommand(words: readonly Token[], commands: CommandRegistry): ParsedCommand {
  const [groupWord, actionWord] = words.flatMap((token) => (token.kind === 'word' ? [token.text] : []));
  if (groupWord === undefined) return { kind: 'help' };
  const topic = commands.findTopic(groupWord);
  if (!topic.found || isBotCommand(topic.value)) {
    return { kind: 'help', topic: { group: topic.found ? topic.value.name : groupWord } };
  }
  const group = topic.value;
  if (actionWord === undefined) return { kind: 'help', topic: { group: group.name } };
  const action = commands.findAction(group, actionWord);
  return {
    kind: 'help',
    topic: { group: group.name, action: action.found ? action.value.action : actionWord },
  };
}

function parseGroupCommand(
  group: CommandGroup,
  tokens: readonly Token[],
  commands: CommandRegistry,
): ParsedCommand {
  const [actionToken, ...args] = tokens;
  if (actionToken === undefined || isHelpFlag(actionToken))
    return { kind: 'help', topic: { group: group.name } };
  if (actionToken.kind !== 'word') {
    return failure(
      `Name an action after \`${group.name}\`, e.g. \`${SLASH_COMMAND} ${group.name} ${group.actions[0]?.action ?? 'list'}\`; \`${SLASH_COMMAND} help ${group.name}\` lists them.`,
    );
  }
  if (actionToken.text.toLowerCase() === 'help') return { kind: 'help', topic: { group: group.name } };
  const action = commands.findAction(group, actionToken.text);
  if (!action.found) {
    const suggestions = action.suggestions.map((name) => `${group.name} ${name}`);
    return failure(
      `\`${group.name}\` has no action \`${clip(actionToken.text)}\`.${didYouMean(suggestions)} \`${SLASH_COMMAND} help ${group.name}\` lists its actions.`,
      { suggestions },
    );
  }
  if (args.some(isHelpFlag))
    return { kind: 'help', topic: { group: group.name, action: action.value.action } };
  return parseOperation(action.value, args);
}

// ---------------------------------------------------------------------------------------------
// Operations

type PathSegment = string | number;

/** A flag's value as typed: text, or a bare switch (`--booted` → true, `--no-booted` → false). */
type RawValue = { readonly text: string } | { readonly switch: boolean };

const RESERVED_OPTIONS = ['all', 'json', 'page', 'page_size', 'order_by', 'order', 'filter'] as const;
type ReservedOption = (typeof RESERVED_OPTIONS)[number];
/** Options that only make sense for list operations. */
const LIST_OPTIONS: ReadonlySet<ReservedOption> = new Set([
  'all',
  'page',
  'page_size',
  'order_by',
  'order',
  'filter',
]);

const BOOLEAN_SHAPE: FieldShape = { kinds: new Set(['boolean']) };
const TEXT_SHAPE: FieldShape = { kinds: new Set(['string']) };
const INTEGER_SHAPE: FieldShape = { kinds: new Set(['integer']) };
const ORDER_SHAPE: FieldShape = { kinds: new Set(['string']), enumValues: ['asc', 'desc'] };
const OPTION_SHAPES: Readonly<Record<ReservedOption, FieldShape>> = {
  all: BOOLEAN_SHAPE,
  json: BOOLEAN_SHAPE,
  page: INTEGER_SHAPE,
  page_size: INTEGER_SHAPE,
  order_by: TEXT_SHAPE,
  order: ORDER_SHAPE,
  filter: TEXT_SHAPE,
};

type Target =
  | {
      readonly kind: 'option';
      readonly option: ReservedOption;
      readonly shape: FieldShape;
      readonly display: string;
    }
  | { readonly kind: 'path'; readonly param: string; readonly shape: FieldShape; readonly display: string }
  | {
      readonly kind: 'field';
      readonly path: readonly PathSegment[];
      readonly shape: FieldShape;
      readonly display: string;
      readonly negated: boolean;
    }
  | {
      readonly kind: 'filter';
      readonly key: string;
      readonly shape: FieldShape;
      readonly display: string;
      readonly negated: boolean;
    };

type Resolution =
  | { readonly ok: true; readonly target: Target }
  | { readonly ok: false; readonly problem: string; readonly suggestions: readonly string[] };

/** The parsing of one operation's arguments, collecting every problem before answering. */
class OperationParser {
  private readonly root: FieldShape;
  private readonly problems: string[] = [];
  private readonly suggestions: string[] = [];
  private readonly positionals: string[] = [];
  private readonly pathFlags = new Map<string, { target: Target; text: string }>();
  private readonly fields = new Map<
    string,
    { target: Extract<Target, { kind: 'field' }>; values: RawValue[] }
  >();
  private readonly filters = new Map<
    string,
    { target: Extract<Target, { kind: 'filter' }>; values: RawValue[] }
  >();
  private readonly options = new Map<ReservedOption, RawValue[]>();

  constructor(private readonly op: AnyOperation) {
    this.root = requestShapeOf(op);
  }

  parse(tokens: readonly Token[]): ParsedCommand {
    this.collect(tokens);
    if (this.problems.length > 0) return this.error();
    const input = this.buildInput();
    const options = this.buildOptions(input);
    if (this.problems.length > 0 || options === undefined) return this.error();
    const result = this.op.request.safeParse(input);
    if (!result.success) {
      this.problems.push(...this.issueMessages(result.error.issues, input));
      return this.error();
    }
    const data = result.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      return failure(`\`${this.op.group} ${this.op.action}\` could not be prepared.`, {
        usage: usageOf(this.op),
      });
    }
    return { kind: 'operation', op: this.op, input: data as Record<string, unknown>, options };
  }

  private error(): ParseError {
    return failure([...new Set(this.problems)].join('\n'), {
      usage: usageOf(this.op),
      suggestions: [...new Set(this.suggestions)],
    });
  }

  // --- tokens -------------------------------------------------------------------------------

  private collect(tokens: readonly Token[]): void {
    let flagsEnded = false;
    for (let index = 0; index < tokens.length; index++) {
      const token = tokens[index];
      if (token === undefined) continue;
      if (token.kind === 'end-of-flags') {
        flagsEnded = true;
        continue;
      }
      if (token.kind === 'word' || flagsEnded) {
        if (token.kind === 'word') this.positionals.push(token.text);
        continue;
      }
      const resolution = this.resolve(token.name);
      if (!resolution.ok) {
        this.problems.push(resolution.problem);
        this.suggestions.push(...resolution.suggestions);
        // A value that follows an unknown flag is not a positional argument.
        if (token.value === undefined && tokens[index + 1]?.kind === 'word') index++;
        continue;
      }
      const { target } = resolution;
      const next = tokens[index + 1];
      const value = this.valueOf(token, target, next);
      if (value === undefined) continue;
      if (value.consumedNext) index++;
      this.record(target, value.raw);
    }
  }

  private valueOf(
    token: Extract<Token, { kind: 'flag' }>,
    target: Target,
    next: Token | undefined,
  ): { raw: RawValue; consumedNext: boolean } | undefined {
    const negated = (target.kind === 'field' || target.kind === 'filter') && target.negated;
    if (negated) {
      if (token.value !== undefined) {
        this.problems.push(`--${clip(token.name)}: takes no value (write ${target.display}=false instead)`);
        return undefined;
      }
      return { raw: { switch: false }, consumedNext: false };
    }
    if (token.value !== undefined) return { raw: { text: token.value }, consumedNext: false };
    if (isBooleanField(target.shape)) {
      if (next?.kind === 'word' && isBooleanWord(next.text))
        return { raw: { text: next.text }, consumedNext: true };
      return { raw: { switch: true }, consumedNext: false };
    }
    if (next?.kind === 'word') return { raw: { text: next.text }, consumedNext: true };
    this.problems.push(`${target.display}: needs a value`);
    return undefined;
  }

  private record(target: Target, raw: RawValue): void {
    switch (target.kind) {
      case 'option':
        this.options.set(target.option, [...(this.options.get(target.option) ?? []), raw]);
        return;
      case 'path':
        if ('switch' in raw) this.problems.push(`${target.display}: needs a value`);
        else if (this.pathFlags.has(target.param))
          this.problems.push(`${target.display}: given more than once`);
        else this.pathFlags.set(target.param, { target, text: raw.text });
        return;
      case 'field': {
        const key = JSON.stringify(target.path);
        const entry = this.fields.get(key) ?? { target, values: [] };
        entry.values.push(raw);
        this.fields.set(key, entry);
        return;
      }
      case 'filter': {
        const entry = this.filters.get(target.key) ?? { target, values: [] };
        entry.values.push(raw);
        this.filters.set(target.key, entry);
        return;
      }
    }
  }

  // --- flag names -----------------------------------------------------------------------------

  private resolve(name: string): Resolution {
    if (name.split('.').some(isPrototypeKey)) {
      return { ok: false, problem: `--${clip(name)}: ${PROTOTYPE_KEY_REASON}`, suggestions: [] };
    }
    const normalized = normalizeName(name);
    const reserved = RESERVED_OPTIONS.find((option) => option === normalized);
    if (reserved !== undefined) {
      return {
        ok: true,
        target: { kind: 'option', option: reserved, shape: OPTION_SHAPES[reserved], display: `--${name}` },
      };
    }
    // A body field wins over a path parameter of the same name: `nodes backups-restore 1 2
    // --node-id 3` names the restore target, while the source node is the first positional.
    const direct = this.resolveField(name.split('.'), false);
    if (direct.ok) return direct;
    const param = this.op.pathParams.find((p) => normalizeName(p) === normalized);
    if (param !== undefined) {
      const shape = this.root.properties?.get(param) ?? TEXT_SHAPE;
      return { ok: true, target: { kind: 'path', param, shape, display: positionalName(param) } };
    }

    const negation = /^no[-_]/i.exec(name);
    if (negation !== null) {
      const negated = this.resolveField(name.slice(negation[0].length).split('.'), true);
      if (negated.ok) {
        if (isBooleanField(negated.target.shape)) return negated;
        return { ok: false, problem: `--${name}: only true/false fields have a --no- form`, suggestions: [] };
      }
    }
    if (this.op.paginated) {
      const filter = this.resolveFilter(name, false);
      if (filter !== undefined) return { ok: true, target: filter };
      const negatedFilter =
        negation === null ? undefined : this.resolveFilter(name.slice(negation[0].length), true);
      if (negatedFilter !== undefined && isBooleanField(negatedFilter.shape))
        return { ok: true, target: negatedFilter };
    }
    return direct;
  }

  /** Walks `updates.day-of-week` through the request shape: declared keys, list indexes, map keys. */
  private resolveField(segments: readonly string[], negated: boolean): Resolution {
    let shape = this.root;
    const path: PathSegment[] = [];
    const display: string[] = [];
    for (const [depth, segment] of segments.entries()) {
      const declared = [...(shape.properties?.keys() ?? [])].filter(
        (key) => depth > 0 || !(this.op.pathParams.includes(key) || PAGE_FIELDS.has(key)),
      );
      const key = declared.find((k) => normalizeName(k) === normalizeName(segment));
      const child = key === undefined ? undefined : shape.properties?.get(key);
      if (key !== undefined && child !== undefined) {
        path.push(key);
        display.push(flagNameOf(key));
        shape = child;
      } else if (/^\d+$/.test(segment) && shape.items !== undefined && accepts(shape, 'array')) {
        path.push(Number(segment));
        display.push(segment);
        shape = shape.items;
      } else if (shape.openKeys !== undefined && segment.length > 0 && !isPrototypeKey(segment)) {
        path.push(segment);
        display.push(segment);
        shape = shape.openKeys;
      } else {
        return this.unknownField(segments, depth, declared, display);
      }
    }
    return { ok: true, target: { kind: 'field', path, shape, display: `--${display.join('.')}`, negated } };
  }

  private unknownField(
    segments: readonly string[],
    depth: number,
    declared: readonly string[],
    resolved: readonly string[],
  ): Resolution {
    const typed = `--${clip(segments.join('.'))}`;
    const command = `\`${this.op.group} ${this.op.action}\``;
    if (depth > 0) {
      const prefix = `--${resolved.join('.')}.`;
      const candidates = declared.map((key) => `${prefix}${flagNameOf(key)}`);
      const suggestions = suggest(`${prefix}${segments[depth] ?? ''}`, candidates);
      const known = candidates.length > 0 ? ` Its fields: ${candidates.join(', ')}.` : '';
      return {
        ok: false,
        problem: `${typed}: not a field of --${resolved.join('.')}.${known}${didYouMean(suggestions)}`,
        suggestions,
      };
    }
    const fieldFlags = declared.map((key) => `--${flagNameOf(key)}`);
    const filterFlags = this.op.paginated ? this.op.filterable.map(filterFlagName) : [];
    const optionFlags = RESERVED_OPTIONS.filter((o) => this.op.paginated || !LIST_OPTIONS.has(o)).map(
      (o) => `--${flagNameOf(o)}`,
    );
    const suggestions = suggest(typed, [...fieldFlags, ...filterFlags, ...optionFlags]);
    if (this.op.paginated) {
      const filterable =
        filterFlags.length > 0
          ? ` It can be filtered by ${filterFlags.join(', ')}.`
          : ' It cannot be filtered by any field.';
      return {
        ok: false,
        problem: `${typed}: ${command} has no such flag.${filterable}${didYouMean(suggestions)}`,
        suggestions,
      };
    }
    const known = fieldFlags.length > 0 ? ` Its flags: ${fieldFlags.join(', ')}.` : ' It takes no flags.';
    return {
      ok: false,
      problem: `${typed}: ${command} has no such flag.${known}${didYouMean(suggestions)}`,
      suggestions,
    };
  }

  private resolveFilter(name: string, negated: boolean): Extract<Target, { kind: 'filter' }> | undefined {
    const wanted = normalizeFilterName(name);
    const key = this.op.filterable.find((field) => normalizeFilterName(field) === wanted);
    if (key === undefined) return undefined;
    return { kind: 'filter', key, shape: filterShapeOf(this.op, key), display: filterFlagName(key), negated };
  }

  // --- input ----------------------------------------------------------------------------------

  private buildInput(): Record<string, unknown> {
    const input: Record<string, unknown> = {};
    this.assignPositionals(input);
    const entries = [...this.fields.values()].sort((a, b) => a.target.path.length - b.target.path.length);
    for (const { target, values } of entries) {
      const value = this.fieldValue(target, values);
      if (value.ok) this.place(input, target, value.value);
    }
    return input;
  }

  private assignPositionals(input: Record<string, unknown>): void {
    const command = `\`${this.op.group} ${this.op.action}\``;
    for (const [param, { target, text }] of this.pathFlags) {
      this.placePathParam(input, param, target.shape, text);
    }
    const remaining = this.op.pathParams.filter((p) => !this.pathFlags.has(p));
    const names = remaining.map(positionalName);
    if (this.positionals.length < remaining.length) {
      const missing = names.slice(this.positionals.length);
      this.problems.push(
        `Missing ${missing.join(' and ')}: ${command} needs ${names.join(' ') || 'no arguments'}.`,
      );
    } else if (this.positionals.length > remaining.length) {
      // The extra words are not repeated: a mistyped secret may be among them.
      const takes = names.length === 0 ? 'takes no arguments' : `takes ${names.join(' ')} only`;
      this.problems.push(
        `Too many arguments: ${command} ${takes}, but ${given(this.positionals.length)}. Flags start with --.`,
      );
    }
    remaining.forEach((param, index) => {
      const text = this.positionals[index];
      if (text === undefined) return;
      this.placePathParam(input, param, this.root.properties?.get(param) ?? TEXT_SHAPE, text);
    });
  }

  private placePathParam(
    input: Record<string, unknown>,
    param: string,
    shape: FieldShape,
    text: string,
  ): void {
    const converted = convertText(text, shape, { secret: false });
    if (converted.ok) input[param] = converted.value;
    else this.problems.push(`${positionalName(param)}: ${converted.reason}`);
  }

  private fieldValue(
    target: Extract<Target, { kind: 'field' }>,
    values: readonly RawValue[],
  ): { ok: true; value: unknown } | { ok: false } {
    const secret = isSecretPath(target.path);
    const { shape, display } = target;
    const [only] = values;
    if (
      values.length === 1 &&
      only !== undefined &&
      'text' in only &&
      only.text === 'null' &&
      shape.kinds.has('null')
    ) {
      return { ok: true, value: null };
    }
    if (isListShape(shape)) return this.listValue(target, values, secret);
    if (values.length > 1) {
      this.problems.push(`${display}: given more than once`);
      return { ok: false };
    }
    if (only === undefined) return { ok: false };
    if ('switch' in only) {
      if (isBooleanField(shape)) return { ok: true, value: only.switch };
      this.problems.push(`${display}: needs a value`);
      return { ok: false };
    }
    const converted = convertText(only.text, shape, { secret });
    if (converted.ok) return converted;
    this.problems.push(`${display}: ${converted.reason}`);
    return { ok: false };
  }

  /** Lists gather every occurrence of the flag: JSON lists, JSON objects, comma-separated items. */
  private listValue(
    target: Extract<Target, { kind: 'field' }>,
    values: readonly RawValue[],
    secret: boolean,
  ): { ok: true; value: unknown } | { ok: false } {
    const items: unknown[] = [];
    const itemShape = target.shape.items ?? { kinds: new Set() };
    for (const raw of values) {
      if ('switch' in raw) {
        this.problems.push(`${target.display}: needs a value`);
        return { ok: false };
      }
      const text = raw.text.trim();
      if (text.startsWith('[') || (text.startsWith('{') && accepts(itemShape, 'object'))) {
        const parsed = parseJson(text);
        if (!parsed.ok) {
          this.problems.push(`${target.display}: ${parsed.reason}`);
          return { ok: false };
        }
        // One at a time: spreading a long pasted list into push() would overflow the stack.
        if (Array.isArray(parsed.value)) for (const item of parsed.value) items.push(item);
        else items.push(parsed.value);
        continue;
      }
      for (const piece of splitListText(raw.text, itemShape)) {
        const converted = convertText(piece, itemShape, { secret });
        if (!converted.ok) {
          this.problems.push(`${target.display}: each item ${converted.reason}`);
          return { ok: false };
        }
        items.push(converted.value);
      }
    }
    return { ok: true, value: items };
  }

  /** Puts a value at its path, creating the objects and lists on the way (`--updates.duration 2`). */
  private place(
    input: Record<string, unknown>,
    target: Extract<Target, { kind: 'field' }>,
    value: unknown,
  ): void {
    let container: Record<string, unknown> | unknown[] = input;
    const { path } = target;
    for (const [index, segment] of path.entries()) {
      const last = index === path.length - 1;
      if (last) {
        setMember(container, segment, value);
        return;
      }
      const existing = getMember(container, segment);
      if (existing === undefined) {
        const created: Record<string, unknown> | unknown[] = typeof path[index + 1] === 'number' ? [] : {};
        setMember(container, segment, created);
        container = created;
      } else if (typeof existing === 'object' && existing !== null) {
        container = existing as Record<string, unknown> | unknown[];
      } else {
        const parent = `--${target.display
          .slice(2)
          .split('.')
          .slice(0, index + 1)
          .join('.')}`;
        this.problems.push(`${target.display}: cannot be combined with a ${parent} that is not an object`);
        return;
      }
    }
  }

  // --- list options -----------------------------------------------------------------------------

  private buildOptions(input: Record<string, unknown>): OperationOptions | undefined {
    const command = `\`${this.op.group} ${this.op.action}\``;
    const single = (option: ReservedOption): RawValue | undefined => {
      const values = this.options.get(option);
      if (values === undefined) return undefined;
      if (values.length > 1) this.problems.push(`--${flagNameOf(option)}: given more than once`);
      return values[0];
    };
    const switchValue = (option: ReservedOption): boolean => {
      const raw = single(option);
      if (raw === undefined) return false;
      if ('switch' in raw) return raw.switch;
      const converted = convertText(raw.text, BOOLEAN_SHAPE, { secret: false });
      if (converted.ok) return converted.value === true;
      this.problems.push(`--${flagNameOf(option)}: ${converted.reason}`);
      return false;
    };
    const textValue = (option: ReservedOption): string | undefined => {
      const raw = single(option);
      if (raw === undefined) return undefined;
      if ('switch' in raw) {
        this.problems.push(`--${flagNameOf(option)}: needs a value`);
        return undefined;
      }
      return raw.text;
    };

    if (!this.op.paginated) {
      for (const option of this.options.keys()) {
        if (LIST_OPTIONS.has(option))
          this.problems.push(`--${flagNameOf(option)}: only list actions take it, and ${command} is not one`);
      }
    }
    const all = switchValue('all');
    const json = switchValue('json');
    const page = this.pageNumber('page', textValue('page'));
    const pageSize = this.pageNumber('page_size', textValue('page_size'));
    const pageIssues = PageQuerySchema.safeParse({ page, page_size: pageSize });
    if (!pageIssues.success) {
      for (const issue of pageIssues.error.issues) {
        this.problems.push(`--${flagNameOf(String(issue.path[0] ?? 'page'))}: ${issue.message}`);
      }
    }
    if (all && page !== undefined) this.problems.push('--all: cannot be combined with --page');
    const properties = this.root.properties;
    if (page !== undefined && properties?.has('page')) input.page = page;
    if (pageSize !== undefined && properties?.has('page_size')) input.page_size = pageSize;

    const order = this.orderValue(textValue('order'));
    const orderBy = this.orderByValue(textValue('order_by'));
    if (order !== undefined && orderBy === undefined && !this.options.has('order_by')) {
      this.problems.push('--order: needs --order-by to say which field to sort by');
    }
    const filter = this.filterValue(textValue('filter'));
    if (this.problems.length > 0) return undefined;
    return {
      all,
      json,
      ...(page === undefined ? {} : { page }),
      ...(pageSize === undefined ? {} : { pageSize }),
      ...(filter === undefined ? {} : { filter }),
      ...(orderBy === undefined ? {} : { orderBy }),
      ...(order === undefined ? {} : { order }),
    };
  }

  private pageNumber(option: 'page' | 'page_size', text: string | undefined): number | undefined {
    if (text === undefined) return undefined;
    const converted = convertText(text, INTEGER_SHAPE, { secret: false });
    if (converted.ok && typeof converted.value === 'number') return converted.value;
    if (!converted.ok) this.problems.push(`--${flagNameOf(option)}: ${converted.reason}`);
    return undefined;
  }

  private orderValue(text: string | undefined): SortOrder | undefined {
    if (text === undefined) return undefined;
    const converted = convertText(text.toLowerCase(), ORDER_SHAPE, { secret: false });
    if (converted.ok && (converted.value === 'asc' || converted.value === 'desc')) return converted.value;
    this.problems.push(`--order: ${converted.ok ? 'must be asc or desc' : converted.reason}`);
    return undefined;
  }

  private orderByValue(text: string | undefined): string | undefined {
    if (text === undefined) return undefined;
    const wanted = normalizeFilterName(text);
    const field = this.op.filterable.find((f) => normalizeFilterName(f) === wanted);
    const unorderable = new Set(this.op.unorderable ?? []);
    const sortable = this.op.filterable.filter((f) => !unorderable.has(f));
    if (field !== undefined && !unorderable.has(field)) return field;
    const command = `\`${this.op.group} ${this.op.action}\``;
    if (sortable.length === 0) {
      this.problems.push(`--order-by: ${command} cannot be sorted`);
      return undefined;
    }
    const hint = didYouMean(suggest(text, sortable));
    const why = field === undefined ? 'is not a sortable field' : 'cannot be used to sort';
    this.problems.push(`--order-by: ${clip(text)} ${why}; sort by one of ${sortable.join(', ')}.${hint}`);
    return undefined;
  }

  private filterValue(text: string | undefined): Readonly<Record<string, unknown>> | undefined {
    const conditions: Record<string, unknown>[] = [];
    if (text !== undefined) {
      const parsed = parseJson(text);
      if (!parsed.ok && parsed.prototypeKey !== undefined) {
        this.problems.push(`--filter: ${parsed.reason}`);
      } else if (
        !parsed.ok ||
        typeof parsed.value !== 'object' ||
        parsed.value === null ||
        Array.isArray(parsed.value)
      ) {
        this.problems.push(`--filter: must be a JSON object, e.g. '{"label": "web-1"}'`);
      } else {
        conditions.push(parsed.value as Record<string, unknown>);
      }
    }
    for (const { target, values } of this.filters.values()) {
      const converted: unknown[] = [];
      for (const raw of values) {
        if ('switch' in raw) {
          if (isBooleanField(target.shape)) converted.push(raw.switch);
          else this.problems.push(`${target.display}: needs a value`);
          continue;
        }
        const value = convertText(raw.text, target.shape, { secret: false });
        if (value.ok) converted.push(value.value);
        else this.problems.push(`${target.display}: ${value.reason}`);
      }
      // Several values of one field: any of them matches.
      if (converted.length === 1) conditions.push({ [target.key]: converted[0] });
      else if (converted.length > 1)
        conditions.push({ '+or': converted.map((value) => ({ [target.key]: value })) });
    }
    return combineConditions(conditions);
  }

  // --- schema issues -----------------------------------------------------------------------------

  private issueMessages(issues: readonly z.core.$ZodIssue[], input: Record<string, unknown>): string[] {
    return issues.flatMap((issue) => {
      const path = issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => `${this.displayPath([...path, key])}: is not a known field`);
      }
      const missing = issue.code === 'invalid_type' && valueAt(input, path) === undefined;
      const message = missing ? 'is required' : issue.message;
      return [path.length === 0 ? message : `${this.displayPath(path)}: ${message}`];
    });
  }

  /** `['updates', 'day_of_week']` → `--updates.day-of-week`; a path parameter → `<instanceId>`. */
  private displayPath(path: readonly PathSegment[]): string {
    const [first] = path;
    if (typeof first === 'string' && this.op.pathParams.includes(first) && path.length === 1) {
      return positionalName(first);
    }
    if (path.length === 1 && typeof first === 'string' && PAGE_FIELDS.has(first))
      return `--${flagNameOf(first)}`;
    let shape: FieldShape | undefined = this.root;
    const parts: string[] = [];
    for (const segment of path) {
      if (typeof segment === 'number') {
        parts.push(String(segment));
        shape = shape?.items;
      } else if (shape?.properties?.has(segment)) {
        parts.push(flagNameOf(segment));
        shape = shape.properties.get(segment);
      } else {
        parts.push(segment);
        shape = shape?.openKeys;
      }
    }
    return `--${parts.join('.')}`;
  }
}

function parseOperation(op: AnyOperation, tokens: readonly Token[]): ParsedCommand {
  return new OperationParser(op).parse(tokens);
}

function given(count: number): string {
  return count === 1 ? '1 was given' : `${count} were given`;
}

/** Only the container's own members: an inherited one (`constructor`) is never walked into. */
function getMember(container: Record<string, unknown> | unknown[], key: PathSegment): unknown {
  const name = Array.isArray(container) ? Number(key) : String(key);
  return Object.hasOwn(container, name) ? (container as Record<string | number, unknown>)[name] : undefined;
}

/** Defines an own member, so even a `__proto__` that got this far could not replace a prototype. */
function setMember(container: Record<string, unknown> | unknown[], key: PathSegment, value: unknown): void {
  const name = Array.isArray(container) ? Number(key) : String(key);
  Object.defineProperty(container, name, { value, writable: true, enumerable: true, configurable: true });
}

function valueAt(input: unknown, path: readonly PathSegment[]): unknown {
  let current: unknown = input;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[String(segment)];
  }
  return current;
}

/** A list field (possibly nullable); fields that take any JSON value are not lists. */
function isListShape(shape: FieldShape): boolean {
  const kinds = [...shape.kinds].filter((k) => k !== 'null');
  return kinds.length === 1 && kinds[0] === 'array';
}

function isSecretPath(path: readonly PathSegment[]): boolean {
  return path.some((segment) => typeof segment === 'string' && isSecretField(segment));
}

/** `interfaces[].label` → `interfaces.label`, normalized like flag names. */
function normalizeFilterName(name: string): string {
  return name.replace(/\[\]/g, '').split('.').map(normalizeName).join('.');
}

export function filterFlagName(field: string): string {
  return `--${field.replace(/\[\]/g, '').split('.').map(flagNameOf).join('.')}`;
}

/** The type of a filterable field, from the listed item's schema (`tags` → text, `deprecated` → boolean). */
export function filterShapeOf(op: AnyOperation, field: string): FieldShape {
  let shape: FieldShape | undefined = itemShapeOf(op);
  for (const segment of field.replace(/\[\]/g, '').split('.')) {
    while (shape?.items !== undefined && accepts(shape, 'array') && shape.properties === undefined)
      shape = shape.items;
    shape = shape?.properties?.get(segment);
  }
  while (shape?.items !== undefined && accepts(shape, 'array')) shape = shape.items;
  if (shape === undefined || shape.kinds.size === 0) return TEXT_SHAPE;
  return shape;
}

/** One condition stays as it is; several share one object when their keys differ, else `+and`. */
function combineConditions(
  conditions: readonly Record<string, unknown>[],
): Readonly<Record<string, unknown>> | undefined {
  if (conditions.length === 0) return undefined;
  if (conditions.length === 1) return conditions[0];
  const keys = conditions.flatMap((c) => Object.keys(c));
  if (new Set(keys).size === keys.length) return Object.assign({}, ...conditions) as Record<string, unknown>;
  return { '+and': conditions };
}

// ---------------------------------------------------------------------------------------------
// Bot commands

function parseBotCommand(command: BotCommand, tokens: readonly Token[]): ParsedCommand {
  const usage = command.usage.map((line) => `${SLASH_COMMAND} ${line}`).join('\n');
  let rest = tokens;
  let subcommand: string | undefined;
  let declared = command.flags ?? [];
  let expectedArgs = command.args ?? [];
  if (command.subcommands !== undefined) {
    const names = command.subcommands.map((s) => s.name);
    const [first, ...after] = tokens;
    if (first?.kind !== 'word') {
      return failure(`\`${command.name}\` needs one of: ${names.join(', ')}.`, { usage });
    }
    const found = command.subcommands.find((s) => s.name === first.text.toLowerCase());
    if (found === undefined) {
      const suggestions = suggest(first.text, names).map((name) => `${command.name} ${name}`);
      return failure(
        `\`${command.name}\` has no \`${clip(first.text)}\`; use one of: ${names.join(', ')}.${didYouMean(suggestions)}`,
        { usage, suggestions },
      );
    }
    subcommand = found.name;
    declared = found.flags ?? [];
    expectedArgs = found.args ?? [];
    rest = after;
  }

  const problems: string[] = [];
  const args: string[] = [];
  const flags: Record<string, BotFlagValue> = {};
  let flagsEnded = false;
  for (let index = 0; index < rest.length; index++) {
    const token = rest[index];
    if (token === undefined) continue;
    if (token.kind === 'end-of-flags') {
      flagsEnded = true;
      continue;
    }
    if (token.kind === 'word' || flagsEnded) {
      if (token.kind === 'word') args.push(token.text);
      continue;
    }
    const lookup = findBotFlag(declared, token.name);
    if (lookup === undefined) {
      const candidates = declared.map((f) => `--${f.name}`);
      const hint = didYouMean(suggest(`--${token.name}`, candidates));
      const known = candidates.length > 0 ? ` Its flags: ${candidates.join(', ')}.` : ' It takes no flags.';
      problems.push(
        `--${clip(token.name)}: \`${[command.name, subcommand].filter(Boolean).join(' ')}\` has no such flag.${known}${hint}`,
      );
      if (token.value === undefined && rest[index + 1]?.kind === 'word') index++;
      continue;
    }
    const { flag, negated } = lookup;
    const next = rest[index + 1];
    let value: BotFlagValue | undefined;
    if (flag.value === 'boolean') {
      const text = token.value ?? (next?.kind === 'word' && isBooleanWord(next.text) ? next.text : undefined);
      if (text !== undefined && token.value === undefined) index++;
      const converted =
        text === undefined
          ? { ok: true as const, value: true }
          : convertText(text, BOOLEAN_SHAPE, { secret: false });
      if (!converted.ok) problems.push(`--${flag.name}: ${converted.reason}`);
      else value = negated ? converted.value !== true : converted.value === true;
    } else if (negated) {
      problems.push(`--${clip(token.name)}: only switches have a --no- form`);
    } else if (token.value !== undefined) {
      value = token.value;
    } else if (next?.kind === 'word') {
      value = next.text;
      index++;
    } else {
      problems.push(`--${flag.name}: needs a value`);
    }
    if (value === undefined) continue;
    const previous = flags[flag.name];
    if (flag.repeatable === true && typeof value === 'string') {
      const pieces = value
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p.length > 0);
      flags[flag.name] = [...(Array.isArray(previous) ? previous : []), ...pieces];
    } else if (previous !== undefined) {
      problems.push(`--${flag.name}: given more than once`);
    } else {
      flags[flag.name] = value;
    }
  }
  const name = `\`${[command.name, subcommand].filter(Boolean).join(' ')}\``;
  if (args.length < expectedArgs.length) {
    problems.push(
      `Missing ${expectedArgs.slice(args.length).join(' and ')}: ${name} needs ${expectedArgs.join(' ')}.`,
    );
  } else if (args.length > expectedArgs.length) {
    // The extra words are not repeated: someone may have pasted a token after `login`.
    const takes = expectedArgs.length === 0 ? 'takes no arguments' : `takes ${expectedArgs.join(' ')} only`;
    problems.push(`Too many arguments: ${name} ${takes}, but ${given(args.length)}.`);
  }
  if (problems.length > 0) return failure(problems.join('\n'), { usage });
  return {
    kind: 'bot',
    command: command.name,
    ...(subcommand === undefined ? {} : { subcommand }),
    args,
    flags,
  };
}

function findBotFlag(
  declared: readonly BotFlag[],
  name: string,
): { flag: BotFlag; negated: boolean } | undefined {
  const wanted = normalizeName(name);
  const direct = declared.find((f) => normalizeName(f.name) === wanted);
  if (direct !== undefined) return { flag: direct, negated: false };
  const negation = /^no_/.exec(wanted);
  if (negation === null) return undefined;
  const positive = declared.find((f) => normalizeName(f.name) === wanted.slice(negation[0].length));
  return positive === undefined ? undefined : { flag: positive, negated: true };
}
