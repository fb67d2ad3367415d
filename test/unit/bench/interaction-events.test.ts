import { describe, expect, it } from 'vitest';
import {
  BENCH_CHANNEL,
  BENCH_TEAM,
  loginSubmissionEvent,
  slashCommandEvent,
} from '../../../bench/slash-command-event.js';
import { TOKEN_BLOCK } from '../../../lib/slack/bot-commands.js';
import { CallbackId } from '../../../lib/slack/interactions.js';
import { slackSignature } from '../../../lib/slack/signing.js';

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
