import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ActionId, encodeActionValue } from '../lib/slack-kit/interactions.js';
import { signedHeaders } from '../lib/slack-kit/signing.js';

/**
 * A signed `/cloud <text>` as API Gateway's HTTP API (payload 2.0) hands it to the Slack
 * function: the same form body and headers Slack sends, so Bolt verifies and routes it exactly as
 * in AWS. Built before a measurement starts; signing is not part of what is measured.
 */

export const BENCH_TEAM = 'T0BENCH';
export const BENCH_CHANNEL = 'C0BENCH';

export interface SlashCommand {
  readonly signingSecret: string;
  readonly text: string;
  readonly user: string;
  readonly channel?: string;
}

export function slashCommandEvent(command: SlashCommand): APIGatewayProxyEventV2 {
  const channel = command.channel ?? BENCH_CHANNEL;
  const body = new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: BENCH_TEAM,
    team_domain: 'bench',
    channel_id: channel,
    channel_name: 'bench',
    user_id: command.user,
    user_name: command.user.toLowerCase(),
    command: '/cloud',
    text: command.text,
    api_app_id: 'A0CLOUD',
    is_enterprise_install: 'false',
    response_url: `https://hooks.slack.com/commands/${BENCH_TEAM}/1/bench`,
    // Unique: the bot claims each delivery once, by its trigger id.
    trigger_id: `1.${randomUUID()}.bench`,
  }).toString();
  return apiGatewayEvent(command.signingSecret, body);
}

/** What every interaction payload Slack posts starts with: who, where, and a fresh trigger id. */
function interactionEnvelope(type: string, user: string) {
  return {
    type,
    team: { id: BENCH_TEAM, domain: 'bench' },
    user: { id: user, username: user.toLowerCase(), team_id: BENCH_TEAM },
    api_app_id: 'A0CLOUD',
    token: 'deprecated-verification-token',
    trigger_id: `1.${randomUUID()}.bench`,
  };
}

export interface LoginSubmission {
  readonly signingSecret: string;
  readonly user: string;
  readonly token: string;
  readonly channel?: string;
}

/**
 * A signed submission of the login modal (`view_submission`, callback `login`), as Slack posts it:
 * the form field `payload` holding the view with the token typed into it.
 */
export function loginSubmissionEvent(submission: LoginSubmission): APIGatewayProxyEventV2 {
  const payload = {
    ...interactionEnvelope('view_submission', submission.user),
    view: {
      id: `V${randomUUID().slice(0, 8).toUpperCase()}`,
      team_id: BENCH_TEAM,
      type: 'modal',
      callback_id: 'login',
      private_metadata: JSON.stringify({ channel: submission.channel ?? BENCH_CHANNEL, profile: 'default' }),
      hash: '1.bench',
      state: {
        values: {
          token: { token_input: { type: 'plain_text_input', value: submission.token } },
          profile: { profile_input: { type: 'plain_text_input', value: null } },
        },
      },
    },
    response_urls: [],
  };
  return apiGatewayEvent(
    submission.signingSecret,
    new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
  );
}

export interface ApproveClick {
  readonly signingSecret: string;
  readonly user: string;
  readonly approvalId: string;
  /** The approval card the button is on. */
  readonly messageTs: string;
  readonly channel?: string;
}

/**
 * A signed click on an approval card's Approve button (`block_actions`), as Slack posts it: the
 * button's action id and value as the bot rendered them, and the card's message as its container.
 */
export function approveClickEvent(click: ApproveClick): APIGatewayProxyEventV2 {
  const channel = click.channel ?? BENCH_CHANNEL;
  const payload = {
    ...interactionEnvelope('block_actions', click.user),
    container: { type: 'message', message_ts: click.messageTs, channel_id: channel, is_ephemeral: false },
    channel: { id: channel, name: 'bench' },
    message: { ts: click.messageTs, text: 'approval request' },
    response_url: `https://hooks.slack.com/actions/${BENCH_TEAM}/1/bench`,
    actions: [
      {
        type: 'button',
        action_id: ActionId.approve,
        block_id: 'approval',
        value: encodeActionValue({ approvalId: click.approvalId }),
        text: { type: 'plain_text', text: 'Approve' },
        action_ts: `${Math.floor(Date.now() / 1000)}.${randomUUID().slice(0, 6)}`,
      },
    ],
  };
  return apiGatewayEvent(
    click.signingSecret,
    new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
  );
}

/** A form-encoded body, signed, as API Gateway's HTTP API hands it to the function. */
function apiGatewayEvent(signingSecret: string, body: string): APIGatewayProxyEventV2 {
  const now = Date.now();
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: 'POST /slack/events',
    rawPath: '/slack/events',
    rawQueryString: '',
    headers: {
      host: 'bench.execute-api.us-east-1.amazonaws.com',
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      ...signedHeaders(signingSecret, body),
    },
    requestContext: {
      accountId: 'bench',
      apiId: 'bench',
      domainName: 'bench.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'bench',
      http: {
        method: 'POST',
        path: '/slack/events',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'Slackbot 1.0 (+https://api.slack.com/robots)',
      },
      requestId,
      routeKey: 'POST /slack/events',
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    body,
    isBase64Encoded: false,
  };
}

/** The `text` of a handler's immediate answer (the ack body), or undefined when it gave none. */
export function ackText(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const { statusCode, body } = result as { statusCode?: unknown; body?: unknown };
  if (statusCode !== 200 || typeof body !== 'string' || body === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    const text =
      typeof parsed === 'object' && parsed !== null ? (parsed as { text?: unknown }).text : undefined;
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}
