import { PROTOTYPE_KEY_REASON, prototypeKeyPath } from '../../../../lib/prototype-keys.js';
import { truncate } from '../../../../lib/truncate.js';
import type { SlackbotAnswer, SlackbotTool } from '../slackbot.js';
import type { ClientSlackbotAnswer, ClientSlackbotArgument, ClientSlackbotTool } from './client-api.js';

/**
 * The sandbox page's Slackbot panel, on the page server's side: what a person typed as a tool's
 * arguments, checked before Slackbot sends it, and the tools and answers as the page shows them.
 * The page sends the arguments as the text typed, so that every refusal here can say what is
 * wrong with it in words; the browser checks the same first, for a quicker answer.
 */

/** A change request's arguments are a few hundred characters; this is far past any real one. */
export const MAX_ARGUMENTS_CHARS = 16_384;
/** An operation's arguments nest three or four levels; deeper is not a question for the API. */
export const MAX_ARGUMENTS_DEPTH = 16;
/** MCP-FACTS.md §1.5: a tool name is 1-128 of A-Z, a-z, 0-9, `_`, `-` and `.`. */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const MAX_TOOLS = 32;
const MAX_TOOL_ARGUMENTS = 32;
const MAX_DESCRIPTION_CHARS = 2_000;
const MAX_ARGUMENT_DESCRIPTION_CHARS = 300;
/** The bot cuts a tool's text near 60,000 characters; the panel shows no more than that. */
const MAX_ANSWER_CHARS = 64_000;

/** Arguments Slackbot would not send: the message says what is wrong, for the person who typed them. */
export class ToolArgumentsError extends Error {
  override readonly name = 'ToolArgumentsError';
}

/** The typed arguments as the JSON object Slackbot sends; empty text is no arguments. */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (text.length > MAX_ARGUMENTS_CHARS)
    throw new ToolArgumentsError(
      `The arguments are ${text.length} characters long; at most ${MAX_ARGUMENTS_CHARS} are sent.`,
    );
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolArgumentsError(`The arguments are not valid JSON: ${truncate(reason, 200)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ToolArgumentsError(
      'The arguments must be one JSON object, such as {"operation": "volumes.list"}.',
    );
  if (depthOf(value) > MAX_ARGUMENTS_DEPTH)
    throw new ToolArgumentsError(`The arguments nest more than ${MAX_ARGUMENTS_DEPTH} levels deep.`);
  const reserved = prototypeKeyPath(value);
  if (reserved)
    throw new ToolArgumentsError(`The arguments' field ${reserved.join('.')} ${PROTOTYPE_KEY_REASON}.`);
  return value as Record<string, unknown>;
}

/** How deep objects and lists nest in a parsed JSON value, counted without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > MAX_ARGUMENTS_DEPTH) return deepest;
    for (const item of Object.values(next.value)) pending.push({ value: item, depth });
  }
  return deepest;
}

/** The tools Slackbot lists, as the panel offers them: their arguments read from the input schema. */
export function toolsForPanel(tools: readonly SlackbotTool[]): ClientSlackbotTool[] {
  return tools.slice(0, MAX_TOOLS).map((tool) => ({
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: truncate(tool.title, 100) }),
    description: truncate(tool.description, MAX_DESCRIPTION_CHARS),
    readOnly: tool.readOnly,
    destructive: tool.destructive,
    arguments: argumentsOf(tool.inputSchema),
  }));
}

function argumentsOf(schema: Readonly<Record<string, unknown>>): ClientSlackbotArgument[] {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter(isString) : []);
  return Object.entries(properties)
    .slice(0, MAX_TOOL_ARGUMENTS)
    .map(([name, property]) => {
      const { type, description } = (property ?? {}) as { type?: unknown; description?: unknown };
      return {
        name: truncate(name, 64),
        ...(typeof type === 'string' ? { type } : {}),
        required: required.has(name),
        ...(typeof description === 'string'
          ? { description: truncate(description, MAX_ARGUMENT_DESCRIPTION_CHARS) }
          : {}),
      };
    });
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** What Slackbot answered, as the panel shows it. */
export function answerForPanel(
  tool: string,
  answer: SlackbotAnswer,
  durationMs: number,
): ClientSlackbotAnswer {
  return {
    ok: true,
    tool,
    isError: answer.isError,
    text: truncate(answer.text, MAX_ANSWER_CHARS),
    blocks: answer.blocks,
    ...(answer.blocksDropped === undefined ? {} : { blocksDropped: answer.blocksDropped }),
    durationMs: Math.round(durationMs),
  };
}
