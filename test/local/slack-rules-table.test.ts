import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLACK_RULES } from '../../infra/local/slack/rules.js';

/**
 * The table of what a real workspace enforces stays honest: every rule cites a source and has a
 * test of the stand-in by itself, a `describe` named by the rule's id in one of the stand-in's
 * rule test files.
 */

const RULE_TEST_DIR = new URL('.', import.meta.url).pathname;

function ruleTestSources(): string {
  return readdirSync(RULE_TEST_DIR)
    .filter((name) => /^slack-(rules|socket-mode).*\.test\.ts$/.test(name))
    .map((name) => readFileSync(join(RULE_TEST_DIR, name), 'utf8'))
    .join('\n');
}

describe('SLACK_RULES', () => {
  it('gives every rule a distinct id, the methods it governs and a source', () => {
    const ids = SLACK_RULES.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of SLACK_RULES) {
      expect(rule.methods.length, rule.id).toBeGreaterThan(0);
      expect(rule.source, rule.id).toMatch(/https:\/\/|#\d+/);
    }
  });

  it.each(SLACK_RULES.map((rule) => rule.id))('has a test of the stand-in by itself for %s', (id) => {
    const sources = ruleTestSources();
    expect(sources).toContain(`describe('${id}'`);
  });
});
