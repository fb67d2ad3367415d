import type { AnyOperation } from '../api/operation.js';
import type { BotCommand } from './bot-command-specs.js';
import { requestShapeOf } from './field-shapes.js';
import { accessLines, listOptionLines } from './help.js';
import { positionalName } from './names.js';
import { registry } from './operation-registry.js';
import { type CommandGroup, type CommandRegistry, SLASH_COMMAND } from './registry.js';
import { alsoTypedAs, commandNameOf, describeShape, exampleOf, flagDocsOf, usageOf } from './usage.js';

/**
 * The command reference (`docs/commands.md`), generated from the registry like help, so the
 * document cannot drift from what the bot accepts. The output is deterministic: a test compares
 * the committed file with a fresh rendering.
 */
export function renderCommandReference(commands: CommandRegistry = registry): string {
  const parts: string[] = [
    '# Command reference',
    '',
    '<!-- Generated from the operations table by renderCommandReference() in lib/commands/reference.ts. Do not edit by hand. -->',
    '',
    `Every command is typed after \`${SLASH_COMMAND}\`: \`${SLASH_COMMAND} <group> <action> [ID ...] [--field value ...]\`.`,
    'IDs are positional, in the order shown; flags may be written `--node-id 34`, `--node_id=34`; true/false flags',
    'are switches (`--booted`, `--no-booted`, `--booted=false`); objects take JSON or dotted flags',
    '(`--updates.day-of-week 3`); lists take repeated flags or commas. Add `--json` to any command for the raw result.',
    'Actions marked *needs approval* post an approval card and run only once approved.',
    '',
    '## Groups',
    '',
    ...commands.groups.map((group) => `- [\`${group.name}\`](#${group.name}) — ${group.summary}`),
    '',
    '## Bot commands',
    '',
    ...commands.botCommands.flatMap(renderBotCommand),
    ...commands.groups.flatMap(renderGroup),
  ];
  return `${parts
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

function renderBotCommand(command: BotCommand): string[] {
  const flags = [
    ...(command.flags ?? []).map((flag) => ({ flag, where: '' })),
    ...(command.subcommands ?? []).flatMap((sub) =>
      (sub.flags ?? []).map((flag) => ({ flag, where: ` (${sub.name})` })),
    ),
  ];
  return [
    `### ${command.name}`,
    '',
    command.summary,
    '',
    '```',
    ...command.usage.map((line) => `${SLASH_COMMAND} ${line}`),
    '```',
    '',
    ...(command.subcommands ?? []).map((sub) => `- \`${command.name} ${sub.name}\` — ${sub.summary}`),
    ...flags.map(({ flag, where }) => {
      const written =
        flag.kind.type === 'switch' ? `--${flag.name}` : `--${flag.name} ${flag.placeholder ?? 'VALUE'}`;
      return `- \`${written}\`${where} — ${flag.summary}`;
    }),
    ...command.examples.map((example) => `- Example: \`${SLASH_COMMAND} ${example}\``),
    '',
  ];
}

function renderGroup(group: CommandGroup): string[] {
  const aliases =
    group.aliases.length > 0 ? ` Also typed as ${group.aliases.map((a) => `\`${a}\``).join(', ')}.` : '';
  return [
    `## ${group.name}`,
    '',
    `${sentence(group.summary)}${aliases}`,
    '',
    ...group.actions.map(
      (op) => `- [\`${commandNameOf(op)}\`](#${anchorOf(op)}) — ${op.summary}${approvalMark(op)}`,
    ),
    '',
    ...group.actions.flatMap(renderOperation),
  ];
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function anchorOf(op: AnyOperation): string {
  return `${op.group}-${op.action}`.toLowerCase().replace(/[^a-z0-9-]/g, '');
}

function approvalMark(op: AnyOperation): string {
  return op.destructive === undefined ? '' : ' *(needs approval)*';
}

function renderOperation(op: AnyOperation): string[] {
  const shape = requestShapeOf(op);
  const aliases = alsoTypedAs(op);
  const argumentLines = op.pathParams.map((param) => {
    const field = shape.properties?.get(param);
    return `- \`${positionalName(param)}\` — required · ${field === undefined ? 'text' : describeShape(field)}`;
  });
  const flagLines = flagDocsOf(op).map((doc) => {
    const written = doc.placeholder === '' ? doc.flag : `${doc.flag} ${doc.placeholder}`;
    return `${'  '.repeat(doc.depth)}- \`${written}\` — ${doc.required ? 'required' : 'optional'} · ${doc.description}`;
  });
  return [
    `### ${commandNameOf(op)}`,
    '',
    `${sentence(op.summary)}${aliases.length > 0 ? ` Also typed as ${aliases.map((a) => `\`${a}\``).join(', ')}.` : ''}`,
    '',
    '```',
    usageOf(op),
    '```',
    '',
    `\`${op.method} ${op.path}\` (operation \`${op.id}\`)`,
    '',
    ...accessLines(op).map((line) => `- ${line}`),
    ...(op.destructive === undefined ? ['- Runs without approval.'] : []),
    '',
    ...(argumentLines.length > 0 ? ['Arguments:', '', ...argumentLines, ''] : []),
    ...(flagLines.length > 0 ? ['Flags:', '', ...flagLines, ''] : []),
    ...(op.paginated ? ['List options:', '', ...listOptionLines(op).map((line) => `- ${line}`), ''] : []),
    `Example: \`${SLASH_COMMAND} ${exampleOf(op)}\``,
    '',
  ];
}
