import type { BotCommand } from './bot-command-specs.js';
import { positionalName } from './names.js';
import type { HelpTopic } from './parse/result.js';
import {
  type CommandGroup,
  type CommandOperation,
  type CommandRegistry,
  isBotCommand,
  SLASH_COMMAND,
} from './registry.js';
import { didYouMean } from './suggest.js';

/**
 * Help generated from the registry, as data: a title and sections of lines. The Slack renderer
 * turns a section into one section block (escaping `&`, `<`, `>` as Slack requires); the plain
 * text form serves logs, tests and the local sandbox. Lines use backticks for command text.
 */

export interface HelpSection {
  readonly heading?: string;
  readonly lines: readonly string[];
}

export interface HelpDoc {
  readonly title: string;
  readonly sections: readonly HelpSection[];
  /** Set when the topic was not found: the closest names. */
  readonly suggestions?: readonly string[];
}

/** Slack's limit on a section block's text. */
export const SECTION_TEXT_LIMIT = 3000;
/** Slack's limit on a header block's text. */
export const TITLE_LIMIT = 150;

/**
 * Help fitted to the caller: only the actions their token's scopes and the channel's guardrails
 * allow, with a line saying how many are hidden and why. Without it, help lists everything.
 */
export interface HelpFit {
  allows(op: CommandOperation): boolean;
  /** "your token's scopes and this channel's policy". */
  readonly why: string;
}

/**
 * The help a topic gets from the registry alone: the overview, a group, a bot command, or a name
 * that is not there. A topic naming one operation is answered by `helpFor` (`help.ts`), whose
 * flags come from the operation's request schema; here it comes back as that operation.
 */
export type TopicHelp<Op extends CommandOperation> = { readonly doc: HelpDoc } | { readonly operation: Op };

export function topicHelp<Op extends CommandOperation>(
  topic: HelpTopic | undefined,
  commands: CommandRegistry<Op>,
  fit?: HelpFit,
): TopicHelp<Op> {
  if (topic?.group === undefined) return { doc: fitted(overviewHelp(commands, fit)) };
  const found = commands.findTopic(topic.group);
  if (!found.found) {
    const doc = fitted({
      title: `No command named ${clipTitle(topic.group)}`,
      sections: [
        {
          lines: [
            `There is no \`${topic.group}\` group or command.${didYouMean(found.suggestions)}`,
            `\`${SLASH_COMMAND} help\` lists the groups and commands.`,
          ],
        },
      ],
      suggestions: found.suggestions,
    });
    return { doc };
  }
  if (isBotCommand(found.value)) return { doc: fitted(botCommandHelp(found.value)) };
  const group = found.value;
  if (topic.action === undefined) return { doc: fitted(groupHelp(group, commands, fit)) };
  const action = commands.findAction(group, topic.action);
  if (!action.found) {
    const suggestions = action.suggestions.map((name) => `${group.name} ${name}`);
    const doc = fitted({
      title: `No action ${clipTitle(topic.action)} in ${group.name}`,
      sections: [
        {
          lines: [
            `\`${group.name}\` has no action \`${topic.action}\`.${didYouMean(suggestions)}`,
            `\`${SLASH_COMMAND} help ${group.name}\` lists its actions.`,
          ],
        },
      ],
      suggestions,
    });
    return { doc };
  }
  return { operation: action.value };
}

function clipTitle(text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

// ---------------------------------------------------------------------------------------------
// Topics

function overviewHelp<Op extends CommandOperation>(
  commands: CommandRegistry<Op>,
  fit: HelpFit | undefined,
): HelpDoc {
  const all = commands.groups.flatMap((group) => group.actions);
  const hidden = fit ? all.filter((op) => !fit.allows(op)).length : 0;
  const fitLine =
    fit && hidden > 0
      ? [
          `Fitted to ${fit.why}: ${all.length - hidden} of ${all.length} actions are available to you here ` +
            `(${hidden} hidden). \`${SLASH_COMMAND} help --all\` shows everything.`,
        ]
      : [];
  return {
    title: 'Cloud commands',
    sections: [
      {
        lines: [
          `\`${SLASH_COMMAND} <group> <action> [ID ...] [--field value ...]\``,
          `For example \`${SLASH_COMMAND} volumes list\`, \`${SLASH_COMMAND} volumes attach 12 --node-id 34\`.`,
          ...fitLine,
        ],
      },
      {
        heading: 'Groups',
        lines: commands.groups.map((group) => {
          const available = fit ? group.actions.filter((op) => fit.allows(op)).length : group.actions.length;
          const note =
            fit && available < group.actions.length
              ? ` _(${available} of ${group.actions.length} here)_`
              : '';
          return `\`${group.name}\` — ${group.summary}${note}`;
        }),
      },
      {
        heading: 'Bot commands',
        lines: commands.botCommands.map(
          (command) => `\`${botCommandSynopsis(command)}\` — ${command.summary}`,
        ),
      },
      {
        heading: 'Tips',
        lines: [
          `\`${SLASH_COMMAND} help <group>\` lists a group's actions; \`${SLASH_COMMAND} help <group> <action>\` shows its flags and an example.`,
          'Quote values with spaces: `--label "web server"`. Flags may use - or _ (`--node-id`, `--node_id`).',
          'Actions read as words (`managed issues list`); the hyphenated name (`managed issues-list`) works too.',
          'Lists show as many rows as fit a message: Next or `--page N` for more, `--all` for one line an item, filter flags to narrow them; add `--json` to any command for the raw result.',
          'Destructive actions are not run at once: they post an approval card first.',
        ],
      },
    ],
  };
}

function botCommandSynopsis(command: BotCommand): string {
  if (command.subcommands !== undefined) {
    return `${command.name} ${command.subcommands.map((s) => s.name).join('|')}`;
  }
  return command.usage[0] ?? command.name;
}

function actionMarks(op: CommandOperation): string {
  const marks: string[] = [];
  if (op.destructive !== undefined) marks.push('needs approval');
  if (op.charges === true) marks.push('may bill');
  if (op.sensitive) marks.push('private result');
  return marks.length === 0 ? '' : ` _(${marks.join(', ')})_`;
}

function groupHelp<Op extends CommandOperation>(
  group: CommandGroup<Op>,
  commands: CommandRegistry<Op>,
  fit: HelpFit | undefined,
): HelpDoc {
  const aliases =
    group.aliases.length > 0 ? [`Also typed as ${group.aliases.map((a) => `\`${a}\``).join(', ')}.`] : [];
  const shown = fit ? group.actions.filter((op) => fit.allows(op)) : group.actions;
  const hidden = group.actions.length - shown.length;
  return {
    title: `${SLASH_COMMAND} ${group.name}`,
    sections: [
      { lines: [group.summary, ...aliases] },
      {
        heading: 'Actions',
        lines:
          shown.length > 0
            ? shown.map((op) => {
                const synopsis = [commands.spokenAction(op), ...op.pathParams.map(positionalName)].join(' ');
                return `\`${synopsis}\` — ${op.summary}${actionMarks(op)}`;
              })
            : ['None available to you here.'],
      },
      {
        lines: [
          ...(fit && hidden > 0
            ? [
                `${hidden} action${hidden === 1 ? '' : 's'} hidden: not allowed by ${fit.why}. ` +
                  `\`${SLASH_COMMAND} help ${group.name} --all\` shows them.`,
              ]
            : []),
          `\`${SLASH_COMMAND} help ${group.name} <action>\` shows an action's flags, the access it needs and an example.`,
        ],
      },
    ],
  };
}

function botCommandHelp(command: BotCommand): HelpDoc {
  const sections: HelpSection[] = [
    { lines: [command.summary] },
    { heading: 'Usage', lines: command.usage.map((line) => `\`${SLASH_COMMAND} ${line}\``) },
  ];
  if (command.subcommands !== undefined) {
    sections.push({
      heading: 'Subcommands',
      lines: command.subcommands.map((sub) => `\`${command.name} ${sub.name}\` — ${sub.summary}`),
    });
  }
  const flags = [
    ...(command.flags ?? []).map((flag) => ({ flag, where: '' })),
    ...(command.subcommands ?? []).flatMap((sub) =>
      (sub.flags ?? []).map((flag) => ({ flag, where: ` (${sub.name})` })),
    ),
  ];
  if (flags.length > 0) {
    sections.push({
      heading: 'Flags',
      lines: flags.map(({ flag, where }) => {
        const written =
          flag.kind.type === 'switch' ? `--${flag.name}` : `--${flag.name} ${flag.placeholder ?? 'VALUE'}`;
        return `\`${written}\`${where} — ${flag.summary}`;
      }),
    });
  }
  sections.push({
    heading: 'Examples',
    lines: command.examples.map((example) => `\`${SLASH_COMMAND} ${example}\``),
  });
  return { title: `${SLASH_COMMAND} ${command.name}`, sections };
}

// ---------------------------------------------------------------------------------------------
// Slack limits

/** The text of a section as the Slack renderer lays it out: bold heading, then one line each. */
export function sectionText(section: HelpSection): string {
  return [...(section.heading === undefined ? [] : [`*${section.heading}*`]), ...section.lines].join('\n');
}

/** Length after Slack's escaping of `&`, `<` and `>`, which is what the limit applies to. */
export function slackTextLength(text: string): number {
  let length = text.length;
  for (const char of text) {
    if (char === '&') length += 4;
    else if (char === '<' || char === '>') length += 3;
  }
  return length;
}

/** Splits sections whose text would pass Slack's limit, and shortens an over-long title. */
export function fitted(doc: HelpDoc): HelpDoc {
  const title = doc.title.length > TITLE_LIMIT ? `${doc.title.slice(0, TITLE_LIMIT - 1)}…` : doc.title;
  return { ...doc, title, sections: doc.sections.flatMap(splitSection) };
}

function splitSection(section: HelpSection): HelpSection[] {
  if (slackTextLength(sectionText(section)) <= SECTION_TEXT_LIMIT) return [section];
  const parts: HelpSection[] = [];
  let lines: string[] = [];
  const headingFor = (index: number) =>
    section.heading === undefined
      ? undefined
      : index === 0
        ? section.heading
        : `${section.heading} (continued)`;
  const make = (index: number, body: string[]): HelpSection => {
    const heading = headingFor(index);
    return heading === undefined ? { lines: body } : { heading, lines: body };
  };
  // Room for the longest heading form, so every part fits whatever its heading.
  const room = SECTION_TEXT_LIMIT - slackTextLength(`*${section.heading ?? ''} (continued)*\n`);
  for (const line of section.lines.flatMap((l) => splitLine(l, room))) {
    if (lines.length > 0 && slackTextLength([...lines, line].join('\n')) > room) {
      parts.push(make(parts.length, lines));
      lines = [];
    }
    lines.push(line);
  }
  if (lines.length > 0) parts.push(make(parts.length, lines));
  return parts;
}

/** A single line longer than a whole section is cut into pieces (it does not happen with the table's rows). */
function splitLine(line: string, room: number): string[] {
  if (slackTextLength(line) <= room) return [line];
  const pieces: string[] = [];
  let piece = '';
  for (const char of line) {
    if (slackTextLength(piece + char) > room) {
      pieces.push(piece);
      piece = '';
    }
    piece += char;
  }
  if (piece !== '') pieces.push(piece);
  return pieces;
}

/** The plain-text form: title, then each section with its heading. */
export function helpToText(doc: HelpDoc): string {
  const blocks = doc.sections.map((section) =>
    [...(section.heading === undefined ? [] : [section.heading]), ...section.lines].join('\n'),
  );
  return [doc.title, ...blocks].join('\n\n');
}
