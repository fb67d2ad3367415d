import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { completionData } from '../../infra/local/slack/page/commands.js';

/**
 * The pure half of the sandbox page's browser script: mrkdwn to escaped HTML, and what the command
 * box completes. The script is evaluated as the browser would (a plain script), without a document.
 */

interface Completion {
  items: Array<{ value: string; word: string; summary: string }>;
  usage: string;
}

interface ClientFunctions {
  mrkdwnToHtml(
    text: string,
    names?: { users?: Record<string, string>; channels?: Record<string, string> },
  ): string;
  completionsFor(typed: string, data: unknown): Completion;
}

function loadClient(): ClientFunctions {
  const source = readFileSync(new URL('../../infra/local/slack/page/client.js', import.meta.url), 'utf8');
  const context: Record<string, unknown> = { URL };
  runInNewContext(source, context);
  return context as unknown as ClientFunctions;
}

const client = loadClient();
const html = (text: string) => client.mrkdwnToHtml(text, { users: { U0BOB: 'Bob Developer' } });

describe('mrkdwn', () => {
  it('renders bold, italic, strike-through and inline code', () => {
    expect(html('*web-1*  `42`')).toBe('<b>web-1</b>  <code>42</code>');
    expect(html('_soon_ and ~gone~')).toBe('<i>soon</i> and <s>gone</s>');
  });

  it('leaves underscores inside words alone', () => {
    expect(html('node_id and volume_id')).toBe('node_id and volume_id');
  });

  it('renders code blocks literally, without formatting inside', () => {
    expect(html('before\n```\n{"a": "*b*"}\n```')).toBe(
      'before<br><pre>{&quot;a&quot;: &quot;*b*&quot;}</pre>',
    );
  });

  it('escapes HTML in the text, including what Slack itself escaped', () => {
    expect(html('<script>alert(1)</script>')).not.toContain('<script');
    expect(html('&lt;img src=x onerror=alert(1)&gt;')).toBe('&lt;img src=x onerror=alert(1)&gt;');
    expect(html('a &amp; b')).toBe('a &amp; b');
  });

  it('turns links into anchors only for http(s) and mailto addresses', () => {
    expect(html('<https://example.com/a?b=1&amp;c=2|the docs>')).toBe(
      '<a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">the docs</a>',
    );
    expect(html('<javascript:alert(1)|click>')).toBe('click');
    expect(html('<https://example.com|"><img src=x>>')).not.toContain('<img');
  });

  it('names mentioned people, shows dates by their fallback, and special mentions', () => {
    expect(html('asked by <@U0BOB>')).toBe('asked by <span class="mention">@Bob Developer</span>');
    expect(html('<@U0NOBODY>')).toBe('<span class="mention">@U0NOBODY</span>');
    expect(html('expires <!date^1700000000^{time}|at 22:13 UTC>')).toBe('expires at 22:13 UTC');
    expect(html('<!here> look')).toBe('<span class="mention">@here</span> look');
  });

  it('shows known emoji shortcodes and leaves unknown ones and times alone', () => {
    expect(html(':white_check_mark: done at 10:30:00 :not_an_emoji:')).toBe(
      '✅ done at 10:30:00 :not_an_emoji:',
    );
  });

  it('quotes lines starting with >', () => {
    expect(html('&gt; quoted\nplain')).toBe('<blockquote>quoted</blockquote>plain');
  });
});

describe('command completion', () => {
  const data = completionData();

  it('offers /cloud for a partial slash command', () => {
    expect(client.completionsFor('/cl', data).items.map((item) => item.value)).toEqual(['/cloud ']);
  });

  it('offers groups and bot commands for the first word, by name or alias', () => {
    const values = client.completionsFor('/cloud vo', data).items.map((item) => item.value);
    expect(values).toEqual(['/cloud volumes ']);
    expect(client.completionsFor('/cloud vol', data).items.map((item) => item.word)).toEqual(['volumes']);
    expect(client.completionsFor('/cloud lo', data).items.map((item) => item.word)).toEqual(
      expect.arrayContaining(['login', 'logout']),
    );
  });

  it('offers the actions of a group, and the usage line once the action is named', () => {
    const actions = client.completionsFor('/cloud volumes d', data).items.map((item) => item.word);
    expect(actions).toContain('volumes delete');
    expect(actions.every((word) => word.startsWith('volumes d'))).toBe(true);
    expect(client.completionsFor('/cloud volumes delete 12', data).usage).toMatch(
      /^\/cloud volumes delete </,
    );
  });

  it('offers the subcommands of a bot command', () => {
    const words = client.completionsFor('/cloud approvals ', data).items.map((item) => item.word);
    expect(words).toEqual(['approvals list', 'approvals policy']);
  });

  it('offers nothing for text that is not the bot command', () => {
    expect(client.completionsFor('/giphy', data).items).toEqual([]);
    expect(client.completionsFor('/cloud nosuchgroup x', data)).toEqual({ items: [], usage: '' });
  });
});
