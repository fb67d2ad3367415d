import { describe, expect, it } from 'vitest';
import { operations } from '../../../lib/api/operations/index.js';
import { isSecretField, requestShapeOf } from '../../../lib/commands/field-shapes.js';
import { parseCommand } from '../../../lib/commands/parse.js';
import type { FieldShape } from '../../../lib/commands/shape.js';
import { flagNameOf } from '../../../lib/commands/usage.js';

/**
 * Every secret input of the operations table is refused on the command line, whatever its value
 * and however the flag is written, and the refusal never repeats the value. The rows are read
 * here, not listed: a new operation with a password field is covered by this test at once.
 */

const VALUE = 'Typed-Secret-Value-93!';

function holdsSecret(shape: FieldShape): boolean {
  return (
    [...(shape.properties ?? [])].some(([key, child]) => isSecretField(key) || holdsSecret(child)) ||
    (shape.items !== undefined && holdsSecret(shape.items))
  );
}

const cases = operations.flatMap((op) =>
  [...(requestShapeOf(op).properties ?? [])]
    .filter(([key, shape]) => isSecretField(key) || holdsSecret(shape))
    .map(([field]) => ({ id: op.id, op, field })),
);

describe('secret inputs on the command line', () => {
  it('finds the root passwords, database passwords and one-time codes of the table', () => {
    const found = cases.map(({ id, field }) => `${id} ${field}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'nodes.create root_pass',
        'nodes.rebuild root_pass',
        'nodes.password root_pass',
        'nodes.disks-create root_pass',
        'profile.tfa-confirm tfa_code',
        'profile.security-questions-answer security_questions',
      ]),
    );
  });

  it.each(cases)('$id refuses --$field before reading the command, without the value', ({ op, field }) => {
    const ids = op.pathParams.map((_, index) => String(1001 + index)).join(' ');
    const flag = `--${flagNameOf(field)}`;
    for (const written of [`${flag} '${VALUE}'`, `${flag}=${VALUE}`, `--form ${flag} ${VALUE}`]) {
      const parsed = parseCommand(`${op.group} ${op.action} ${ids} ${written}`);
      expect(parsed.kind, written).toBe('error');
      if (parsed.kind !== 'error') continue;
      expect(parsed.message).toContain(`\`${flag}\``);
      expect(parsed.message).toContain(`/cloud ${op.group} ${op.action}${ids ? ` ${ids}` : ''} --form`);
      expect(JSON.stringify(parsed)).not.toContain(VALUE);
    }
  });

  it('refuses the flag written in other spellings and as a nested field', () => {
    for (const written of ['--root_pass x1', '--rootPass x1', '--ROOT-PASS x1', '--no-root-pass']) {
      const parsed = parseCommand(`nodes password 1001 ${written}`);
      expect(parsed.kind === 'error' && parsed.message.includes('is a secret'), written).toBe(true);
    }
    const nested = parseCommand(`profile security-questions-answer --security-questions.0.response ${VALUE}`);
    expect(nested.kind === 'error' && nested.message.includes('is a secret')).toBe(true);
    expect(JSON.stringify(nested)).not.toContain(VALUE);
  });

  it('still opens the form and parses commands without a secret', () => {
    expect(parseCommand('nodes password 1001 --form').kind).toBe('form');
    expect(parseCommand('nodes reboot 1001').kind).toBe('operation');
  });
});
