import { randomBytes } from 'node:crypto';
import { documentPage, escapeHtml } from '../../../lib/slack-kit/page-style.js';
import type { SlackChannel } from './store.js';

/**
 * Slack's side of "Add to Slack", for a distributed app: the authorize page where a person picks
 * a workspace and allows the app, the one-time codes it hands back through the redirect, and
 * `oauth.v2.access`, which trades a code for that workspace's bot token after checking the app's
 * client id and secret and the redirect URI. Tokens issued here are accepted by the Web API
 * stand-in as the bot of their workspace.
 */

export interface SlackTeam {
  readonly id: string;
  readonly name: string;
  readonly domain: string;
  /** Channels of this workspace; the seeded workspace's come from the store's seed. */
  readonly channels?: readonly SlackChannel[];
}

/**
 * A second local workspace, besides the seeded one, to install the app into. The store keeps one
 * set of messages for all workspaces, so its channel ids differ from the seeded workspace's.
 */
export const SECOND_TEAM: SlackTeam = {
  id: 'T0SECOND',
  name: 'Second workspace',
  domain: 'second',
  channels: [{ id: 'C0PLATFORM', name: 'platform', is_private: false, is_im: false }],
};

export interface OAuthApp {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The app's configured redirect URL: an authorize request or exchange naming another is refused. */
  readonly redirectUri: string;
  /**
   * Token rotation (`token_rotation_enabled` in the manifest): bot tokens (`xoxe.xoxb-…`) expire
   * this many seconds after they are issued and are renewed with their refresh token (`xoxe-…`),
   * each good for one refresh. Slack's own tokens last 12 hours (`ROTATING_TOKEN_SECONDS`).
   */
  readonly tokenExpiresInSeconds?: number;
}

/** How long Slack's rotating tokens last: `expires_in` 43200 (https://api.slack.com/authentication/rotation). */
export const ROTATING_TOKEN_SECONDS = 12 * 60 * 60;

/** A bot token issued here: whose it is, and until when it works (rotating tokens only). */
interface IssuedToken {
  readonly team: SlackTeam;
  /** What the person allowed on the authorize page, as the app asked for it. */
  readonly scopes: readonly string[];
  readonly expiresAt?: number;
}

export type TokenState = 'valid' | 'expired' | 'unknown';

interface IssuedCode {
  readonly team: SlackTeam;
  readonly user: string;
  readonly scopes: string;
  readonly redirectUri: string;
  readonly expiresAt: number;
}

/**
 * Slack's codes are good for ten minutes and one exchange: the most RFC 6749 §4.1.2 allows ("A
 * maximum authorization code lifetime of 10 minutes is RECOMMENDED"; "The client MUST NOT use the
 * authorization code more than once"). Sign in with Slack's codes follow the same rule
 * (`openid.ts`), as its flow "follows the flow of our OAuth V2 process"
 * (api.slack.com/authentication/sign-in-with-slack).
 */
export const AUTHORIZATION_CODE_MS = 10 * 60 * 1000;

export type AuthorizeAnswer =
  | { readonly kind: 'page'; readonly status: number; readonly html: string }
  | { readonly kind: 'redirect'; readonly location: string };

export class StandInOAuth {
  readonly #teams: readonly SlackTeam[];
  readonly #now: () => number;
  readonly #codes = new Map<string, IssuedCode>();
  readonly #tokens = new Map<string, IssuedToken>();
  /** Refresh token → its workspace and scopes; Slack hands out a new one with every refresh. */
  readonly #refreshTokens = new Map<
    string,
    { readonly team: SlackTeam; readonly scopes: readonly string[] }
  >();
  #app: OAuthApp | undefined;

  constructor(teams: readonly SlackTeam[], now: () => number) {
    this.#teams = teams;
    this.#now = now;
  }

  get teams(): readonly SlackTeam[] {
    return this.#teams;
  }

  /** The distributed app, as its settings on api.slack.com would name it. */
  register(app: OAuthApp): void {
    this.#app = app;
  }

  /** The workspace whose bot a token issued here belongs to, while the token works. */
  teamOf(token: string): SlackTeam | undefined {
    return this.stateOf(token) === 'valid' ? this.#tokens.get(token)?.team : undefined;
  }

  /** The scopes a working token was granted (none for a token not issued here). */
  scopesOf(token: string): readonly string[] {
    return this.stateOf(token) === 'valid' ? (this.#tokens.get(token)?.scopes ?? []) : [];
  }

  /** Whether a token works: an expired rotating token is answered `token_expired`, as Slack does. */
  stateOf(token: string): TokenState {
    const issued = this.#tokens.get(token);
    if (!issued) return 'unknown';
    return issued.expiresAt !== undefined && issued.expiresAt <= this.#now() ? 'expired' : 'valid';
  }

  /**
   * Whether the app is installed in `team` as Slack knows it: a token was issued there and not
   * revoked (an expired rotating token still means installed). Slack's own record, whatever the
   * app managed to store of the installation.
   */
  installedIn(team: string): boolean {
    for (const issued of this.#tokens.values()) if (issued.team.id === team) return true;
    return false;
  }

  /** The workspace removed the app or revoked its tokens: they stop working, as Slack revokes them. */
  revoke(team: string): void {
    for (const [token, issued] of this.#tokens) if (issued.team.id === team) this.#tokens.delete(token);
    for (const [token, owner] of this.#refreshTokens)
      if (owner.team.id === team) this.#refreshTokens.delete(token);
  }

  /**
   * `GET /oauth/v2/authorize`: the page where the person picks a workspace and allows the app. It
   * opens on the workspace the request's `team` names (rule `authorize-team`), else the first.
   */
  authorizePage(query: URLSearchParams): AuthorizeAnswer {
    const problem = this.#checkRequest(query);
    if (problem)
      return {
        kind: 'page',
        status: 400,
        html: documentPage('Cannot install', `<p>${escapeHtml(problem)}</p>`),
      };
    const hidden = ['client_id', 'scope', 'state', 'redirect_uri']
      .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(query.get(name) ?? '')}">`)
      .join('');
    const named = this.#teams.find((team) => team.id === query.get('team'));
    const selected = named ?? this.#teams[0];
    const choices = this.#teams
      .map(
        (team) =>
          `<label class="choice"><input type="radio" name="team" value="${escapeHtml(team.id)}"${team === selected ? ' checked' : ''}> ${escapeHtml(team.name)}</label>`,
      )
      .join('');
    const scopes = scopeList(query.get('scope') ?? '')
      .map((scope) => `<code>${escapeHtml(scope)}</code>`)
      .join(' ');
    return {
      kind: 'page',
      status: 200,
      html: documentPage(
        'Install the app',
        `<form method="post" action="/oauth/v2/authorize">${hidden}<p>Pick the workspace to install it in.</p><div class="choices">${choices}</div><p class="muted">It asks for: ${scopes}</p><div class="actions"><button class="button primary" type="submit" name="decision" value="allow">Allow</button><button class="button" type="submit" name="decision" value="deny">Cancel</button></div></form>`,
      ),
    };
  }

  /** `POST /oauth/v2/authorize`: the person allowed (or cancelled); back to the app with a code. */
  decide(form: URLSearchParams, user = 'U0ADMIN'): AuthorizeAnswer {
    const problem = this.#checkRequest(form);
    if (problem)
      return {
        kind: 'page',
        status: 400,
        html: documentPage('Cannot install', `<p>${escapeHtml(problem)}</p>`),
      };
    const redirectUri = form.get('redirect_uri') || (this.#app?.redirectUri as string);
    const back = new URL(redirectUri);
    const state = form.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const team = this.#teams.find((t) => t.id === form.get('team'));
    if (form.get('decision') !== 'allow' || !team) {
      back.searchParams.set('error', 'access_denied');
      return { kind: 'redirect', location: back.toString() };
    }
    const code = `${randomBytes(12).toString('hex')}.${team.id}`;
    this.#codes.set(code, {
      team,
      user,
      scopes: form.get('scope') ?? '',
      redirectUri,
      expiresAt: this.#now() + AUTHORIZATION_CODE_MS,
    });
    back.searchParams.set('code', code);
    return { kind: 'redirect', location: back.toString() };
  }

  /**
   * `oauth.v2.access`: a code for the workspace's bot token, once; or, with token rotation, a
   * refresh token for a new bot token and refresh token (`grant_type=refresh_token`), once. The
   * old bot token keeps working until its own expiry.
   */
  access(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const app = this.#app;
    if (!app || args.client_id !== app.clientId) return { ok: false, error: 'invalid_client_id' };
    if (args.client_secret !== app.clientSecret) return { ok: false, error: 'bad_client_secret' };
    if (args.grant_type === 'refresh_token') {
      const refreshToken = typeof args.refresh_token === 'string' ? args.refresh_token : '';
      const grant = this.#refreshTokens.get(refreshToken);
      if (!grant || app.tokenExpiresInSeconds === undefined)
        return { ok: false, error: 'invalid_refresh_token' };
      const { team } = grant;
      // Single use (rule `token-rotation`): the refresh hands out a new one and this one is spent,
      // so a second refresh with it (another container that read the old installation) fails.
      this.#refreshTokens.delete(refreshToken);
      return {
        ok: true,
        token_type: 'bot',
        ...this.#issue(team, grant.scopes, app),
        team: { id: team.id, name: team.name },
        enterprise: null,
        is_enterprise_install: false,
      };
    }
    const code = typeof args.code === 'string' ? args.code : '';
    const issued = this.#codes.get(code);
    this.#codes.delete(code);
    if (!issued || issued.expiresAt <= this.#now()) return { ok: false, error: 'invalid_code' };
    if ((args.redirect_uri ?? issued.redirectUri) !== issued.redirectUri)
      return { ok: false, error: 'bad_redirect_uri' };
    return {
      ok: true,
      ...this.#issue(issued.team, scopeList(issued.scopes), app),
      token_type: 'bot',
      scope: issued.scopes,
      bot_user_id: 'U0CLOUDBOT',
      app_id: 'A0CLOUD',
      team: { id: issued.team.id, name: issued.team.name },
      enterprise: null,
      is_enterprise_install: false,
      authed_user: { id: issued.user },
    };
  }

  #issue(team: SlackTeam, scopes: readonly string[], app: OAuthApp): Record<string, unknown> {
    const secret = () => randomBytes(12).toString('hex');
    const lifetime = app.tokenExpiresInSeconds;
    if (lifetime === undefined) {
      const token = `xoxb-${team.id}-${secret()}`;
      this.#tokens.set(token, { team, scopes });
      return { access_token: token };
    }
    const token = `xoxe.xoxb-${team.id}-${secret()}`;
    const refreshToken = `xoxe-${team.id}-${secret()}`;
    this.#tokens.set(token, { team, scopes, expiresAt: this.#now() + lifetime * 1000 });
    this.#refreshTokens.set(refreshToken, { team, scopes });
    return { access_token: token, refresh_token: refreshToken, expires_in: lifetime };
  }

  #checkRequest(query: URLSearchParams): string | undefined {
    const app = this.#app;
    if (!app) return 'This app is not set up for distribution (no OAuth settings).';
    if (query.get('client_id') !== app.clientId) return 'Unknown client_id.';
    const redirect = query.get('redirect_uri');
    if (redirect && redirect !== app.redirectUri) return 'redirect_uri does not match the app settings.';
    return undefined;
  }
}

/** The `scope` parameter of an authorize request: comma-separated, as Slack takes it. */
function scopeList(scope: string): string[] {
  return scope
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
