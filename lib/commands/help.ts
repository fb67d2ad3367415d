import type { AnyOperation, Grant } from '../api/operation.js';
import { requestShapeOf } from './field-shapes.js';
import { fitted, type HelpDoc, type HelpFit, type HelpSection, topicHelp } from './help-topics.js';
import { positionalName } from './names.js';
import { registry } from './operation-registry.js';
import { filterFlagName, filterShapeOf } from './parse/flags.js';
import type { HelpTopic } from './parse/result.js';
import type { CommandRegistry } from './registry.js';
import { SLASH_COMMAND } from './registry.js';
import {
  alsoTypedAs,
  commandNameOf,
  describeShape,
  exampleOf,
  flagDocsOf,
  placeholderOf,
  usageOf,
} from './usage.js';

/**
 * Help for any topic, with the flags of one operation read from its request schema. Everything
 * but an operation's own help comes from `help-topics.ts`, which needs no schema; this module
 * loads the table and zod, so the Slack function imports it only for `/cloud help <group> <action>`.
 */

export function helpFor(
  topic: HelpTopic | undefined,
  commands: CommandRegistry = registry,
  fit?: HelpFit,
): HelpDoc {
  const answer = topicHelp(topic, commands, fit);
  return 'doc' in answer ? answer.doc : fitted(operationHelp(answer.operation));
}

function operationHelp(op: AnyOperation): HelpDoc {
  const sections: HelpSection[] = [{ lines: [op.summary, `\`${usageOf(op)}\``] }];
  const aliases = alsoTypedAs(op);
  if (aliases.length > 0) {
    sections[0] = {
      lines: [
        op.summary,
        `\`${usageOf(op)}\``,
        `Also typed as ${aliases.map((a) => `\`${a}\``).join(', ')}.`,
      ],
    };
  }

  const shape = requestShapeOf(op);
  if (op.pathParams.length > 0) {
    sections.push({
      heading: 'Arguments',
      lines: op.pathParams.map((param) => {
        const field = shape.properties?.get(param);
        const described = field === undefined ? 'text' : describeShape(field);
        return `\`${positionalName(param)}\` — required · ${described}`;
      }),
    });
  }

  const flags = flagDocsOf(op);
  if (flags.length > 0) {
    sections.push({
      heading: 'Flags',
      lines: flags.map((doc) => {
        const indent = '    '.repeat(doc.depth);
        const written = doc.placeholder === '' ? doc.flag : `${doc.flag} ${doc.placeholder}`;
        return `${indent}\`${written}\` — ${doc.required ? 'required' : 'optional'} · ${doc.description}`;
      }),
    });
  }

  if (op.paginated) sections.push({ heading: 'List options', lines: listOptionLines(op) });
  // List options already mention --json.
  const json = op.paginated ? [] : ['Add `--json` for the raw JSON result.'];
  sections.push({ heading: 'Access', lines: [...accessLines(op), ...json] });
  sections.push({ heading: 'Example', lines: [`\`${SLASH_COMMAND} ${exampleOf(op)}\``] });
  return { title: `${SLASH_COMMAND} ${commandNameOf(op)}`, sections };
}

const GRANT_WORDS: Readonly<Record<Grant, string>> = {
  add_databases: 'the add_databases grant',
  add_volumes: 'the add_volumes grant',
  add_nodes: 'the add_nodes grant',
  add_images: 'the add_images grant',
  read_only: 'read-only access to the entity',
  read_write: 'read-write access to the entity',
  unrestricted_only: '',
};

function grantLines(grants: readonly Grant[]): string[] {
  const lines: string[] = [];
  if (grants.includes('unrestricted_only')) lines.push('Only unrestricted users may run it.');
  const needed = grants.filter((grant) => grant !== 'unrestricted_only').map((grant) => GRANT_WORDS[grant]);
  if (needed.length > 0) lines.push(`Restricted users need ${needed.join(' and ')}.`);
  return lines;
}

/** The list options of a paginated operation (shared with the command reference). */
export function listOptionLines(op: AnyOperation): string[] {
  const lines = [
    '`--all` — every item, one a line, up to 100 a message (Next for the rest), or as a CSV or JSON file to your DMs',
    "`--page <n>` — which page, as the list numbers them (from 1); with `--json`, the API's page",
    '`--page-size <n 25..500>` — items per API page of `--json` (default 100)',
    '`--json` — the raw JSON result (one API page)',
  ];
  if (op.filterable.length === 0) {
    lines.push('This list cannot be filtered or sorted.');
    return lines;
  }
  for (const field of op.filterable) {
    const placeholder = placeholderOf(field, filterShapeOf(op, field));
    const written = placeholder === '' ? filterFlagName(field) : `${filterFlagName(field)} ${placeholder}`;
    lines.push(`\`${written}\` — only items whose ${field} is the value (repeat for any of several)`);
  }
  lines.push(`\`--filter <json>\` — a raw filter object, e.g. \`--filter '{"${op.filterable[0]}": "x"}'\``);
  const unorderable = new Set(op.unorderable ?? []);
  const sortable = op.filterable.filter((field) => !unorderable.has(field));
  if (sortable.length > 0) {
    lines.push(`\`--order-by <field>\` — sort by one of: ${sortable.join(', ')}`);
    lines.push('`--order <asc|desc>` — sort direction (default asc; needs `--order-by`)');
  }
  return lines;
}

/** Scopes, grants, approval, charges and privacy of an operation (shared with the command reference). */
export function accessLines(op: AnyOperation): string[] {
  const lines: string[] = [];
  const scopes = op.scopes.map((s) => `\`${s}\``).join(', ');
  if (op.access === 'public') {
    lines.push(
      op.scopes.length > 0
        ? `Works without a linked token; with one, token scopes: ${scopes}.`
        : 'Works without a linked token.',
    );
  } else if (op.access === 'any-token') lines.push('Works with any linked token, whatever its scopes.');
  else lines.push(`Token scopes: ${scopes}.`);
  lines.push(...grantLines(op.grants ?? []));
  if (op.destructive !== undefined)
    lines.push(`Needs approval before it runs: ${op.destructive.consequence}`);
  if (op.charges === true) lines.push('May bill the account.');
  if (op.sensitive) lines.push('The result is shown only to you.');
  if (op.watch !== undefined) {
    lines.push(`The reply follows the ${op.watch.statusField} until it is ${op.watch.final.join(' or ')}.`);
  }
  return lines;
}
