import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { completionData } from '../../infra/local/slack/page/commands.js';
import { parseToolArguments } from '../../infra/local/slack/page/slackbot-panel.js';

/**
 * The pure modules of the sandbox page's browser script: mrkdwn to escaped HTML, what the
 * command box completes, and a Slackbot tool's typed arguments checked before sending. They are
 * imported as the browser imports them (ES modules), without a document.
 */

interface Completion {
  items: Array<{ value: string; word: string; summary: string }>;
  usage: string;
}

interface ClientFunctions {
  mrkdwnToHtml(
    text: string,
    names?: {
      users?: Record<string, string>;
      channels?: Record<string, string>;
      timeZone?: string;
      now?: number;
    },
  ): string;
  completionsFor(typed: string, data: unknown): Completion;
  checkArguments(text: string): { ok: true } | { ok: false; error: string };
}

async function loadClient(): Promise<ClientFunctions> {
  // A path in a variable: the root type-check does not read the page's JavaScript (its own does).
  const load = (file: string): Promise<Partial<ClientFunctions>> =>
    import(fileURLToPath(new URL(`../../infra/local/slack/page/client/${file}`, import.meta.url)));
  const [{ mrkdwnToHtml }, { completionsFor }, { checkArguments }] = await Promise.all([
    load('mrkdwn.js'),
    load('completion.js'),
    load('tool-arguments.js'),
  ]);
  if (!mrkdwnToHtml || !completionsFor || !checkArguments)
    throw new Error('The page script no longer exports these functions.');
  return { mrkdwnToHtml, completionsFor, checkArguments };
}

const client = await loadClient();
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

describe('dates (<!date^…> tokens)', () => {
  // 2026-11-26 20:50:18 UTC, a Thursday: 15:50 that day in New York, 02:20 the next in Kolkata.
  // "Now" is six hours earlier, 14:50 UTC: the 26th in both zones.
  const EPOCH = 1795726218;
  const NOW = (EPOCH - 6 * 3600) * 1000;
  const token = (format: string, fallback = '2026-11-26 20:50 UTC') =>
    `<!date^${EPOCH}^${format}|${fallback}>`;
  const shown = (text: string, timeZone?: string) => {
    const rendered = client.mrkdwnToHtml(
      text,
      timeZone === undefined ? { now: NOW } : { timeZone, now: NOW },
    );
    return rendered.replace(/<[^>]+>/g, '');
  };

  it("shows the time in the reader's own zone, as Slack does", () => {
    expect(shown(token('{date_short_pretty} {time}'), 'America/New_York')).toBe('today 3:50 PM');
    expect(shown(token('{date_short_pretty} {time}'), 'Asia/Kolkata')).toBe('tomorrow 2:20 AM');
  });

  it('fills in every format token Slack documents', () => {
    const zone = 'America/New_York';
    expect(shown(token('{date_num}'), zone)).toBe('2026-11-26');
    expect(shown(token('{date}'), zone)).toBe('November 26th, 2026');
    expect(shown(token('{date_short}'), zone)).toBe('Nov 26, 2026');
    expect(shown(token('{date_long}'), zone)).toBe('Thursday, November 26th, 2026');
    expect(shown(token('{date_pretty}'), zone)).toBe('today');
    expect(shown(token('{date_long_pretty} at {time_secs}'), zone)).toBe('today at 3:50:18 PM');
    expect(shown(token('{ago}'), zone)).toBe('in 6 hours');
  });

  it("says yesterday and tomorrow by the reader's calendar", () => {
    const at = (now: number, format: string) =>
      client.mrkdwnToHtml(token(format), { timeZone: 'Asia/Kolkata', now }).replace(/<[^>]+>/g, '');
    expect(at(NOW, '{date_pretty}')).toBe('tomorrow');
    expect(at((EPOCH + 86_400) * 1000, '{date_short_pretty}')).toBe('yesterday');
    expect(at((EPOCH + 3 * 86_400) * 1000, '{date_pretty}')).toBe('November 27th, 2026');
    expect(at((EPOCH + 3 * 86_400) * 1000, '{ago}')).toBe('3 days ago');
  });

  it('keeps the fallback as the title, and links the date when the token carries a link', () => {
    expect(client.mrkdwnToHtml(token('{time}'), { timeZone: 'UTC', now: NOW })).toBe(
      `<time datetime="2026-11-26T20:50:18.000Z" title="2026-11-26 20:50 UTC">8:50 PM</time>`,
    );
    expect(
      client.mrkdwnToHtml(`<!date^${EPOCH}^{time}^https://example.com/x|then>`, {
        timeZone: 'UTC',
        now: NOW,
      }),
    ).toBe(
      '<a href="https://example.com/x" target="_blank" rel="noopener noreferrer" title="then">8:50 PM</a>',
    );
    expect(shown(`<!date^${EPOCH}^{time}^javascript:alert(1)|then>`, 'UTC')).toBe('8:50 PM');
  });

  it('shows the fallback when the token is malformed or the zone unknown', () => {
    expect(shown('expires <!date^soon^{time}|at 22:13 UTC>', 'UTC')).toBe('expires at 22:13 UTC');
    expect(shown(`<!date^${EPOCH}^|at 22:13 UTC>`, 'UTC')).toBe('at 22:13 UTC');
    expect(shown(token('{time}'), 'Mars/Olympus_Mons')).toBe('2026-11-26 20:50 UTC');
    expect(shown('<!date^1e3^{time}|fallback &amp; more>', 'UTC')).toBe('fallback &amp; more');
  });

  it('escapes what it shows', () => {
    expect(
      client.mrkdwnToHtml(`<!date^${EPOCH}^<b>{time}|"><script>>`, { timeZone: 'UTC', now: NOW }),
    ).not.toContain('<script');
  });
});

describe("a Slackbot tool's typed arguments", () => {
  /** What the page's server answers the same text: the check the browser's must agree with. */
  function serverCheck(text: string): { ok: true } | { ok: false; error: string } {
    try {
      parseToolArguments(text);
      return { ok: true };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  }

  it.each([
    ['an object', '{"operation": "volumes.list", "arguments": {"page": 2}}'],
    ['nothing (no arguments)', '  '],
    ['not JSON', '{"operation": volumes.list}'],
    ['a list', '["volumes.list"]'],
    ['too long', JSON.stringify({ reason: 'x'.repeat(16_384) })],
    ['too deep', `${'{"a":'.repeat(17)}1${'}'.repeat(17)}`],
    ['16 levels deep', `${'{"a":'.repeat(16)}1${'}'.repeat(16)}`],
    ['a prototype key', '{"arguments": {"list": [{"constructor": 1}]}}'],
  ])('are checked in the browser as the page server checks them: %s', (_case, text) => {
    expect(client.checkArguments(text)).toEqual(serverCheck(text));
  });
});
