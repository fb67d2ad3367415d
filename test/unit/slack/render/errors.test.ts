import { describe, expect, it } from 'vitest';
import { ApiError, errorFromResponse, toApiError } from '../../../../lib/api/errors.js';
import { parseCommand } from '../../../../lib/commands/parse.js';
import { renderError } from '../../../../lib/slack/render/errors.js';
import { ActionId } from '../../../../lib/slack-kit/interactions.js';
import { FULL_TOKEN } from './fixtures.js';
import { buttons, everything, expectSendable, visibleText } from './message-checks.js';

const ref = { referenceId: 'abc123' };

describe('renderError: API errors', () => {
  it('invalid request: the fields and reasons, and an example', () => {
    const error = new ApiError('invalid_request', 'volumes.create: label: must be 1 to 32 characters', {
      operationId: 'volumes.create',
      errors: [{ field: 'label', reason: 'must be 1 to 32 characters' }],
    });
    const message = renderError(error, ref);
    const text = visibleText(message);
    expect(text).toContain('That request is not valid.');
    expect(text).toContain('• `label`: must be 1 to 32 characters');
    expect(text).toContain('`/cloud volumes create --label db-data --region us-east --size 50`');
    expectSendable(message);
  });

  it('bad request: the reasons the API gave', () => {
    const error = errorFromResponse({
      status: 400,
      operationId: 'nodes.clone',
      bodyText: JSON.stringify({
        errors: [{ reason: 'Too many concurrent clones' }, { field: 'region', reason: 'is required' }],
      }),
    });
    const text = visibleText(renderError(error, ref));
    expect(text).toContain('The API refused the request.');
    expect(text).toContain('• Too many concurrent clones');
    expect(text).toContain('• `region`: is required');
  });

  it('unauthorized: log in again, with a login button', () => {
    const error = errorFromResponse({
      status: 401,
      operationId: 'volumes.list',
      bodyText: '{"errors":[{"reason":"Invalid Token"}]}',
    });
    const message = renderError(error, ref);
    expect(visibleText(message)).toContain(
      'Your token was revoked or has expired. Log in again with `/cloud login`.',
    );
    expect(buttons(message).map((b) => b.action_id)).toEqual([ActionId.login]);
    expectSendable(message);
  });

  it('forbidden: names the scope the token lacks', () => {
    const error = errorFromResponse({
      status: 403,
      operationId: 'volumes.attach',
      bodyText: '{"errors":[{"reason":"Unauthorized"}]}',
    });
    const text = visibleText(
      renderError(error, { ...ref, tokenScopes: 'volumes:read_write nodes:read_only' }),
    );
    expect(text).toContain('You are not allowed to do that.');
    expect(text).toContain(
      'Your token lacks `nodes:read_write`: create a token with it and `/cloud login` again.',
    );
  });

  it('forbidden: without the token scopes, names the scopes the operation needs', () => {
    const error = new ApiError('forbidden', 'x', { status: 403, operationId: 'volumes.create' });
    const text = visibleText(renderError(error, ref));
    expect(text).toContain('This needs the `volumes:read_write` scope');
    expect(text).toContain('the `add_volumes` grant');
  });

  it('forbidden: a read scope is covered by the read_write scope of the same area', () => {
    const error = new ApiError('forbidden', 'x', { status: 403, operationId: 'volumes.view' });
    const text = visibleText(
      renderError(error, { ...ref, tokenScopes: ['volumes:read_write'], restricted: true }),
    );
    expect(text).not.toContain('lacks');
    expect(text).toContain(
      'You are a restricted user: this needs read-only or read-write permission on this volume.',
    );
  });

  it('forbidden: with nothing specific to say, points at the grants', () => {
    const error = new ApiError('forbidden', 'x', { status: 403, operationId: 'volumes.list' });
    const text = visibleText(renderError(error, { ...ref, tokenScopes: '*', restricted: false }));
    expect(text).toContain('`/cloud profile grants` shows what you may access.');
  });

  it('forbidden: managed operations are for unrestricted users only', () => {
    const error = new ApiError('forbidden', 'x', { status: 403, operationId: 'managed.contacts-list' });
    const text = visibleText(renderError(error, { ...ref, tokenScopes: '*' }));
    expect(text).toContain('Only unrestricted users of the account may do this');
  });

  it('not found: names the resource and how to find its id', () => {
    const error = new ApiError('not_found', 'x', { status: 404, operationId: 'volumes.view' });
    const text = visibleText(renderError(error, { ...ref, input: { volumeId: 12 } }));
    expect(text).toContain('No such volume 12. Check the id with `/cloud volumes list`.');
  });

  it('not found: a nested resource points at the list of its parent', () => {
    const error = new ApiError('not_found', 'x', { status: 404, operationId: 'nodes.configs-view' });
    const text = visibleText(renderError(error, { ...ref, input: { nodeId: 34, configId: 7 } }));
    expect(text).toContain('No such config 7. Check the id with `/cloud nodes configs-list &lt;nodeId&gt;`.');
  });

  it('rate limited: when to try again', () => {
    const error = new ApiError('rate_limited', 'x', {
      status: 429,
      retryAfterMs: 29_200,
      operationId: 'images.list',
    });
    expect(visibleText(renderError(error, ref))).toContain('try again in 30 s');
  });

  it('timeout, network and server errors: try again, with the reference id', () => {
    for (const code of ['timeout', 'network', 'server_error'] as const) {
      const message = renderError(new ApiError(code, 'x', { operationId: 'volumes.list' }), ref);
      expect(visibleText(message), code).toContain('(ref abc123)');
      expect(visibleText(message), code).toMatch(/[Tt]ry again/);
      expectSendable(message);
    }
  });

  it('never shows the token, even when the API quotes it', () => {
    const error = errorFromResponse({
      status: 400,
      operationId: 'volumes.list',
      bodyText: JSON.stringify({ errors: [{ reason: `Bad token ${FULL_TOKEN}` }] }),
    });
    const message = renderError(error, { ...ref, secrets: [FULL_TOKEN] });
    expect(everything(message)).not.toContain(FULL_TOKEN);
    expect(visibleText(message)).toContain('Bad token [redacted]');
  });

  it('never shows the message or stack of a network failure', () => {
    const cause = new TypeError(`fetch failed for Bearer ${FULL_TOKEN}`);
    const error = toApiError(cause, { operationId: 'volumes.list' });
    const message = renderError(error, ref);
    expect(everything(message)).not.toContain(FULL_TOKEN);
    expect(everything(message)).not.toContain('fetch failed');
  });
});

describe('renderError: command parse errors', () => {
  it('shows the message, the usage as code and close matches', () => {
    const parsed = parseCommand('volumes atach 12');
    expect(parsed.kind).toBe('error');
    const message = renderError(parsed, ref);
    const text = visibleText(message);
    expect(text).toContain('`volumes` has no action `atach`.');
    expect(text.match(/Did you mean/g)).toHaveLength(1);
    expectSendable(message);
  });

  it('adds usage and did-you-mean when the message does not say them', () => {
    const message = renderError(
      {
        message: 'volumeId: must be a whole number',
        usage: '/cloud volumes view <volumeId>',
        suggestions: ['volumes view'],
      },
      ref,
    );
    const text = visibleText(message);
    expect(text).toContain(':warning: volumeId: must be a whole number');
    expect(text).toContain('*Usage* `/cloud volumes view &lt;volumeId&gt;`');
    expect(text).toContain('Did you mean `/cloud volumes view`?');
  });
});

describe('renderError: anything else', () => {
  it('shows only a reference id: no message, no stack, no secret', () => {
    const error = new Error(`database exploded near ${FULL_TOKEN}`);
    const message = renderError(error, { ...ref, secrets: [FULL_TOKEN] });
    expect(visibleText(message)).toContain('Something went wrong (ref abc123).');
    expect(message.text).toBe('Something went wrong (ref abc123).');
    const all = everything(message);
    expect(all).not.toContain('exploded');
    expect(all).not.toContain(FULL_TOKEN);
    expect(all).not.toMatch(/\bat .*\.(?:ts|js):\d+/);
    expectSendable(message);
  });

  it('treats thrown strings and odd values the same way', () => {
    for (const thrown of ['boom', 42, null, undefined, { code: 'weird' }]) {
      expect(renderError(thrown, ref).text).toBe('Something went wrong (ref abc123).');
    }
  });
});
