import { describe, expect, it } from 'vitest';
import { BOT_COMMANDS } from '../../../lib/commands/bot-command-specs.js';
import { isBotCommand } from '../../../lib/commands/registry.js';
import { didYouMean, editDistance, suggest } from '../../../lib/commands/suggest.js';
import { fixtureRegistry, listServers, rebuildServer, restoreBackup } from './fixture-operations.js';

describe('the registry', () => {
  it('holds only the groups that have operations, in table order', () => {
    expect(fixtureRegistry.groups.map((g) => g.name)).toEqual(['profile', 'databases', 'nodes']);
  });

  it('finds groups by name or alias, in any case', () => {
    for (const name of ['nodes', 'node', 'NODE', 'instances']) {
      const found = fixtureRegistry.findGroup(name);
      expect(found.found && found.value.name, name).toBe('nodes');
    }
    for (const name of ['db', 'database', 'databases']) {
      const found = fixtureRegistry.findGroup(name);
      expect(found.found && found.value.name, name).toBe('databases');
    }
  });

  it('suggests each group once, by canonical name', () => {
    expect(fixtureRegistry.findGroup('nodess')).toEqual({ found: false, suggestions: ['nodes'] });
    expect(fixtureRegistry.findGroup('zzzzzz')).toEqual({ found: false, suggestions: [] });
  });

  it('finds actions by name or alias', () => {
    const nodes = fixtureRegistry.groups.find((g) => g.name === 'nodes');
    if (nodes === undefined) throw new Error('nodes group missing');
    expect(fixtureRegistry.findAction(nodes, 'ls')).toEqual({ found: true, value: listServers });
    expect(fixtureRegistry.findAction(nodes, 'REBUILD')).toEqual({ found: true, value: rebuildServer });
    expect(fixtureRegistry.findAction(nodes, 'rebuld')).toEqual({ found: false, suggestions: ['rebuild'] });
  });

  it('suggests actions that contain what was typed', () => {
    const databases = fixtureRegistry.groups.find((g) => g.name === 'databases');
    if (databases === undefined) throw new Error('databases group missing');
    expect(fixtureRegistry.findAction(databases, 'backup-restore')).toEqual({
      found: false,
      suggestions: [restoreBackup.action],
    });
  });

  it('registers the bot commands beside the groups', () => {
    expect(fixtureRegistry.botCommands.map((c) => c.name)).toEqual([
      'help',
      'login',
      'logout',
      'whoami',
      'use',
      'approvals',
      'policy',
      'reports',
      'alias',
      'audit',
      'mfa',
      'agents',
      'settings',
      'runbook',
    ]);
    const topic = fixtureRegistry.findTopic('Reports');
    expect(topic.found && isBotCommand(topic.value) && topic.value.name).toBe('reports');
  });

  it('suggests among groups and bot commands together', () => {
    expect(fixtureRegistry.findTopic('logni')).toEqual({ found: false, suggestions: ['login'] });
    expect(fixtureRegistry.findTopic('nodse')).toEqual({ found: false, suggestions: ['nodes'] });
    expect(fixtureRegistry.findTopic('lo')).toEqual({ found: false, suggestions: ['login', 'logout'] });
  });

  it('gives every bot command a usage line and an example that starts with its name', () => {
    for (const command of BOT_COMMANDS) {
      expect(command.usage.length, command.name).toBeGreaterThan(0);
      for (const line of [...command.usage, ...command.examples])
        expect(line.startsWith(command.name), line).toBe(true);
    }
  });
});

describe('suggestions', () => {
  it('counts an adjacent swap as one edit', () => {
    expect(editDistance('atatch', 'attach')).toBe(1);
    expect(editDistance('volumes', 'volumes')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('ranks near misses and prefixes before substrings', () => {
    expect(suggest('list', ['issues-list', 'lst', 'list-all'])).toEqual(['lst', 'list-all', 'issues-list']);
  });

  it('allows fewer edits for short words', () => {
    expect(suggest('ab', ['xy', 'abc'])).toEqual(['abc']);
  });

  it('words the hint for one or several names', () => {
    expect(didYouMean([])).toBe('');
    expect(didYouMean(['a'])).toBe(' Did you mean `a`?');
    expect(didYouMean(['a', 'b', 'c'])).toBe(' Did you mean `a`, `b` or `c`?');
  });
});
