import { describe, expect, it } from 'vitest';
import {
  approveClickEvent,
  BENCH_CHANNEL,
  BENCH_TEAM,
  loginSubmissionEvent,
  slashCommandEvent,
} from '../../../bench/slash-command-event.js';
import { TOKEN_BLOCK } from '../../../lib/slack/bot-commands/profiles.js';
import {
  ActionId,
  ApprovalPayloadSchema,
  CallbackId,
  decodeActionValue,
} from '../../../lib/slack-kit/interactions.js';
import { slackSignature } from '../../../lib/slack-kit/signing.js';

/**
 * The cold-start benchmark's events must be requests Bolt accepts and routes to the listener being
 * measured; a wrong signature or callback id would time a 401 or an unrouted request instead.
 */

const SECRET = 'bench-signing-secret';

function verifies(event: { body?: string; headers: Record<string, string | undefined> }): boolean {
  const timestamp = Number(event.headers['x-slack-request-timestamp']);
  return event.headers['x-slack-signature'] === slackSignature(SECRET, timestamp, event.body ?? '');
}

describe('loginSubmissionEvent', () => {
  const event = loginSubmissionEvent({
    signingSecret: SECRET,
    user: 'U0LOGIN',
    token: 'demo-token-0123456789abcdef',
  });
  const payload = JSON.parse(new URLSearchParams(event.body).get('payload') ?? '{}');

  it('is signed with the signing secret over the exact body', () => {
    expect(verifies(event)).toBe(true);
    expect(verifies({ ...event, body: `${event.body}&x=1` })).toBe(false);
  });

  it('submits the login modal, routed by its callback id', () => {
    expect(payload.type).toBe('view_submission');
    expect(payload.view.callback_id).toBe(CallbackId.login);
    expect(payload.team.id).toBe(BENCH_TEAM);
    expect(payload.user.id).toBe('U0LOGIN');
  });

  it('carries the token in the block the bot reads it from, and the channel for the confirmation', () => {
    expect(payload.view.state.values[TOKEN_BLOCK].token_input.value).toBe('demo-token-0123456789abcdef');
    expect(JSON.parse(payload.view.private_metadata)).toEqual({ channel: BENCH_CHANNEL, profile: 'default' });
  });
});

describe('slashCommandEvent', () => {
  it('is signed and gives each delivery its own trigger id, so every run is a first delivery', () => {
    const first = slashCommandEvent({ signingSecret: SECRET, text: 'volumes list', user: 'U0BENCH' });
    const second = slashCommandEvent({ signingSecret: SECRET, text: 'volumes list', user: 'U0BENCH' });
    expect(verifies(first)).toBe(true);
    const trigger = (body?: string) => new URLSearchParams(body).get('trigger_id');
    expect(trigger(first.body)).not.toBe(trigger(second.body));
    expect(new URLSearchParams(first.body).get('text')).toBe('volumes list');
  });
});

describe('approveClickEvent', () => {
  const click = () =>
    approveClickEvent({
      signingSecret: SECRET,
      user: 'U0APPROVE',
      approvalId: 'ap-123',
      messageTs: '1700000000.000100',
    });
  const payloadOf = (event: { body?: string }) =>
    JSON.parse(new URLSearchParams(event.body).get('payload') ?? '{}');

  it('is signed, and each click is its own delivery (the bot claims clicks by action_ts)', () => {
    const first = click();
    expect(verifies(first)).toBe(true);
    const [a, b] = [payloadOf(first), payloadOf(click())];
    expect(a.actions[0].action_ts).not.toBe(b.actions[0].action_ts);
  });

  it('clicks the Approve button with the value the card encodes, on the card message', () => {
    const payload = payloadOf(click());
    expect(payload.type).toBe('block_actions');
    expect(payload.actions[0]).toMatchObject({ type: 'button', action_id: ActionId.approve });
    expect(decodeActionValue(ApprovalPayloadSchema, payload.actions[0].value)).toEqual({
      approvalId: 'ap-123',
    });
    expect(payload.container).toMatchObject({ message_ts: '1700000000.000100', channel_id: BENCH_CHANNEL });
    expect(payload.user.id).toBe('U0APPROVE');
  });
});
