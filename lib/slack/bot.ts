import {
  App,
  type Authorize,
  type AuthorizeResult,
  AwsLambdaReceiver,
  ErrorCode,
  LogLevel,
} from '@slack/bolt';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DEFAULT_SLACK_STORAGE_BUDGET_MS } from '../config.js';
import { isTeamRemovalError, rememberServingOrg } from '../core/installations.js';
import { appQrRequestPath, passkeyRequestPath } from '../passkeys/paths.js';
import { SLACK_CLIENT_OPTIONS } from '../slack-kit/web-client.js';
import { isStorageUnavailable } from '../store/errors.js';
import { withoutStorageBudget, withStorageBudget } from '../store/store-context.js';
import type { BotDeps } from './context.js';
import { registerListeners } from './listeners/index.js';
import { isOAuthPage, oauthRoutes } from './oauth.js';

/**
 * The Slack side of the bot, wired: Bolt verifies signatures and routes to the listeners
 * (`listeners/`, one module per kind of request), which parse and pass the work to `dispatch.ts`
 * (inline within the budget, or handed to the worker). The handler also serves the "Add to Slack"
 * pages of a distributed app and keeps each request's storage calls within their budget.
 */

export type SlackHandler = (
  event: APIGatewayProxyEventV2,
  context: unknown,
) => Promise<APIGatewayProxyStructuredResultV2>;

export function createSlackApp(given: BotDeps): { app: App; handler: SlackHandler } {
  // A job handed off in process would otherwise inherit the request's storage budget. Where
  // requests come one at a time, nothing else runs in the process: the job runs elsewhere (Lambda's
  // Invoke), and an exemption would only cost the async context it needs (`withStorageBudget`).
  const deps: BotDeps = given.oneRequestAtATime
    ? given
    : {
        ...given,
        handoff: {
          dispatch: (job) => withoutStorageBudget(() => given.handoff.dispatch(job)),
        },
      };
  const receiver = new AwsLambdaReceiver({ signingSecret: deps.signingSecret, logLevel: LogLevel.ERROR });
  const app = new App({
    authorize: authorizeFor(deps),
    ignoreSelf: false,
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: {
      ...(deps.slackApiUrl ? { slackApiUrl: deps.slackApiUrl } : {}),
      ...SLACK_CLIENT_OPTIONS,
    },
  });

  registerListeners(app, deps);

  app.error(async (error) => {
    // No installation for the request's team: Slack must see a failure, and nothing has run.
    if (error.code === ErrorCode.AuthorizationError) {
      deps.logger.warn('request refused: workspace not authorised', { reason: error.message });
      throw error;
    }
    // A workspace's removal that failed part-way: a failed answer makes Slack deliver it again.
    if (isTeamRemovalError(error)) {
      deps.logger.error('workspace removal incomplete; Slack will retry', {
        error: error.message,
        cause: error.cause instanceof Error ? error.cause.message : String(error.cause),
      });
      throw error;
    }
    deps.logger.error('unhandled Slack listener error', { error: error.message, code: error.code });
  });

  const lambdaHandler = receiver.toHandler();
  const storageBudgetMs = deps.storageBudgetMs ?? DEFAULT_SLACK_STORAGE_BUDGET_MS;
  const oauth =
    deps.installer &&
    oauthRoutes(
      deps.installer,
      (team) => {
        if (team) deps.botTokens?.forget(team);
      },
      deps.slackApiUrl,
    );
  const handler: SlackHandler = async (event, context) => {
    if (passkeyRequestPath(event.rawPath)) return passkeyAnswer(deps, event);
    if (appQrRequestPath(event.rawPath)) return appQrAnswer(deps, event);
    const page = oauth?.handle(event);
    if (page) return page;
    // One workspace has no install pages. The routes exist in AWS all the same (serverless.yml),
    // so a visit is answered as a page that is not there, not as a bad Slack request.
    if (isOAuthPage(event))
      return { statusCode: 404, headers: { 'content-type': 'text/plain' }, body: 'Not found' };
    try {
      return (await withStorageBudget(storageBudgetMs, () => lambdaHandler(event, context), {
        processSlot: deps.oneRequestAtATime === true,
      })) as APIGatewayProxyStructuredResultV2;
    } catch (error) {
      // A body Bolt cannot parse must not crash the function: Slack gets a plain 400.
      deps.logger.warn('request rejected', { error: error instanceof Error ? error.message : String(error) });
      return { statusCode: 400, body: '' };
    }
  };
  return { app, handler };
}

/**
 * The passkey page's requests, with the routes and WebAuthn's library loaded on the first of them
 * only. A bot without a public URL has no passkey page: its links could not be made either.
 */
async function passkeyAnswer(
  deps: BotDeps,
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> {
  if (!deps.passkeys)
    return { statusCode: 404, headers: { 'content-type': 'text/plain' }, body: 'Not found' };
  const { handlePasskeyRequest } = await import('../passkeys/routes.js');
  return handlePasskeyRequest(event, {
    store: deps.store,
    relyingParty: deps.passkeys.relyingParty,
    onVerifiedAssertion: deps.passkeys.onVerifiedAssertion,
    factors: deps.passkeys.factors,
    describeProof: deps.passkeys.describeProof,
    logger: deps.logger,
  });
}

/**
 * The authenticator app's QR page, with its QR encoder loaded on its first request only. It lives
 * where the passkey page does, so a bot without a public URL has neither.
 */
async function appQrAnswer(
  deps: BotDeps,
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> {
  if (!deps.passkeys)
    return { statusCode: 404, headers: { 'content-type': 'text/plain' }, body: 'Not found' };
  const { handleAppQrRequest } = await import('../passkeys/app-qr.js');
  return handleAppQrRequest(event, { store: deps.store, logger: deps.logger });
}

/**
 * One workspace: its fixed token (with a plain `token`, Bolt would ask Slack's auth.test who the
 * bot is on the first request of every instance, a round trip before each cold-start answer).
 * Many workspaces: the installation of the request's team, or of its org for an org-wide install;
 * none means the request is refused. InstallProvider's `authorize` also refreshes a rotating token.
 */
function authorizeFor(deps: BotDeps): Authorize<boolean> {
  const { installer, botToken } = deps;
  if (!installer) {
    if (!botToken) throw new Error('createSlackApp needs a bot token or an installer');
    return async () => ({ botToken });
  }
  const remembered = new Set<string>();
  return async (source) => {
    let result: AuthorizeResult;
    try {
      result = await installer.authorize(source);
    } catch (error) {
      // The installation could not be read because storage is down, not because there is none:
      // the request is Slack's (its signature checked), so the listeners run without a bot token
      // and answer "storage is not answering" instead of Slack showing a bare failure.
      const original = error instanceof Error && 'original' in error ? error.original : undefined;
      if (!isStorageUnavailable(original)) throw error;
      deps.logger.error('installation not read: storage unavailable', { team: source.teamId });
      return {};
    }
    const { teamId, enterpriseId, isEnterpriseInstall } = source;
    // The worker and the reporter know only a team: note which org's installation serves it.
    if (isEnterpriseInstall && teamId && enterpriseId && !remembered.has(teamId)) {
      await rememberServingOrg(deps, { team: teamId, enterprise: enterpriseId });
      remembered.add(teamId);
    }
    return result;
  };
}
