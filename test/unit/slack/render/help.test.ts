import { describe, expect, it } from 'vitest';
import { operations } from '../../../../lib/api/operations/index.js';
import { helpFor } from '../../../../lib/commands/help.js';
import { registry } from '../../../../lib/commands/operation-registry.js';
import { renderHelp } from '../../../../lib/slack/render/help.js';
import { expectSendable, visibleText } from './message-checks.js';

describe('renderHelp', () => {
  it('renders the overview with a header and escaped placeholders', () => {
    const message = renderHelp(helpFor(undefined));
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Cloud commands' } });
    const text = visibleText(message);
    expect(text).toContain('`/cloud &lt;group&gt; &lt;action&gt; [ID ...] [--field value ...]`');
    expect(text).toContain('*Groups*');
    expectSendable(message);
  });

  it('fits the help of every group and every action in one message', () => {
    for (const group of registry.groups) expectSendable(renderHelp(helpFor({ group: group.name })));
    for (const op of operations) {
      const message = renderHelp(helpFor({ group: op.group, action: op.action }));
      expectSendable(message);
      expect(visibleText(message), op.id).not.toContain('Cut short');
    }
  });

  it('renders an unknown topic with its suggestions', () => {
    const text = visibleText(renderHelp(helpFor({ group: 'volums' })));
    expect(text).toContain('Did you mean `volumes`?');
  });

  it('leaves out sections that would not fit and says so', () => {
    const doc = {
      title: 'T'.repeat(400),
      sections: Array.from({ length: 60 }, (_, i) => ({ heading: `Part ${i}`, lines: ['<x>'.repeat(700)] })),
    };
    const message = renderHelp(doc);
    expectSendable(message);
    expect(visibleText(message)).toContain('Cut short to fit in one Slack message');
  });
});
