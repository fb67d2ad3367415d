import type { AnyOperation } from '../api/operation.js';
import type { EngineKind } from '../api/operations/index.js';
import { type EngineNeutralWords, engineNotNamedMessage } from './engine-verbs.js';
import { requestShapeOf } from './field-shapes.js';
import { registry } from './operation-registry.js';
import { collectFlags } from './parse/flags.js';
import { type FrontParse, parseFront } from './parse/front.js';
import { buildInput, issueMessages } from './parse/input.js';
import { buildListOptions } from './parse/list-options.js';
import { failure, type ParsedCommand, type ParseError, type Problems } from './parse/result.js';
import { type CommandRegistry, SLASH_COMMAND } from './registry.js';
import type { Token } from './tokenize.js';
import { usageOf } from './usage.js';

export type { ParsedCommand } from './parse/result.js';

/**
 * `/cloud <group> <action> [ID ...] [--field value ...]` → what to do. The parser knows every
 * operation's fields from its request schema, converts typed text to the field's type, and
 * validates the assembled request with the schema itself, so a command that parses is a request
 * the table accepts. Its parts live in `parse/`: the front (words, help, bot commands, names),
 * flags, input building and list options.
 */

export function parseCommand(text: string, commands: CommandRegistry = registry): ParsedCommand {
  const front = parseFront(text, commands);
  if (front.kind === 'engine-args') return engineNotNamed(front);
  return readArguments(front);
}

/**
 * `databases view 42` once the engine of database 42 is known: read as that engine's own command
 * (`databases postgresql-view 42`), with its flags, usage and rules.
 */
export function parseForEngine(
  text: string,
  engine: EngineKind,
  commands: CommandRegistry = registry,
): ParsedCommand {
  const front = parseFront(text, commands);
  if (front.kind !== 'engine-args') return readArguments(front);
  const group = commands.findGroup(front.group);
  const action = group.found ? commands.findAction(group.value, `${engine}-${front.action}`) : undefined;
  if (!action?.found) return engineNotNamed(front);
  const { group: _group, action: _action, ...rest } = front;
  return readArguments({ ...rest, kind: 'operation-args', op: action.value });
}

/** Without a lookup (a runbook step, an alias), the command must name its engine. */
function engineNotNamed(front: EngineNeutralWords): ParseError {
  return failure(engineNotNamedMessage(front, SLASH_COMMAND));
}

/** The operation's arguments read against its request schema, with the global flags applied. */
function readArguments(front: Exclude<FrontParse<AnyOperation>, { kind: 'engine-args' }>): ParsedCommand {
  if (front.kind !== 'operation-args') return front;
  const parsed = parseOperation(front.op, front.args);
  if (front.form)
    return { kind: 'form', op: front.op, input: parsed.kind === 'operation' ? parsed.input : {} };
  if (parsed.kind !== 'operation') return parsed;
  return {
    ...parsed,
    ...(front.breakGlass === undefined ? {} : { breakGlass: front.breakGlass }),
    ...(front.reason === undefined ? {} : { reason: front.reason }),
  };
}

// ---------------------------------------------------------------------------------------------
// Operations

/** Every problem is collected before answering, so one reply lists them all. */
function parseOperation(op: AnyOperation, tokens: readonly Token[]): ParsedCommand {
  const root = requestShapeOf(op);
  const problems: Problems = { messages: [], suggestions: [] };
  const error = (): ParseError =>
    failure([...new Set(problems.messages)].join('\n'), {
      usage: usageOf(op),
      suggestions: [...new Set(problems.suggestions)],
    });
  const flags = collectFlags(op, root, tokens, problems);
  if (problems.messages.length > 0) return error();
  const input = buildInput(op, root, flags, problems);
  const options = buildListOptions(op, root, flags, problems, input);
  if (problems.messages.length > 0 || options === undefined) return error();
  const result = op.request.safeParse(input);
  if (!result.success) {
    problems.messages.push(...issueMessages(op, root, result.error.issues, input));
    return error();
  }
  const data = result.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return failure(`\`${op.group} ${op.action}\` could not be prepared.`, { usage: usageOf(op) });
  }
  return { kind: 'operation', op, input: data as Record<string, unknown>, options };
}
