import { describe, expect, it } from 'vitest';
import { operations } from '../../../lib/api/operations/index.js';
import { requestShapeOf } from '../../../lib/commands/field-shapes.js';
import { helpFor } from '../../../lib/commands/help.js';
import {
  helpToText,
  SECTION_TEXT_LIMIT,
  sectionText,
  slackTextLength,
  TITLE_LIMIT,
} from '../../../lib/commands/help-topics.js';
import { normalizeName } from '../../../lib/commands/names.js';
import { registry } from '../../../lib/commands/operation-registry.js';
import { parseCommand } from '../../../lib/commands/parse.js';
import { actionNamesOf } from '../../../lib/commands/registry.js';
import { exampleOf, usageOf } from '../../../lib/commands/usage.js';

/**
 * The command language over the whole operations table: written to pass for whatever rows
 * exist, asserting on every row it sees.
 */

/** Flags the parser keeps for itself; a request field of the same name could not be typed. */
const RESERVED = ['all', 'json', 'order', 'order_by', 'filter', 'help'];

describe('every operation of the table as a command', () => {
  it('is in the registry under its group, by its action and every alias', () => {
    expect(operations.length).toBeGreaterThan(0);
    for (const op of operations) {
      const group = registry.findGroup(op.group);
      expect(group.found, op.id).toBe(true);
      if (!group.found) continue;
      for (const name of actionNamesOf(op)) {
        expect(registry.findAction(group.value, name), `${op.id} as ${name}`).toEqual({
          found: true,
          value: op,
        });
      }
    }
  });

  it('parses its own example into itself', () => {
    for (const op of operations) {
      const parsed = parseCommand(op.example);
      const outcome = parsed.kind === 'operation' ? parsed.op.id : JSON.stringify(parsed);
      expect(outcome, `${op.id}: ${op.example}`).toBe(op.id);
    }
  });

  it('has its path parameters among its request fields, in path order', () => {
    for (const op of operations) {
      const fields = [...(requestShapeOf(op).properties?.keys() ?? [])];
      for (const param of op.pathParams) expect(fields, `${op.id} ${param}`).toContain(param);
      expect(usageOf(op), op.id).toContain(op.pathParams.map((p) => `<${p}>`).join(' '));
    }
  });

  it('has no request field that a reserved option would hide', () => {
    for (const op of operations) {
      const fields = [...(requestShapeOf(op).properties?.keys() ?? [])].map(normalizeName);
      expect(
        fields.filter((field) => RESERVED.includes(field)),
        op.id,
      ).toEqual([]);
      if (!op.paginated)
        expect(
          fields.filter((f) => f === 'page' || f === 'page_size'),
          op.id,
        ).toEqual([]);
    }
  });

  it('names each missing path parameter when called without arguments', () => {
    for (const op of operations.filter((o) => o.pathParams.length > 0)) {
      const parsed = parseCommand(`${op.group} ${op.action}`);
      expect(parsed.kind, op.id).toBe('error');
      if (parsed.kind === 'error') expect(parsed.message, op.id).toContain(`Missing <${op.pathParams[0]}>`);
    }
  });
});

describe('help over the whole table', () => {
  it('gives every action help with its usage, example, scopes and approval, within Slack limits', () => {
    for (const op of operations) {
      const doc = helpFor({ group: op.group, action: op.action });
      const text = helpToText(doc);
      expect(doc.title, op.id).toBe(`/cloud ${op.group} ${registry.spokenAction(op)}`);
      expect(doc.title.length, op.id).toBeLessThanOrEqual(TITLE_LIMIT);
      expect(text, op.id).toContain(`\`${usageOf(op)}\``);
      expect(text, op.id).toContain(`\`/cloud ${exampleOf(op)}\``);
      for (const scope of op.scopes) expect(text, op.id).toContain(`\`${scope}\``);
      if (op.destructive) expect(text, op.id).toContain(op.destructive.consequence);
      if (op.sensitive) expect(text, op.id).toContain('shown only to you');
      if (op.paginated) expect(text, op.id).toContain('`--all`');
      for (const section of doc.sections) {
        expect(slackTextLength(sectionText(section)), op.id).toBeLessThanOrEqual(SECTION_TEXT_LIMIT);
      }
    }
  });

  it('lists every action of each group in the group help, marking those that need approval', () => {
    for (const group of registry.groups) {
      const doc = helpFor({ group: group.name });
      const lines = doc.sections.flatMap((s) => s.lines);
      for (const op of group.actions) {
        const line = lines.find((l) =>
          l.startsWith(
            `\`${[registry.spokenAction(op), ...op.pathParams.map((p) => `<${p}>`)].join(' ')}\` — `,
          ),
        );
        expect(line, op.id).toBeDefined();
        expect(line?.includes('needs approval'), op.id).toBe(op.destructive !== undefined);
      }
      for (const section of doc.sections) {
        expect(slackTextLength(sectionText(section)), group.name).toBeLessThanOrEqual(SECTION_TEXT_LIMIT);
      }
    }
  });

  it('lists all node actions under help nodes', () => {
    const nodeActions = operations.filter((op) => op.group === 'nodes');
    const text = helpToText(helpFor({ group: 'nodes' }));
    for (const op of nodeActions) expect(text, op.id).toContain(`\`${registry.spokenAction(op)}`);
  });

  it('keeps the overview within Slack limits and names every group', () => {
    const doc = helpFor(undefined);
    for (const group of registry.groups)
      expect(helpToText(doc)).toContain(`\`${group.name}\` — ${group.summary}`);
    for (const section of doc.sections)
      expect(slackTextLength(sectionText(section))).toBeLessThanOrEqual(SECTION_TEXT_LIMIT);
  });

  it('suggests a close topic for an unknown one', () => {
    expect(helpFor({ group: 'nodse' }).suggestions).toEqual(['nodes']);
    expect(helpFor({ group: 'volumes', action: 'atach' }).suggestions?.[0]).toBe('volumes attach');
  });
});
