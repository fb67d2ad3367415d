import { describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../../../lib/api/operation.js';
import { operations } from '../../../../lib/api/operations/index.js';
import { renderOperationResult } from '../../../../lib/slack/render/result.js';
import { truncateMrkdwn } from '../../../../lib/slack-kit/blocks.js';
import { slackDate } from '../../../../lib/slack-kit/text.js';
import { publishedExample } from '../../../support/openapi-examples.js';
import type { Message } from './message-checks.js';

/**
 * Times people read: every point in time a renderer shows in mrkdwn is a Slack date token
 * (`<!date^EPOCH^FORMAT|fallback>`, "Date formatting" in api.slack.com/reference/surfaces/formatting),
 * so each reader sees it in their own time zone; the UTC string is only the token's fallback.
 * Slack renders tokens in mrkdwn only, so plain_text keeps the UTC string, and `--json` shows the
 * API's own values.
 */

/** A token as the bot writes it; its fallback is the only place a UTC string may stand. */
const TOKEN = /<!date\^\d+\^[^|<>^]+\|[^<>|]*>/g;
/** An ISO-like date-time: `2026-11-26 20:50`, `2026-11-26T20:50:00`. */
const DATE_TIME = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

function textsOf(message: Message, type: 'mrkdwn' | 'plain_text'): { where: string; text: string }[] {
  const found = type === 'mrkdwn' ? [{ where: 'text', text: message.text }] : [];
  const walk = (value: unknown, where: string): void => {
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) walk(item, `${where}/${index}`);
    } else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      if (record.type === type && typeof record.text === 'string') found.push({ where, text: record.text });
      for (const [key, nested] of Object.entries(record)) walk(nested, `${where}/${key}`);
    }
  };
  walk(message.blocks, 'blocks');
  return found;
}

function pathInput(op: AnyOperation): Record<string, unknown> {
  return Object.fromEntries(op.pathParams.map((param) => [param, 7]));
}

const withExamples = operations.flatMap((op) => {
  const example = publishedExample(op);
  return example === undefined ? [] : [{ op, example }];
});

describe('slackDate', () => {
  it('writes a token with the UTC time as its fallback', () => {
    expect(slackDate('2026-11-26T20:50:18')).toBe(
      '<!date^1795726218^{date_short_pretty} {time}|2026-11-26 20:50 UTC>',
    );
  });

  it('says how long ago where that is the point (a backup taken 2 days ago)', () => {
    expect(slackDate(new Date('2026-11-26T20:50:18Z'), 'ago')).toBe(
      '<!date^1795726218^{ago}|2026-11-26 20:50 UTC>',
    );
  });

  it('shows text that is not a date as escaped text, never a token', () => {
    expect(slackDate('soon <!channel>')).toBe('soon &lt;!channel&gt;');
    expect(slackDate(Number.NaN)).toBe('NaN');
  });

  it('never leaves half a token when mrkdwn is cut to a limit', () => {
    const text = `taken ${slackDate('2026-11-26T20:50:18', 'ago')}`;
    for (let max = 8; max < text.length; max++) {
      expect(truncateMrkdwn(text, max)).not.toMatch(/<[^>]*$/);
    }
  });
});

describe('every operation, rendered from the published example of its answer', () => {
  it('shows every date-time in mrkdwn as a token, the UTC string only as its fallback', () => {
    const outside: string[] = [];
    let tokens = 0;
    for (const { op, example } of withExamples) {
      const message = renderOperationResult(op, pathInput(op), example);
      for (const { where, text } of textsOf(message, 'mrkdwn')) {
        tokens += text.match(TOKEN)?.length ?? 0;
        const left = text.replace(TOKEN, '');
        const stray = left.match(DATE_TIME);
        if (stray) outside.push(`${op.id} ${where}: ${stray[0]} in ${JSON.stringify(text.slice(0, 160))}`);
      }
    }
    expect(outside).toEqual([]);
    // The walk is only worth something if the examples carry times.
    expect(tokens).toBeGreaterThan(50);
  });

  it('keeps tokens out of plain_text, where Slack shows them as written', () => {
    const found: string[] = [];
    for (const { op, example } of withExamples) {
      const message = renderOperationResult(op, pathInput(op), example);
      for (const { where, text } of textsOf(message, 'plain_text')) {
        if (text.includes('<!date^')) found.push(`${op.id} ${where}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('leaves --json output as the API wrote it, with no tokens', () => {
    const found: string[] = [];
    for (const { op, example } of withExamples) {
      const message = renderOperationResult(op, pathInput(op), example, { json: true });
      if (JSON.stringify(message).includes('<!date^')) found.push(op.id);
    }
    expect(found).toEqual([]);
  });
});
