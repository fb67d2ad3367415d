import { AsyncLocalStorage } from 'node:async_hooks';
import { type WebAPICallResult, WebClient } from '@slack/web-api';
import { slackFetch } from './slack-fetch.js';

/**
 * Slack's Web API client as the functions use it (theirs, and the one Bolt makes for each request):
 * a Lambda cannot wait out the library's default 30-minute retry schedule, so it retries once,
 * briefly, and rate-limited calls fail at once for the caller to decide (the reporter paces itself;
 * see `lib/reports`). Calls go through `slackFetch`.
 */
export const SLACK_CLIENT_OPTIONS = {
  retryConfig: { retries: 1, factor: 1, minTimeout: 200, maxTimeout: 500 },
  rejectRateLimitedCalls: true,
  fetch: slackFetch,
} as const;

export function createSlackWebClient(botToken: string, slackApiUrl?: string): WebClient {
  return new WebClient(botToken, { ...(slackApiUrl ? { slackApiUrl } : {}), ...SLACK_CLIENT_OPTIONS });
}

/** The bot token of a workspace: one fixed token, or the token of the workspace's installation. */
export interface BotTokens {
  tokenFor(team: string): Promise<string>;
  /** After an uninstall, so a warm container does not keep using a revoked token. */
  forget(team: string): void;
}

/**
 * The workspace the current work belongs to. The worker, the reporter and the sweep handle many
 * teams with one client; each unit of work (a job, an account's reports, a watch, an approval)
 * runs inside its team, and every Slack call it makes takes that team's token.
 */
const currentTeam = new AsyncLocalStorage<string>();

export function inSlackTeam<T>(team: string | undefined, work: () => Promise<T>): Promise<T> {
  return team === undefined ? work() : currentTeam.run(team, work);
}

export class NoSlackTeamError extends Error {
  override readonly name = 'NoSlackTeamError';
  constructor(method: string) {
    super(`Slack call ${method} made outside any workspace: there is no token to make it with.`);
  }
}

/**
 * One client for all workspaces: each call carries the bot token of the team it runs for
 * (`inSlackTeam`). A call outside any team fails instead of borrowing some other team's token.
 */
class TeamRoutedWebClient extends WebClient {
  readonly #tokens: BotTokens;

  constructor(
    tokens: BotTokens,
    slackApiUrl?: string,
    retries: number = SLACK_CLIENT_OPTIONS.retryConfig.retries,
  ) {
    super(undefined, {
      ...(slackApiUrl ? { slackApiUrl } : {}),
      ...SLACK_CLIENT_OPTIONS,
      retryConfig: { ...SLACK_CLIENT_OPTIONS.retryConfig, retries },
    });
    this.#tokens = tokens;
  }

  withoutRetries(): WebClient {
    return new TeamRoutedWebClient(this.#tokens, this.slackApiUrl, 0);
  }

  override async apiCall(method: string, options: Record<string, unknown> = {}): Promise<WebAPICallResult> {
    if (typeof options.token === 'string') return super.apiCall(method, options);
    const team = currentTeam.getStore();
    if (team === undefined) throw new NoSlackTeamError(method);
    return super.apiCall(method, { ...options, token: await this.#tokens.tokenFor(team) });
  }
}

/** The client the worker and the reporter post with: fixed token, or routed per team. */
export function createBackgroundSlackClient(
  tokens: BotTokens | { readonly botToken: string },
  slackApiUrl?: string,
): WebClient {
  return 'botToken' in tokens
    ? createSlackWebClient(tokens.botToken, slackApiUrl)
    : new TeamRoutedWebClient(tokens, slackApiUrl);
}

/**
 * `slack` without its retry, for a call whose retry could repeat what it did (a post whose answer
 * was lost). A routed client stays routed: a copy made from its `token` would have none.
 */
export function withoutRetries(slack: WebClient): WebClient {
  if (slack instanceof TeamRoutedWebClient) return slack.withoutRetries();
  return new WebClient(slack.token, {
    ...SLACK_CLIENT_OPTIONS,
    slackApiUrl: slack.slackApiUrl,
    retryConfig: { retries: 0 },
  });
}

/** Installed tokens are read once a minute at most per warm container; rotation refreshes earlier. */
export const BOT_TOKEN_CACHE_MS = 60_000;

/** A rotating bot token expired and could not be renewed: no call is made with it. */
export class BotTokenExpiredError extends Error {
  override readonly name = 'BotTokenExpiredError';
  readonly code = 'bot_token_expired';

  constructor(readonly team: string) {
    super(`The bot token of workspace ${team} expired and was not renewed.`);
  }
}

type Authorization = { botToken?: string | undefined; botTokenExpiresAt?: number | undefined };

/**
 * Bot tokens from the installations: `authorize` is InstallProvider's, which reads the store and
 * refreshes a rotating token that is about to expire (saving the new one). The worker and the
 * reporter have no incoming event to do that for them, so it happens here, before their calls.
 */
export function installedBotTokens(
  authorize: (team: string) => Promise<Authorization>,
  now: () => number = Date.now,
): BotTokens {
  const cache = new Map<string, { token: Promise<string>; until: number }>();
  const expired = (result: Authorization) =>
    result.botTokenExpiresAt !== undefined && result.botTokenExpiresAt * 1000 <= now();
  /**
   * A refresh token is good for one refresh. When another container refreshed first, this one's
   * refresh is refused and InstallProvider hands back the old, expired token: the new one is in
   * the store by then, so read it once more instead of calling Slack with a dead token.
   */
  async function authorizeUnexpired(team: string): Promise<Authorization> {
    const first = await authorize(team);
    if (!expired(first)) return first;
    const again = await authorize(team);
    if (expired(again)) throw new BotTokenExpiredError(team);
    return again;
  }
  return {
    tokenFor(team) {
      const cached = cache.get(team);
      if (cached && cached.until > now()) return cached.token;
      const token = authorizeUnexpired(team).then((result) => {
        if (!result.botToken) throw new Error('The installation of this workspace has no bot token.');
        const expiresAt = result.botTokenExpiresAt === undefined ? Infinity : result.botTokenExpiresAt * 1000;
        entry.until = Math.min(now() + BOT_TOKEN_CACHE_MS, expiresAt);
        return result.botToken;
      });
      const entry = { token, until: now() + BOT_TOKEN_CACHE_MS };
      // A failed lookup (not installed, storage trouble) is not remembered.
      token.catch(() => cache.delete(team));
      cache.set(team, entry);
      return token;
    },
    forget: (team) => cache.delete(team),
  };
}
