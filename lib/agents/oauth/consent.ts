import type { WebClient } from '@slack/web-api';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { PendingSignIn, SignInRefusal } from '../../store/agent-authorizations.js';
import type { AgentScope } from '../../store/agent-grants.js';
import { notSetUp, withResponse } from './authorize.js';
import type { OAuthContext } from './deps.js';
import {
  bodyOf,
  cookieValue,
  MAX_PARAMS_LENGTH,
  mediaTypeOf,
  paramsOf,
  queryOf,
  redirect,
  signInCookieName,
} from './http.js';
import { consentPage, noticePage } from './pages.js';
import { redirectDestination, redirectFormTarget } from './redirect-uris.js';
import { botCanPostIn, homeChannelChoices } from './workspaces.js';

/**
 * Sign in with Slack's way back (`GET /oauth/callback`) and the person's answer
 * (`POST /oauth/consent`).
 *
 * The callback finds the sign-in by Slack's `state`, in the browser that started it (its cookie),
 * trades Slack's code for the person's verified identity, checks that the bot is installed in their
 * workspace, and shows the consent page: the agent, where its sign-in returns, the person, a home
 * channel among those they share with the bot, and what it may do.
 *
 * The consent form carries the page's own secret (issued once by the callback, kept as a hash), so
 * no other site can answer for the person (CSRF), and it is spent by its first answer. Allow makes
 * the grant (`store.agentGrants.create`), issues a code bound to the client, redirect URI, PKCE
 * challenge, resource and grant, and sends the browser back to the agent with `code`, `state` and
 * `iss` (RFC 9207). Deny sends `error=access_denied` instead (RFC 6749 §4.1.2.1).
 */

const REFUSED: Record<SignInRefusal, { status: number; text: string }> = {
  unknown: {
    status: 400,
    text: 'This sign-in is not known here. Start the sign-in again from your agent.',
  },
  expired: {
    status: 400,
    text: 'This sign-in took more than ten minutes and has expired. Start it again from your agent.',
  },
  used: {
    status: 400,
    text: 'This sign-in is already finished. Start it again from your agent if it did not work.',
  },
  other_browser: {
    status: 400,
    text: 'This sign-in was started in another browser. Open the link from your agent in this browser, or finish there.',
  },
};

function refused(refusal: SignInRefusal): APIGatewayProxyStructuredResultV2 {
  const { status, text } = REFUSED[refusal];
  return noticePage(status, 'Sign-in stopped', text);
}

/** How the page names the person: their name as Slack shows it (`users.info`), else their id. */
async function personName(ctx: OAuthContext, client: WebClient, user: string): Promise<string> {
  try {
    const found = (await client.users.info({ user })).user;
    return found?.profile?.real_name || found?.real_name || found?.name || user;
  } catch (error) {
    ctx.logger.info('agent sign-in: users.info failed', {
      error: error instanceof Error ? error.name : 'unknown',
    });
    return user;
  }
}

export async function callback(
  event: APIGatewayProxyEventV2,
  ctx: OAuthContext,
): Promise<APIGatewayProxyStructuredResultV2> {
  const query = queryOf(event);
  if (!query.ok) return noticePage(400, 'Sign-in stopped', query.problem);
  const id = query.get('state');
  if (!id) return refused('unknown');
  const browserSecret = cookieValue(event, signInCookieName(id)) ?? '';
  const looked = await ctx.store.agentAuthorizations.look(id, browserSecret);
  if (looked.status !== 'valid') return refused(looked.status);
  const { signIn } = looked;
  if (signIn.person) return refused('used');
  const slackError = query.get('error');
  if (slackError !== undefined) {
    // The person cancelled on Slack's page (`access_denied`), or Slack refused the request.
    return redirect(
      backToAgent(signIn, ctx, {
        error: 'access_denied',
        error_description: 'The person did not sign in with Slack.',
      }),
    );
  }
  const code = query.get('code');
  if (!code)
    return noticePage(400, 'Sign-in stopped', 'Slack sent no code. Start the sign-in again from your agent.');
  if (!ctx.slackSignIn) return notSetUp();
  const identity = await ctx.slackSignIn.identify(code, signIn.nonce);
  if ('failure' in identity) {
    ctx.logger.warn('agent sign-in: Slack sign-in failed', {
      failure: identity.failure,
      detail: identity.failure === 'slack_refused' ? identity.error : identity.reason,
    });
    return noticePage(
      identity.failure === 'unreachable' ? 503 : 400,
      'Sign-in with Slack failed',
      identity.failure === 'unreachable'
        ? 'Slack could not be reached. Start the sign-in again from your agent in a minute.'
        : 'Slack did not confirm who you are. Start the sign-in again from your agent.',
    );
  }
  const client = await ctx.workspaces.botIn(identity.team);
  if (!client)
    return noticePage(
      403,
      'Cloud ChatOps is not in your workspace',
      'The bot is not installed in the Slack workspace you signed in with, so it cannot act for you there. Sign in with a workspace where @cloud is installed, or ask an admin to add it.',
    );
  const [channels, name] = await Promise.all([
    homeChannelChoices(client, identity.user),
    personName(ctx, client, identity.user),
  ]);
  if ('error' in channels) {
    ctx.logger.warn('agent sign-in: channels not listed', { error: channels.error });
    return noticePage(
      503,
      'Sign-in stopped',
      'Slack did not list your channels just now. Start the sign-in again from your agent in a minute.',
    );
  }
  const signedIn = await ctx.store.agentAuthorizations.signIn(id, browserSecret, {
    team: identity.team,
    user: identity.user,
    channels,
  });
  if (signedIn.status !== 'valid' || signedIn.consentSecret === undefined)
    return refused(signedIn.status === 'valid' ? 'used' : signedIn.status);
  const { request } = signIn;
  const destination = redirectDestination(request.redirectUri);
  return consentPage({
    agentName: request.clientName || `An agent at ${destination.label}`,
    metadataUrl: /^https?:\/\//.test(request.clientId) ? request.clientId : undefined,
    destination,
    personName: name,
    channels,
    mayAskForChanges: request.scopes.includes('cloud:change'),
    consentPath: new URL(ctx.urls.consent).pathname,
    signInId: id,
    consentSecret: signedIn.consentSecret,
    formTarget: redirectFormTarget(request.redirectUri),
  });
}

export async function consent(
  event: APIGatewayProxyEventV2,
  ctx: OAuthContext,
): Promise<APIGatewayProxyStructuredResultV2> {
  const text =
    mediaTypeOf(event) === 'application/x-www-form-urlencoded' ? bodyOf(event, MAX_PARAMS_LENGTH) : undefined;
  const form = text === undefined ? undefined : paramsOf(text);
  if (!form?.ok)
    return noticePage(
      400,
      'Sign-in stopped',
      'The consent form did not arrive whole. Start the sign-in again from your agent.',
    );
  const id = form.get('sign_in') ?? '';
  const consentSecret = form.get('consent') ?? '';
  const browserSecret = cookieValue(event, signInCookieName(id)) ?? '';
  const looked = await ctx.store.agentAuthorizations.look(id, browserSecret);
  if (looked.status !== 'valid') return refused(looked.status);
  const { person, request } = looked.signIn;
  if (!person) return refused('unknown');
  const clearCookie = `${signInCookieName(id)}=; Path=${new URL(ctx.urls.consent).pathname.replace(/[^/]*$/, '')}; Max-Age=0; HttpOnly; SameSite=Lax`;

  const decision = form.get('decision');
  if (decision === 'deny') {
    const decided = await ctx.store.agentAuthorizations.decide(id, browserSecret, consentSecret);
    if (decided.status !== 'valid') return refused(decided.status);
    return redirect(
      backToAgent(looked.signIn, ctx, {
        error: 'access_denied',
        error_description: 'The person denied the agent.',
      }),
      [clearCookie],
    );
  }
  if (decision !== 'allow') return noticePage(400, 'Sign-in stopped', 'Choose Allow or Deny.');
  const channel = person.channels.find((offered) => offered.id === form.get('channel'));
  if (!channel)
    return noticePage(400, 'Sign-in stopped', 'Choose one of the channels offered as the home channel.');
  const access = form.get('access');
  const scopes: AgentScope[] | undefined =
    access === 'read'
      ? ['cloud:read']
      : access === 'change' && request.scopes.includes('cloud:change')
        ? ['cloud:read', 'cloud:change']
        : undefined;
  if (!scopes) return noticePage(400, 'Sign-in stopped', 'Choose what the agent may do.');
  // Checked before the answer is spent: a passing Slack hiccup leaves the page usable.
  const client = await ctx.workspaces.botIn(person.team);
  if (!client || !(await botCanPostIn(client, channel.id)))
    return noticePage(
      409,
      'Choose another channel',
      `@cloud can no longer post in #${channel.name}. Invite it there with /invite @cloud, or go back and choose another channel.`,
    );

  const decided = await ctx.store.agentAuthorizations.decide(id, browserSecret, consentSecret);
  if (decided.status !== 'valid') return refused(decided.status);
  const grant = await ctx.store.agentGrants.create({
    team: person.team,
    user: person.user,
    clientId: request.clientId,
    clientName: request.clientName || redirectDestination(request.redirectUri).label,
    homeChannel: channel.id,
    scopes,
  });
  if (!/^https?:\/\//.test(request.clientId)) await ctx.store.agentClients.keep(request.clientId);
  // A lost audit line is logged, never taken for a failed sign-in: the grant is made by then.
  await ctx.store.audit
    .append({
      team: person.team,
      actor: person.user,
      action: 'agents.sign_in',
      target: `channel ${channel.id}`,
      result: 'succeeded',
      detail: `Signed in agent "${grant.clientName}" (${request.clientId}) to ${scopes.includes('cloud:change') ? 'read and ask for changes' : 'read'}`,
    })
    .catch((error: unknown) =>
      ctx.logger.error('audit entry not written', { error: error instanceof Error ? error.name : 'unknown' }),
    );
  const { code } = await ctx.store.agentAuthorizations.issueCode({
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    grant: { team: person.team, user: person.user, id: grant.id },
  });
  ctx.logger.info('agent signed in', { team: person.team, grant: grant.id, scopes });
  return redirect(backToAgent(looked.signIn, ctx, { code }), [clearCookie]);
}

function backToAgent(signIn: PendingSignIn, ctx: OAuthContext, values: Record<string, string>): string {
  return withResponse(signIn.request.redirectUri, {
    ...values,
    state: signIn.request.state,
    iss: ctx.urls.issuer,
  });
}
