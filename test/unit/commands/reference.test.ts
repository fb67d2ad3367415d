import { describe, expect, it } from 'vitest';
import { operations } from '../../../lib/api/operations/index.js';
import { BOT_COMMANDS } from '../../../lib/commands/bot-command-specs.js';
import { renderCommandReference } from '../../../lib/commands/reference.js';
import { commandNameOf, exampleOf, usageOf } from '../../../lib/commands/usage.js';
import { fixtureRegistry, rebuildServer } from './fixture-operations.js';

describe('the command reference', () => {
  const reference = renderCommandReference();

  it('is the same on every rendering (so a freshness check can compare it)', () => {
    expect(renderCommandReference()).toBe(reference);
    expect(reference.endsWith('\n')).toBe(true);
    expect(reference).not.toMatch(/\n{3,}/);
  });

  it('writes actions with spaces where they read back as the action, naming the hyphenated form', () => {
    expect(reference).toContain('- [`managed issues list`](#managed-issues-list) — ');
    expect(reference).toContain('\n### databases mysql backup restore\n');
    expect(reference).toContain('Also typed as `issues-list`.');
    expect(reference).toContain('\n/cloud databases mysql backup restore <instanceId> <backupId>');
    expect(reference).toContain('Example: `/cloud managed issues list`');
    // Spaced, these words could also be `credentials-update` with `login` as its id.
    expect(reference).toContain('\n### managed credentials-update-login\n');
  });

  it('has a section for every operation of the table with its usage, id, scopes and example', () => {
    expect(operations.length).toBeGreaterThan(0);
    for (const op of operations) {
      const start = reference.indexOf(`\n### ${commandNameOf(op)}\n`);
      expect(start, op.id).toBeGreaterThan(-1);
      const end = reference.indexOf('\n### ', start + 1);
      const section = reference.slice(start, end === -1 ? undefined : end);
      expect(section, op.id).toContain(`\n${usageOf(op)}\n`);
      expect(section, op.id).toContain(`(operation \`${op.id}\`)`);
      expect(section, op.id).toContain(`Example: \`/cloud ${exampleOf(op)}\``);
      for (const scope of op.scopes) expect(section, op.id).toContain(`\`${scope}\``);
      if (op.destructive)
        expect(section, op.id).toContain(`Needs approval before it runs: ${op.destructive.consequence}`);
      else expect(section, op.id).toContain('Runs without approval.');
    }
  });

  it('documents every bot command', () => {
    for (const command of BOT_COMMANDS) {
      expect(reference, command.name).toContain(`### ${command.name}\n\n${command.summary}`);
      for (const line of command.usage) expect(reference).toContain(`/cloud ${line}`);
    }
  });

  it('lists the flags of an operation with their nesting', () => {
    const fixtureReference = renderCommandReference(fixtureRegistry);
    expect(fixtureReference).toContain('### nodes rebuild');
    expect(fixtureReference).toContain(usageOf(rebuildServer));
    expect(fixtureReference).toContain('- `--updates <json>` — optional');
    expect(fixtureReference).toContain(
      '  - `--updates.day-of-week <n 1..7>` — optional · whole number, 1 to 7',
    );
    expect(fixtureReference).toContain(
      '- [`nodes rebuild`](#nodes-rebuild) — Rebuild a server *(needs approval)*',
    );
  });
});
