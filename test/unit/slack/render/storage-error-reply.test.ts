import { describe, expect, it } from 'vitest';
import { modalErrorText, renderError } from '../../../../lib/slack/render/errors.js';
import { StoreError, toStoreError } from '../../../../lib/store/errors.js';

/** Storage trouble in the one error-to-reply mapping: its own message, and honest about changes. */

const NOTHING_CHANGED = "The bot's storage is not answering, so nothing was changed. Try again in a minute.";
const timeout = Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });
const unavailable = toStoreError(timeout);

function replyText(reply: { text: string; blocks: readonly unknown[] }): string {
  return `${reply.text}\n${JSON.stringify(reply.blocks)}`;
}

describe('renderError for storage_unavailable', () => {
  it('says nothing was changed where the failure came before any change', () => {
    const reply = renderError(unavailable, { referenceId: 'abcd1234', beforeAnyChange: true });
    expect(reply.text).toBe(NOTHING_CHANGED);
    expect(replyText(reply)).not.toContain('Something went wrong');
  });

  it('does not claim nothing changed where a change may already have happened', () => {
    const reply = renderError(unavailable, { referenceId: 'abcd1234', operationId: 'createVolume' });
    expect(replyText(reply)).toContain('storage is not answering');
    expect(replyText(reply)).not.toContain('nothing was changed');
    expect(replyText(reply)).toContain('check first whether it was made');
    expect(replyText(reply)).toContain('abcd1234');
  });

  it('keeps the SDK’s own error text out of the reply', () => {
    const reply = renderError(
      new StoreError('storage_unavailable', 'DynamoDB is not answering.', {
        cause: new Error('connect ECONNREFUSED 10.0.0.7:443'),
      }),
      { referenceId: 'abcd1234', beforeAnyChange: true },
    );
    expect(replyText(reply)).not.toContain('10.0.0.7');
    expect(replyText(reply)).not.toContain('ECONNREFUSED');
  });

  it('leaves other store errors to the generic reply', () => {
    const reply = renderError(new StoreError('malformed_item', 'A stored link item is malformed (status).'), {
      referenceId: 'abcd1234',
      beforeAnyChange: true,
    });
    expect(reply.text).toContain('Something went wrong (ref abcd1234)');
  });
});

describe('modalErrorText', () => {
  it('tells the person submitting a form that storage is down, and what may not have happened', () => {
    expect(modalErrorText(unavailable, 'your token may not be linked yet')).toBe(
      "The bot's storage is not answering, so your token may not be linked yet. Submit again in a minute.",
    );
  });

  it('has nothing to say about other errors', () => {
    expect(modalErrorText(new TypeError('bug'), 'your token may not be linked yet')).toBeUndefined();
  });
});
