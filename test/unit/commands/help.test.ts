import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineOperation, EmptyResultSchema, IdSchema } from '../../../lib/api/operation.js';
import { BOT_COMMANDS } from '../../../lib/commands/bot-command-specs.js';
import { helpFor } from '../../../lib/commands/help.js';
import {
  type HelpDoc,
  helpToText,
  SECTION_TEXT_LIMIT,
  sectionText,
  slackTextLength,
} from '../../../lib/commands/help-topics.js';
import { createRegistry } from '../../../lib/commands/registry.js';
import { fixtureRegistry } from './fixture-operations.js';

function text(doc: HelpDoc): string {
  return helpToText(doc);
}

describe('help', () => {
  it('lists every group with its summary, and every bot command', () => {
    const overview = text(helpFor(undefined, fixtureRegistry));
    expect(overview).toContain('`nodes` — Compute nodes');
    expect(overview).toContain('`databases` — Managed MySQL');
    expect(overview).toContain('`profile` — Your user profile');
    for (const command of BOT_COMMANDS) expect(overview).toContain(command.summary);
    expect(overview).toContain('`login [--profile NAME]`');
    expect(overview).toContain('`reports add|list|remove|pause|resume|run|quiet|set|snoozes|unsnooze`');
  });

  it("lists a group's actions with their positionals and marks the destructive ones", () => {
    const doc = helpFor({ group: 'nodes' }, fixtureRegistry);
    expect(doc.title).toBe('/cloud nodes');
    const lines = doc.sections.flatMap((s) => s.lines);
    expect(lines).toContain('`list` — List servers');
    expect(lines).toContain('`events list` — List events (no page parameters, no filters)');
    expect(lines).toContain('`rebuild <nodeId>` — Rebuild a server _(needs approval)_');
    expect(text(doc)).toContain('Also typed as `node`, `instances`, `instance`.');
  });

  it('marks private results in the group listing', () => {
    expect(text(helpFor({ group: 'profile' }, fixtureRegistry))).toContain(
      '`tfa confirm` — Confirm a code _(private result)_',
    );
  });

  describe('for one action', () => {
    const doc = helpFor({ group: 'nodes', action: 'rebuild' }, fixtureRegistry);
    const all = text(doc);

    it('starts with the summary and the usage line', () => {
      expect(doc.title).toBe('/cloud nodes rebuild');
      expect(doc.sections[0]?.lines[0]).toBe('Rebuild a server');
      expect(doc.sections[0]?.lines[1]).toMatch(
        /^`\/cloud nodes rebuild <nodeId> --image <text> --root-pass <text 7\.\.128> \[--label <text 3\.\.64>\] \[--size <n 1\.\.100>\] \[--booted\]/,
      );
    });

    it('describes the positional', () => {
      expect(all).toContain('`<nodeId>` — required · whole number, at least 1');
    });

    it('describes each flag: required or optional, type, bounds, enum values, nullability', () => {
      expect(all).toContain('`--root-pass <text 7..128>` — required · text, 7 to 128 characters');
      expect(all).toContain('`--size <n 1..100>` — optional · whole number, 1 to 100');
      expect(all).toContain('`--cluster-size <1|3>` — optional · one of: 1, 3');
      expect(all).toContain('`--booted` — optional · true or false');
      expect(all).toContain('`--group <text 2..50>` — optional · text, 2 to 50 characters; `null` clears it');
      expect(all).toContain(
        '`--configs <id,...>` — optional · list, each item whole number, at least 1; repeat the flag, or separate with commas',
      );
    });

    it('describes the dotted fields of objects and the keys of maps', () => {
      expect(all).toContain('`--updates.frequency <weekly|monthly>` — optional · one of: weekly, monthly');
      expect(all).toContain('`--phone.primary <text>` — required · text');
      expect(all).toContain('`--devices.<key> <json>` — optional');
      expect(all).toContain('`--devices.<key>.disk-id <id>` — optional · whole number, at least 1');
      expect(all).toContain('JSON list of objects with purpose (required), label (at most 3 items)');
    });

    it('states scopes, grants, approval with its consequence, and the example', () => {
      expect(all).toContain('Token scopes: `nodes:read_write`.');
      expect(all).toContain('Restricted users need read-write access to the entity.');
      expect(all).toContain('Needs approval before it runs: Deletes every disk of the server.');
      expect(all).toContain('`/cloud nodes rebuild 7 --image node/debian12 --root-pass "c0rrect-Horse"`');
    });
  });

  it('says when the result is private', () => {
    expect(text(helpFor({ group: 'profile', action: 'tfa-confirm' }, fixtureRegistry))).toContain(
      'The result is shown only to you.',
    );
  });

  it('shows the list options with the filterable and sortable fields of a list', () => {
    const all = text(helpFor({ group: 'nodes', action: 'list' }, fixtureRegistry));
    expect(all).toContain(
      '`--all` — every item, one a line, up to 100 a message (Next for the rest), or as a CSV or JSON file to your DMs',
    );
    expect(all).toContain('`--page-size <n 25..500>`');
    expect(all).toContain('`--label <text>` — only items whose label is the value');
    expect(all).toContain('`--size <n>` — only items whose size is the value');
    expect(all).toContain('`--deprecated` — only items whose deprecated is the value');
    expect(all).toContain('`--order-by <field>` — sort by one of: label, tags, deprecated, size');
    expect(all).toContain('`--filter <json>`');
  });

  it('says when a list cannot be filtered', () => {
    expect(text(helpFor({ group: 'nodes', action: 'events-list' }, fixtureRegistry))).toContain(
      'This list cannot be filtered or sorted.',
    );
  });

  it('finds actions by alias', () => {
    expect(helpFor({ group: 'node', action: 'ls' }, fixtureRegistry).title).toBe('/cloud nodes list');
  });

  it('suggests groups for an unknown topic', () => {
    const doc = helpFor({ group: 'nods' }, fixtureRegistry);
    expect(doc.suggestions).toEqual(['nodes']);
    expect(text(doc)).toContain('Did you mean `nodes`?');
  });

  it('suggests actions for an unknown action', () => {
    const doc = helpFor({ group: 'nodes', action: 'rebiuld' }, fixtureRegistry);
    expect(doc.suggestions).toEqual(['nodes rebuild']);
    expect(text(doc)).toContain('`nodes` has no action `rebiuld`.');
  });

  it('explains a bot command with its subcommands, flags and examples', () => {
    const all = text(helpFor({ group: 'reports' }, fixtureRegistry));
    expect(all).toContain(
      '`/cloud reports add issues|alerts|stats|events|regions [--every INTERVAL | --daily HH:MM] [--tz ZONE] [--action ACTION,...] [--entity TYPE,...] [--region ID,...]`',
    );
    expect(all).toContain('`reports pause` — Stop a subscription from running for now');
    expect(all).toContain('`--daily HH:MM` (add) — Run once a day at this time');
    expect(all).toContain('`/cloud reports add stats --every 6h`');
  });

  it("splits a section over Slack's limit into continued sections, keeping every line", () => {
    const many = Array.from({ length: 60 }, (_, index) =>
      defineOperation({
        group: 'volumes',
        action: `action-${index}`,
        summary: `An action with a long summary that says a great deal about what it does <${'x'.repeat(40)}>`,
        method: 'POST',
        path: `/volumes/{volumeId}/action-${index}`,
        scopes: ['volumes:read_write'],
        paginated: false,
        request: z.strictObject({ volumeId: IdSchema }),
        response: EmptyResultSchema,
        example: `volumes action-${index} 1`,
      }),
    );
    const doc = helpFor({ group: 'volumes' }, createRegistry(many));
    const actionSections = doc.sections.filter((s) => s.heading?.startsWith('Actions'));
    expect(actionSections.length).toBeGreaterThan(1);
    expect(actionSections[1]?.heading).toBe('Actions (continued)');
    for (const section of doc.sections)
      expect(slackTextLength(sectionText(section))).toBeLessThanOrEqual(SECTION_TEXT_LIMIT);
    expect(actionSections.flatMap((s) => s.lines)).toHaveLength(60);
  });

  it('counts the characters Slack escapes against the limit', () => {
    expect(slackTextLength('a<b>&c')).toBe(6 + 3 + 3 + 4);
  });
});
