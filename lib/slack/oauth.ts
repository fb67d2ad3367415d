import type { IncomingMessage, ServerResponse } from 'node:http';
import { InstallProvider, type InstallProviderOptions, type InstallURLOptions } from '@slack/oauth';
import { LogLevel } from '@slack/web-api';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { SlackAuth } from '../config.js';
import { BOT_SCOPES } from '../slack-kit/app-scopes.js';
import { documentPage, escapeHtml } from '../slack-kit/page-style.js';
import { SLACK_CLIENT_OPTIONS } from '../slack-kit/web-client.js';
import type { Store } from '../store/index.js';

/**
 * "Add to Slack" for a distributed app, with Bolt's `InstallProvider` doing the OAuth exchange:
 * `GET /slack/install` sets the state cookie and shows the link to Slack's authorize page,
 * `GET /slack/oauth_redirect` checks the state (same browser, issued here, unused, not expired),
 * trades the code for the workspace's bot token (`oauth.v2.access`) and stores the installation.
 * API Gateway hands the Slack function events, not Node requests; `asNodeExchange` gives the
 * provider the two objects it reads and writes.
 */

export const INSTALL_PATH = '/slack/install';
export const OAUTH_REDIRECT_PATH = '/slack/oauth_redirect';

export type MultiWorkspaceAuth = Extract<SlackAuth, { mode: 'multi' }>;

/** Slack's authorize page sits beside its Web API (`…/api/` → `…/oauth/v2/authorize`). */
export function authorizeUrlFor(slackApiUrl: string | undefined): string {
  return new URL('../oauth/v2/authorize', slackApiUrl ?? 'https://slack.com/api/').toString();
}

/**
 * Slack's link that opens the app in a workspace (`https://slack.com/app_redirect?app=…&team=…`),
 * beside its Web API like the authorize page, so the local stand-in answers it too.
 */
export function appRedirectUrlFor(
  slackApiUrl: string | undefined,
  team: string,
  app: string | undefined,
): string {
  const url = new URL('../app_redirect', slackApiUrl ?? 'https://slack.com/api/');
  url.searchParams.set('team', team);
  if (app) url.searchParams.set('app', app);
  return url.toString();
}

/**
 * A workspace id as Slack writes it (`T…`). The install page passes one on to Slack's authorize
 * page as `team`, which opens it on that workspace; anything else is ignored, not echoed. A plain
 * pattern, not a zod schema: this module loads with the Slack function, before its first answer.
 */
const TEAM_ID = /^T[A-Z0-9]{2,20}$/;

/**
 * Bolt's `InstallProvider`, able to send the person to Slack's authorize page for one workspace:
 * `GET /slack/install?team=T…` asks Slack to open that workspace (its `team` parameter), as a
 * link beside a workspace's name should.
 */
export class BotInstaller extends InstallProvider {
  readonly #installUrlOptions: InstallURLOptions;

  constructor(options: InstallProviderOptions & { readonly installUrlOptions: InstallURLOptions }) {
    super(options);
    this.#installUrlOptions = options.installUrlOptions;
  }

  /** The install page; its "Add to Slack" link names `team` when it is a workspace id. */
  handleInstallPathFor(request: IncomingMessage, response: ServerResponse, team: string | undefined) {
    const teamId = team !== undefined && TEAM_ID.test(team) ? team : undefined;
    return this.handleInstallPath(
      request,
      response,
      undefined,
      teamId === undefined ? undefined : { ...this.#installUrlOptions, teamId },
    );
  }
}

export function createInstaller(auth: MultiWorkspaceAuth, store: Store, slackApiUrl?: string): BotInstaller {
  return new BotInstaller({
    clientId: auth.clientId,
    clientSecret: auth.clientSecret,
    stateSecret: auth.stateSecret,
    stateStore: store.oauthStates,
    installationStore: store.installations,
    installUrlOptions: {
      scopes: [...BOT_SCOPES],
      ...(auth.redirectUri ? { redirectUri: auth.redirectUri } : {}),
    },
    renderHtmlForInstallPath: installPage,
    authorizationUrl: authorizeUrlFor(slackApiUrl),
    clientOptions: {
      ...(slackApiUrl ? { slackApiUrl } : {}),
      retryConfig: SLACK_CLIENT_OPTIONS.retryConfig,
      fetch: SLACK_CLIENT_OPTIONS.fetch,
    },
    logLevel: LogLevel.ERROR,
  });
}

function installPage(authorizeUrl: string): string {
  return documentPage(
    'Add the cloud bot to Slack',
    `<p>Slack asks you to pick a workspace and approve what the bot may do.</p><p class="actions"><a class="button primary" id="add-to-slack" href="${escapeHtml(authorizeUrl)}">Add to Slack</a></p>`,
  );
}

/** Why an install failed, in words for the person in the browser (never the error's details). */
function failureText(code: string | undefined): string {
  switch (code) {
    case 'slack_oauth_invalid_state':
    case 'slack_oauth_missing_state':
      return 'This install link was already used, has expired, or was started in another browser. Start again from the install page.';
    case 'slack_oauth_user_access_denied':
    case 'slack_oauth_authorization_error':
      return 'The installation was cancelled or not authorised in Slack.';
    case 'slack_oauth_missing_code':
      return 'Slack sent no authorisation code. Start again from the install page.';
    default:
      return 'Slack did not complete the installation. Start again from the install page.';
  }
}

/** The provider's view of a request, and what it wrote back, as API Gateway wants it. */
function asNodeExchange(event: APIGatewayProxyEventV2) {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[key.toLowerCase()] = value;
  }
  // API Gateway's payload 2.0 moves cookies out of the headers.
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  const request = {
    method: event.requestContext.http.method,
    url: `${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`,
    headers,
  } as unknown as IncomingMessage;

  let statusCode = 200;
  let body = '';
  const written = new Map<string, string | string[]>();
  const response = {
    getHeader: (name: string) => written.get(name.toLowerCase()),
    setHeader: (name: string, value: string | number | readonly string[]) => {
      written.set(name.toLowerCase(), Array.isArray(value) ? [...value] : String(value));
      return response;
    },
    writeHead: (status: number, more?: Record<string, string>) => {
      statusCode = status;
      for (const [name, value] of Object.entries(more ?? {})) written.set(name.toLowerCase(), value);
      return response;
    },
    end: (chunk?: string) => {
      body += chunk ?? '';
      return response;
    },
  };
  const result = (): APIGatewayProxyStructuredResultV2 => {
    const cookies = written.get('set-cookie');
    written.delete('set-cookie');
    const single = Object.fromEntries(
      [...written].map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
    );
    return {
      statusCode,
      headers: { 'cache-control': 'no-store', ...single },
      ...(cookies ? { cookies: Array.isArray(cookies) ? cookies : [cookies] } : {}),
      body,
    };
  };
  return { request, response: response as unknown as ServerResponse, result };
}

function htmlResponse(res: ServerResponse, status: number, html: string): void {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.writeHead(status);
  res.end(html);
}

/** Whether a request is for one of the "Add to Slack" pages (whichever mode the bot runs in). */
export function isOAuthPage(event: APIGatewayProxyEventV2): boolean {
  const path = event.rawPath;
  return (
    event.requestContext.http.method === 'GET' &&
    (path.endsWith(INSTALL_PATH) || path.endsWith(OAUTH_REDIRECT_PATH))
  );
}

export interface OAuthRoutes {
  /** The answer for an OAuth path, or `undefined` when the path is not one of them. */
  handle(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> | undefined;
}

export function oauthRoutes(
  installer: BotInstaller,
  onInstalled: (team: string | undefined, enterprise: string | undefined) => void,
  slackApiUrl?: string,
): OAuthRoutes {
  return {
    handle(event) {
      const path = event.rawPath;
      if (!isOAuthPage(event)) return undefined;
      if (path.endsWith(INSTALL_PATH)) {
        const { request, response, result } = asNodeExchange(event);
        return installer
          .handleInstallPathFor(request, response, event.queryStringParameters?.team)
          .then(result);
      }
      if (path.endsWith(OAUTH_REDIRECT_PATH)) {
        const { request, response, result } = asNodeExchange(event);
        return installer
          .handleCallback(request, response, {
            success: (installation, _options, _req, res) => {
              onInstalled(installation.team?.id, installation.enterprise?.id);
              const where = installation.team?.name ?? installation.enterprise?.name ?? 'your workspace';
              const team = installation.team?.id;
              const open = team
                ? `<p class="actions"><a class="button primary" id="open-slack" href="${escapeHtml(appRedirectUrlFor(slackApiUrl, team, installation.appId))}">Open Slack</a></p>`
                : '';
              htmlResponse(
                res,
                200,
                documentPage(
                  'Installed',
                  `<p>The cloud bot is installed in ${escapeHtml(where)}. Type <code>/cloud help</code> in any channel, then <code>/cloud login</code>.</p>${open}`,
                ),
              );
            },
            failure: (error, _options, _req, res) => {
              htmlResponse(
                res,
                400,
                documentPage(
                  'Installation failed',
                  `<p>${escapeHtml(failureText(error.code))}</p><p class="actions"><a class="button" href="install">Install page</a></p>`,
                ),
              );
            },
          })
          .then(result);
      }
      return undefined;
    },
  };
}
