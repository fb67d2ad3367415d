import { describe, expect, it } from 'vitest';
import {
  actionButton,
  actionsBlock,
  codeSections,
  confirmDialog,
  overflowMenu,
  truncateMrkdwn,
} from '../../../lib/slack-kit/blocks.js';
import { ActionId, actionIdPattern } from '../../../lib/slack-kit/interaction-ids.js';
import { SLACK_LIMITS } from '../../../lib/slack-kit/limits.js';
import { expectSendable } from '../slack/render/message-checks.js';

describe('actionsBlock', () => {
  it('suffixes repeated action ids so Slack accepts the block, and the pattern matches them all', () => {
    const run = (label: string) =>
      actionButton({ label, actionId: ActionId.run, payload: { operationId: 'volumes.view', input: {} } });
    const block = actionsBlock([run('A'), run('B'), run('C')]);
    const ids = block?.elements.map((e) => ('action_id' in e ? e.action_id : undefined));
    expect(ids).toEqual(['op:run', 'op:run:2', 'op:run:3']);
    for (const id of ids ?? []) expect(id).toMatch(actionIdPattern(ActionId.run));
    expect('op:runner').not.toMatch(actionIdPattern(ActionId.run));
    expect('op:page').not.toMatch(actionIdPattern(ActionId.run));
  });

  it('is left out when no element fits', () => {
    expect(actionsBlock([undefined])).toBeUndefined();
  });
});

describe('element builders', () => {
  it('leave out a button whose payload would pass the value limit', () => {
    const payload = { operationId: 'volumes.list', input: { label: 'x'.repeat(SLACK_LIMITS.buttonValue) } };
    expect(actionButton({ label: 'Next', actionId: ActionId.page, payload })).toBeUndefined();
  });

  it('cut confirm dialog texts to their limits', () => {
    const dialog = confirmDialog({
      title: 't'.repeat(500),
      text: 'x'.repeat(500),
      confirm: 'c'.repeat(50),
      deny: 'd'.repeat(50),
    });
    expect(dialog.title?.text).toHaveLength(SLACK_LIMITS.confirmTitle);
    expect(dialog.text.text).toHaveLength(SLACK_LIMITS.confirmText);
    expect(dialog.confirm?.text).toHaveLength(SLACK_LIMITS.confirmButton);
    expect(dialog.deny?.text.endsWith('…')).toBe(true);
  });

  it('make an overflow menu only with at least two options that fit', () => {
    const small = { operationId: 'volumes.view', input: { volumeId: 1 } };
    const big = { operationId: 'volumes.view', input: { label: 'x'.repeat(200) } };
    expect(
      overflowMenu(ActionId.menu, [
        { label: 'View', payload: small },
        { label: 'Big', payload: big },
      ]),
    ).toBeUndefined();
    const menu = overflowMenu(
      ActionId.menu,
      Array.from({ length: 7 }, (_, i) => ({ label: `O${i}`, payload: small })),
    );
    expect(menu?.options).toHaveLength(SLACK_LIMITS.overflowOptions);
  });

  it('never end cut text in half an escape', () => {
    expect(truncateMrkdwn('ab &amp; cd', 6)).toBe('ab …');
    expect(truncateMrkdwn('short', 10)).toBe('short');
  });
});

describe('codeSections', () => {
  it('splits long text into code blocks within the section limit, at line ends', () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i} <${'x'.repeat(20)}>`).join('\n');
    const { sections, complete } = codeSections(text, 100_000);
    expect(complete).toBe(true);
    expect(sections.length).toBeGreaterThan(3);
    for (const section of sections) {
      const body = section.text?.text ?? '';
      expect(body.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
      expect(body.startsWith('```\nline ')).toBe(true);
      expect(body.endsWith('&gt;\n```')).toBe(true);
    }
  });

  it('stops at the budget and reports that it did', () => {
    const { sections, complete } = codeSections('y'.repeat(70_000), 9000);
    expect(complete).toBe(false);
    expect(sections.map((s) => s.text?.text.length ?? 0).reduce((a, b) => a + b, 0)).toBeLessThan(9100);
    expectSendable({ text: 'json', blocks: sections });
  });
});
