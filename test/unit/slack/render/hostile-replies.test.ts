import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../lib/api/errors.js';
import { helpFor } from '../../../../lib/commands/help.js';
import { parseCommand } from '../../../../lib/commands/parse.js';
import { renderApprovalCard } from '../../../../lib/slack/render/approval.js';
import { renderError } from '../../../../lib/slack/render/errors.js';
import { renderHelp } from '../../../../lib/slack/render/help.js';
import { APPROVAL_STATUSES } from '../../../../lib/store/approvals.js';
import { liveMarkup as liveMarkupIn } from '../../../support/markup.js';
import type { Message } from './message-checks.js';

/**
 * The replies that echo what a person typed or what the API said about it: errors with the API's
 * reasons, parse errors naming the word that was not understood, help for an unknown topic, and
 * approval cards in every state. In each, only the bot's own markup may be live; a typed or
 * returned `<!channel>` is text.
 */

const HOSTILE = ['<!channel>', '<!here>', '<!everyone>', '<@U123>', '<http://evil|innocent>', '&lt;'];

/** Live markup in `text` and mrkdwn texts, except dates and the mention of the fixture's requester. */
const liveMarkup = (message: Message) => liveMarkupIn(message, /^<(!date\^[^<>]*|@U0REQUESTER)>$/);

const STATUSES = APPROVAL_STATUSES;

describe('hostile text echoed in replies', () => {
  it.each(HOSTILE)("the API's message and reasons %s in every kind of API error", (value) => {
    for (const code of ['bad_request', 'not_found', 'forbidden', 'server_error', 'rate_limited'] as const) {
      const error = new ApiError(code, value, { status: 400, errors: [{ field: value, reason: value }] });
      const reply = renderError(error, { referenceId: 'r1', input: { volumeId: value } });
      expect(liveMarkup(reply), code).toEqual([]);
    }
  });

  it.each(HOSTILE)('a parse error naming the word %s', (value) => {
    for (const text of [`"${value}"`, `volumes "${value}"`, `volumes list --label "${value}" --x 1`]) {
      const parsed = parseCommand(text);
      expect(parsed.kind).toBe('error');
      expect(liveMarkup(renderError(parsed, { referenceId: 'r1' })), text).toEqual([]);
    }
  });

  it.each(HOSTILE)('help for the unknown topic %s', (value) => {
    expect(liveMarkup(renderHelp(helpFor({ group: value })))).toEqual([]);
    expect(liveMarkup(renderHelp(helpFor({ group: 'volumes', action: value })))).toEqual([]);
  });

  it.each(HOSTILE)('an approval card about %s, in every state', (value) => {
    for (const status of STATUSES) {
      const message = renderApprovalCard({
        approval: {
          id: 'a1b2c3d4',
          operationId: 'managed.credentials-delete',
          requester: 'U0REQUESTER',
          status,
          summary: value,
          targetLabel: value,
          consequence: value,
          approvals: [],
          requiredApprovals: 1,
          decideBy: new Date('2030-01-01T00:15:00Z'),
          result: { outcome: 'failed', detail: value },
          doubtNote: value,
        },
      });
      expect(liveMarkup(message), status).toEqual([]);
    }
  });
});
