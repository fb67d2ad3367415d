import { afterEach, describe, expect, it } from 'vitest';
import { parseCommand } from '../../lib/commands/parse.js';

/**
 * Typed names become object keys (`--a.b` builds `{ a: { b } }`, map keys, JSON values). The
 * names that reach a prototype must be refused with usage, never written: one pollution of
 * `Object.prototype` breaks every later command of every user in the process.
 */

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();

afterEach(() => {
  // Each test leaves the process as it found it, so a regression names the command that broke it.
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

function errorOf(text: string): string {
  const parsed = parseCommand(text);
  if (parsed.kind !== 'error') throw new Error(`${text} parsed as ${parsed.kind}`);
  return parsed.message;
}

describe('dotted flag names through a map of free keys (profile preferences-update)', () => {
  it.each([
    ['--__proto__.polluted 1', '--__proto__.polluted'],
    ['--constructor.prototype.polluted 1', '--constructor.prototype.polluted'],
    ['--theme.__proto__.polluted 1', '--theme.__proto__.polluted'],
    ['--prototype 1', '--prototype'],
  ])('%s is refused, naming the flag', (flags, named) => {
    const message = errorOf(`profile preferences-update ${flags}`);
    expect(message).toContain(named);
    expect(message).toContain('reserved name');
  });

  it('ordinary keys that merely look like Object methods are kept as own keys', () => {
    const parsed = parseCommand('profile preferences-update --toString a --hasOwnProperty b --valueOf c');
    expect(parsed.kind).toBe('operation');
    if (parsed.kind !== 'operation') return;
    expect(Object.keys(parsed.input).sort()).toEqual(['hasOwnProperty', 'toString', 'valueOf']);
  });
});

describe('dotted flag names through declared fields', () => {
  it.each([
    'volumes create --region us-east --label a --__proto__.x 1',
    'nodes create --region us-east --type g6 --constructor.prototype.x 1',
    'volumes list --__proto__ 1',
  ])('%s is refused with usage', (text) => {
    const parsed = parseCommand(text);
    expect(parsed.kind).toBe('error');
    if (parsed.kind === 'error') expect(parsed.usage).toBeDefined();
  });
});

describe('JSON values', () => {
  it.each([
    [`profile preferences-update --theme '{"__proto__":{"polluted":1}}'`, '--theme'],
    [
      `profile preferences-update --theme '{"a":[{"b":{"constructor":{"prototype":{"polluted":1}}}}]}'`,
      '--theme',
    ],
    [`volumes list --filter '{"__proto__":{"polluted":1}}'`, '--filter'],
    [`volumes list --filter '{"+or":[{"label":"a"},{"prototype":1}]}'`, '--filter'],
  ])('%s is refused at any depth', (text, flag) => {
    const message = errorOf(text);
    expect(message).toContain(flag);
    expect(message).toContain('reserved name');
  });

  it('JSON without those keys is still accepted', () => {
    const parsed = parseCommand(`profile preferences-update --theme '{"a":{"b":1}}'`);
    expect(parsed.kind).toBe('operation');
  });
});

describe('names of groups, actions and bot subcommands', () => {
  it.each([
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'volumes __proto__',
    'volumes constructor',
    'volumes valueOf',
    'approvals constructor',
    'reports __proto__',
    'login --__proto__ x',
    'login --constructor x',
  ])('%s is an unknown name, answered with an error', (text) => {
    expect(parseCommand(text).kind).toBe('error');
  });
});

describe('huge and odd input', () => {
  it('a 100 KB flag name is not echoed back whole', () => {
    const message = errorOf(`volumes list --${'x'.repeat(100_000)} 1`);
    expect(message.length).toBeLessThan(2_000);
  });

  it('a 100 KB JSON list is read without overflowing the stack', () => {
    const list = `[${Array.from({ length: 50_000 }, () => '"a"').join(',')}]`;
    const parsed = parseCommand(`nodes create --region us-east --type g6 --tags '${list}'`);
    expect(['operation', 'error']).toContain(parsed.kind);
  });
});
