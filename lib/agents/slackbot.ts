import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { slackSignature } from '../slack-kit/signing.js';
import { SLACKBOT_GRANT_ID } from '../store/agent-grants.js';
import type { Store } from '../store/index.js';
import { type AgentRoute, type AgentsResult, requestOf, resultOf } from './http.js';
import type { AgentAuth, SlackbotStranger } from './mcp.js';

/**
 * Slackbot as an MCP client, with Slack identity auth (MCP-FACTS §4): Slack signs every call with
 * the app's signing secret exactly as it signs events, and names the person in
 * `params._meta.slack`. The signature is checked on the raw bytes before anything is parsed,
 * a timestamp more than five minutes away is refused (Slack's rule for every signed request), and
 * a signature that names a person is good once: the same bytes sent again are a replay. The person acts through the
 * Slackbot grant they made with `/cloud agents slackbot` in a channel, which is its home channel.
 */

export const SLACKBOT_MCP_PATH = '/mcp/slack';
/** Slack: "verify that the request timestamp is within five minutes of the local time". */
const MAX_SKEW_SECONDS = 5 * 60;
/** A tool call is a few kilobytes; anything near this is not Slackbot's. */
const MAX_BODY_BYTES = 1024 * 1024;
const SLACK_ID = /^[A-Z0-9]{2,32}$/;

export interface SlackbotDeps {
  readonly store: Store;
  readonly logger: Logger;
  readonly signingSecret: string;
  /** The clock the timestamp is checked against. */
  readonly now?: () => Date;
}

/** How a verified Slackbot call is served: as the person's Slackbot, or as someone not set up. */
export type SlackbotServe = (request: Request, auth: AgentAuth | SlackbotStranger) => Promise<Response>;

export function slackbotRoute(deps: SlackbotDeps, base: string, serve: SlackbotServe): AgentRoute {
  const now = deps.now ?? (() => new Date());
  return async (event) => {
    if (event.requestContext.http.method !== 'POST') return refusal(405, 'Method not allowed.');
    const raw = rawBody(event);
    if (raw === undefined) return refusal(413, 'The request is too large.');
    const signature = event.headers['x-slack-signature'] ?? '';
    const timestamp = Number(event.headers['x-slack-request-timestamp']);
    if (!Number.isSafeInteger(timestamp) || Math.abs(now().getTime() / 1000 - timestamp) > MAX_SKEW_SECONDS)
      return refusal(401, 'The request is not signed by Slack.');
    if (!sameSignature(signature, slackSignature(deps.signingSecret, timestamp, raw)))
      return refusal(401, 'The request is not signed by Slack.');

    const request = requestOf({ ...event, body: raw, isBase64Encoded: false }, base);
    const person = personOf(raw);
    // What names nobody is served as to a stranger and reaches no one's data, so it is not
    // claimed: every connection opens with the same `initialize` (id 0) and the same
    // `notifications/initialized`, byte for byte, and two within one second sign alike.
    if (!person) return resultOf(await serve(request, { stranger: true }));
    // The signature is 64 hex digits; its hash keeps the claim key short and says nothing.
    const key = `slackbot:${createHash('sha256').update(signature).digest('base64url')}`;
    if (!(await deps.store.deliveries.claimOnce(key)))
      return refusal(401, 'This signed request was already used.');
    const grant = await deps.store.agentGrants.get(person.team, person.user, SLACKBOT_GRANT_ID);
    if (!grant) return resultOf(await serve(request, { stranger: true }));
    return resultOf(await serve(request, { grant, scopes: grant.scopes }));
  };
}

function rawBody(event: APIGatewayProxyEventV2): string | undefined {
  const body = event.body ?? '';
  const bytes = event.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  return bytes.length > MAX_BODY_BYTES ? undefined : bytes.toString('utf8');
}

function sameSignature(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The person Slack names in the call (`params._meta.slack`); absent on calls that name nobody. */
function personOf(raw: string): { readonly team: string; readonly user: string } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const slack = (message as { params?: { _meta?: { slack?: unknown } } } | null)?.params?._meta?.slack;
  if (typeof slack !== 'object' || slack === null) return undefined;
  const { user_id: user, team_id: team } = slack as { user_id?: unknown; team_id?: unknown };
  if (typeof user !== 'string' || typeof team !== 'string') return undefined;
  return SLACK_ID.test(user) && SLACK_ID.test(team) ? { team, user } : undefined;
}

function refusal(status: number, message: string): AgentsResult {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }),
  };
}
