import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { documentPage, escapeHtml } from '../../../lib/slack-kit/page-style.js';
import { AUTHORIZATION_CODE_MS, type AuthorizeAnswer, type SlackTeam } from './oauth.js';
import { accessTokenHash, type JsonWebKeySet, OpenIdSigningKey } from './openid-keys.js';
import type { SlackUser } from './store.js';

/**
 * Slack's side of Sign in with Slack (OpenID Connect), for the seeded workspace's people: the
 * discovery document, the authorize page where a person says who they are, one-time codes,
 * `openid.connect.token` (a code for a user token and a signed `id_token`), the signing keys, and
 * `openid.connect.userInfo`. Sources: api.slack.com/authentication/sign-in-with-slack, the
 * `openid.connect.token` and `openid.connect.userInfo` method pages, Slack's discovery document
 * (MCP-FACTS.md §5), OpenID Connect Core 1.0, RFC 6749 and RFC 7636; rules `openid-*` in
 * `rules.ts`.
 *
 * In Slack the client is the app itself (its client id and secret, its Redirect URLs); the stand-in
 * keeps this registration apart from "Add to Slack"'s (`oauth.ts`) so a single-workspace stack,
 * which installs no app through OAuth, can still sign people in. Register both with the same
 * credentials where a test uses both.
 */

export interface OpenIdClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /**
   * The app's Redirect URLs: an authorize request naming another is refused with a page, and one
   * naming none is sent back to the first.
   */
  readonly redirectUris: readonly string[];
  /**
   * Token rotation (`token_rotation_enabled`): user tokens (`xoxe.xoxp-…`) expire this many seconds
   * after they are issued and are renewed with their refresh token (`xoxe-…`), each good for one
   * refresh. Without it Slack's Sign in with Slack tokens do not expire.
   */
  readonly tokenExpiresInSeconds?: number;
}

/** Where the stand-in serves Sign in with Slack, beside the Web API methods under `/api/`. */
export const OPENID_PATHS = {
  discovery: '/.well-known/openid-configuration',
  authorize: '/openid/connect/authorize',
  keys: '/openid/connect/keys',
} as const;

export const OPENID_TOKEN_METHOD = 'openid.connect.token';
export const OPENID_USER_INFO_METHOD = 'openid.connect.userInfo';

/** Slack's scopes for Sign in with Slack (`scopes_supported`); `openid` is required, the others optional. */
export const OPENID_SCOPES = ['openid', 'email', 'profile'] as const;
export type OpenIdScope = (typeof OPENID_SCOPES)[number];

/**
 * How long an id_token is good for: Slack's example token has `exp` 300 s after `iat`
 * (openid.connect.token method page).
 */
export const ID_TOKEN_SECONDS = 300;

/** A person signed in through the stand-in, as their user token tells it. */
export interface SignedInPerson {
  readonly user: SlackUser;
  readonly team: SlackTeam;
  readonly scopes: readonly OpenIdScope[];
}

export type UserTokenState =
  | { readonly state: 'valid'; readonly person: SignedInPerson }
  | { readonly state: 'expired' }
  | { readonly state: 'unknown' };

export interface StandInOpenIdOptions {
  /** The stand-in's base URL, the issuer (`iss`), as `https://slack.com` is Slack's. */
  readonly issuer: string;
  /** `${issuer}/api/`, where `openid.connect.token` and `openid.connect.userInfo` are. */
  readonly apiUrl: string;
  /** The workspace people sign in to (the seeded one) and its people; bots cannot sign in. */
  readonly team: SlackTeam;
  readonly users: readonly SlackUser[];
  readonly now: () => number;
}

/** A Web API answer's body, `{ok: true, …}` or `{ok: false, error}`, sent with HTTP 200 as Slack does. */
export type OpenIdAnswer = Readonly<Record<string, unknown>>;

/** What the person allowed: for whom, for which client, and what the code's exchange must repeat. */
interface Grant {
  readonly user: SlackUser;
  readonly clientId: string;
  readonly scopes: readonly OpenIdScope[];
}

interface IssuedCode extends Grant {
  readonly redirectUri: string;
  /** Whether the authorize request named `redirect_uri`: then the exchange must name it too. */
  readonly redirectUriSent: boolean;
  readonly nonce?: string;
  readonly codeChallenge?: string;
  /** When the person allowed, in ms: the id_token's `auth_time`. */
  readonly authTime: number;
  readonly expiresAt: number;
}

interface IssuedToken extends Grant {
  readonly authTime: number;
  readonly expiresAt?: number;
}

/** A valid authorize request, as the page and its form carry it. */
interface AuthorizeRequest {
  readonly client: OpenIdClient;
  readonly scopes: readonly OpenIdScope[];
  readonly redirectUri: string;
  readonly redirectUriSent: boolean;
  readonly state?: string;
  readonly nonce?: string;
  readonly codeChallenge?: string;
  /** The request's own parameters, for the form's hidden fields. */
  readonly params: Readonly<Record<string, string>>;
}

/** Far above any real value; keeps a hostile request from filling memory through a code's record. */
const MAX_PARAMETER = 2000;
const ParameterSchema = z.string().max(MAX_PARAMETER);

/** The authorize request's parameters; others are ignored (RFC 6749 §3.1). */
const AuthorizeParamsSchema = z.object({
  response_type: ParameterSchema.optional(),
  client_id: ParameterSchema.optional(),
  scope: ParameterSchema.optional(),
  redirect_uri: ParameterSchema.optional(),
  state: ParameterSchema.optional(),
  nonce: ParameterSchema.optional(),
  team: ParameterSchema.optional(),
  code_challenge: ParameterSchema.optional(),
  code_challenge_method: ParameterSchema.optional(),
});

/** `openid.connect.token`'s arguments (method page; `code_verifier` per its PKCE argument). */
const TokenArgsSchema = z.object({
  client_id: ParameterSchema.optional(),
  client_secret: ParameterSchema.optional(),
  code: ParameterSchema.optional(),
  redirect_uri: ParameterSchema.optional(),
  grant_type: ParameterSchema.optional(),
  refresh_token: ParameterSchema.optional(),
  code_verifier: ParameterSchema.optional(),
});

/** An S256 challenge is the base64url SHA-256 of the verifier: 43 characters (RFC 7636 §4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** A verifier is 43 to 128 unreserved characters (RFC 7636 §4.1). */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export class StandInOpenId {
  readonly #options: StandInOpenIdOptions;
  readonly #key = new OpenIdSigningKey();
  /** Codes, user tokens and refresh tokens, each kept by its SHA-256 only. */
  readonly #codes = new Map<string, IssuedCode>();
  readonly #tokens = new Map<string, IssuedToken>();
  readonly #refreshTokens = new Map<string, IssuedToken>();
  #client: OpenIdClient | undefined;

  constructor(options: StandInOpenIdOptions) {
    this.#options = options;
  }

  /** The app's Sign in with Slack settings: its client id and secret and its Redirect URLs. */
  register(client: OpenIdClient): void {
    this.#client = client;
  }

  /** `GET /.well-known/openid-configuration`: Slack's document, naming the stand-in's URLs. */
  discovery(): OpenIdAnswer {
    const { issuer, apiUrl } = this.#options;
    // Slack's document field for field (as captured in geldata/gel tests/test_http_ext_auth.py,
    // SLACK_DISCOVERY_DOCUMENT): it lists neither the refresh_token grant, which
    // openid.connect.token takes, nor code_challenge_methods_supported, though the method takes a
    // code_verifier (MCP-FACTS.md §2: so Slack cannot be an MCP authorization server itself).
    return {
      issuer,
      authorization_endpoint: `${issuer}${OPENID_PATHS.authorize}`,
      token_endpoint: `${apiUrl}${OPENID_TOKEN_METHOD}`,
      userinfo_endpoint: `${apiUrl}${OPENID_USER_INFO_METHOD}`,
      jwks_uri: `${issuer}${OPENID_PATHS.keys}`,
      scopes_supported: ['openid', 'profile', 'email'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: ['sub', 'auth_time', 'iss'],
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: true,
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    };
  }

  /** `GET /openid/connect/keys`: the public key id_tokens are signed with. */
  jwks(): JsonWebKeySet {
    return this.#key.jwks();
  }

  /**
   * `GET /openid/connect/authorize`: the page where a person of the workspace picks who they are
   * and allows the app to know it, or cancels. A request Slack cannot trust (unknown client, a
   * redirect URI the app does not list) or cannot serve is answered with a page, never a redirect.
   */
  authorizePage(query: URLSearchParams): AuthorizeAnswer {
    const request = this.#readRequest(query);
    if (typeof request === 'string') return problemPage(request);
    const hidden = Object.entries(request.params)
      .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
      .join('');
    const people = this.#people()
      .map(
        (user) =>
          `<option value="${escapeHtml(user.id)}">${escapeHtml(user.real_name)} (@${escapeHtml(user.name)})</option>`,
      )
      .join('');
    const learns = [
      'your Slack id and workspace',
      ...(request.scopes.includes('email') ? ['your email address'] : []),
      ...(request.scopes.includes('profile') ? ['your name'] : []),
    ].join(', ');
    return {
      kind: 'page',
      status: 200,
      html: documentPage(
        'Sign in with Slack',
        `<form method="post" action="${OPENID_PATHS.authorize}">${hidden}<p>Sign in to <strong>${escapeHtml(this.#options.team.name)}</strong> as:</p><div class="choices"><select name="user" aria-label="Who you are">${people}</select></div><p class="muted">The app will learn ${escapeHtml(learns)}.</p><div class="actions"><button class="button primary" type="submit" name="decision" value="allow">Allow</button><button class="button" type="submit" name="decision" value="deny">Cancel</button></div></form>`,
      ),
    };
  }

  /**
   * `POST /openid/connect/authorize`: the person allowed (or cancelled); back to the app with a
   * one-time code and the request's `state`, or with `error=access_denied` (RFC 6749 §4.1.2,
   * §4.1.2.1).
   */
  decide(form: URLSearchParams): AuthorizeAnswer {
    const request = this.#readRequest(form);
    if (typeof request === 'string') return problemPage(request);
    const back = new URL(request.redirectUri);
    const user = this.#people().find((person) => person.id === form.get('user'));
    if (form.get('decision') !== 'allow' || !user) {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = randomBytes(24).toString('base64url');
      const now = this.#options.now();
      this.#codes.set(digest(code), {
        user,
        clientId: request.client.clientId,
        scopes: request.scopes,
        redirectUri: request.redirectUri,
        redirectUriSent: request.redirectUriSent,
        ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
        ...(request.codeChallenge === undefined ? {} : { codeChallenge: request.codeChallenge }),
        authTime: now,
        expiresAt: now + AUTHORIZATION_CODE_MS,
      });
      back.searchParams.set('code', code);
    }
    if (request.state !== undefined) back.searchParams.set('state', request.state);
    return { kind: 'redirect', location: back.toString() };
  }

  /**
   * `openid.connect.token`: a code for the person's user token and an id_token, once; or, with
   * token rotation, a refresh token for new ones, once. The client authenticates with its id and
   * secret in the body (`client_secret_post`) or in a Basic header (`client_secret_basic`).
   */
  token(args: Readonly<Record<string, unknown>>, authorization: string | undefined): OpenIdAnswer {
    const parsed = TokenArgsSchema.safeParse(args);
    if (!parsed.success) return { ok: false, error: 'invalid_arguments' };
    const input = parsed.data;
    const client = this.#authenticate(input, authorization);
    if ('error' in client) return { ok: false, error: client.error };
    const grantType = input.grant_type ?? 'authorization_code';
    if (grantType === 'refresh_token') return this.#refresh(input.refresh_token ?? '', client);
    if (grantType !== 'authorization_code') return { ok: false, error: 'invalid_grant_type' };
    const key = digest(input.code ?? '');
    const issued = this.#codes.get(key);
    // One exchange, whatever its outcome (RFC 6749 §4.1.2): a code that failed is spent too.
    this.#codes.delete(key);
    if (!issued || issued.expiresAt <= this.#options.now() || issued.clientId !== client.clientId)
      return { ok: false, error: 'invalid_code' };
    // "While redirect_uri is optional, it is required if your app passed it as a parameter to
    // /openid/connect/authorize" (openid.connect.token method page).
    const redirectUri = input.redirect_uri;
    if (
      issued.redirectUriSent
        ? redirectUri !== issued.redirectUri
        : redirectUri !== undefined && redirectUri !== issued.redirectUri
    )
      return { ok: false, error: 'bad_redirect_uri' };
    if (!verifierMatches(issued.codeChallenge, input.code_verifier))
      return { ok: false, error: 'invalid_code' };
    return this.#tokenAnswer(issued, client, issued.nonce);
  }

  /**
   * `openid.connect.userInfo`: the person a user token belongs to, as its scopes allow. Bot tokens
   * answer `not_allowed_token_type`; the method takes a user token with `openid`.
   */
  userInfo(token: string | undefined, isBotToken: (token: string) => boolean): OpenIdAnswer {
    if (!token) return { ok: false, error: 'not_authed' };
    if (isBotToken(token)) return { ok: false, error: 'not_allowed_token_type' };
    const owner = this.tokenState(token);
    if (owner.state === 'expired') return { ok: false, error: 'token_expired' };
    if (owner.state === 'unknown') return { ok: false, error: 'invalid_auth' };
    const { user, team, scopes } = owner.person;
    return {
      ok: true,
      ...this.#personClaims(user, scopes),
      'https://slack.com/team_name': team.name,
      'https://slack.com/team_domain': team.domain,
    };
  }

  /** Whose a user token issued here is, while it works (an expired rotating token answers `token_expired`). */
  tokenState(token: string): UserTokenState {
    const issued = this.#tokens.get(digest(token));
    if (!issued) return { state: 'unknown' };
    if (issued.expiresAt !== undefined && issued.expiresAt <= this.#options.now())
      return { state: 'expired' };
    return { state: 'valid', person: { user: issued.user, team: this.#options.team, scopes: issued.scopes } };
  }

  #refresh(refreshToken: string, client: OpenIdClient): OpenIdAnswer {
    const key = digest(refreshToken);
    const grant = this.#refreshTokens.get(key);
    if (!grant || grant.clientId !== client.clientId || client.tokenExpiresInSeconds === undefined)
      return { ok: false, error: 'invalid_refresh_token' };
    // Single use, as Slack's rotating refresh tokens are (rule `token-rotation`).
    this.#refreshTokens.delete(key);
    // A refreshed id_token carries no nonce: none was sent (OpenID Connect Core 1.0 §12.2).
    return this.#tokenAnswer(grant, client, undefined);
  }

  #tokenAnswer(
    grant: Grant & { readonly authTime: number },
    client: OpenIdClient,
    nonce: string | undefined,
  ): OpenIdAnswer {
    const secret = () => randomBytes(16).toString('hex');
    const lifetime = client.tokenExpiresInSeconds;
    const now = this.#options.now();
    const record: IssuedToken = {
      user: grant.user,
      clientId: grant.clientId,
      scopes: grant.scopes,
      authTime: grant.authTime,
    };
    // Slack's user tokens: `xoxp-…`, or `xoxe.xoxp-…` with a `xoxe-…` refresh token when rotating.
    const accessToken =
      lifetime === undefined ? `xoxp-${this.#options.team.id}-${secret()}` : `xoxe.xoxp-1-${secret()}`;
    this.#tokens.set(
      digest(accessToken),
      lifetime === undefined ? record : { ...record, expiresAt: now + lifetime * 1000 },
    );
    let rotation: Record<string, unknown> = {};
    if (lifetime !== undefined) {
      const refreshToken = `xoxe-1-${secret()}`;
      this.#refreshTokens.set(digest(refreshToken), record);
      rotation = { refresh_token: refreshToken, expires_in: lifetime };
    }
    return {
      ok: true,
      access_token: accessToken,
      token_type: 'Bearer',
      id_token: this.#idToken(grant, accessToken, nonce),
      ...rotation,
    };
  }

  /** The id_token's claims, in the order of Slack's example (openid.connect.token method page). */
  #idToken(
    grant: Grant & { readonly authTime: number },
    accessToken: string,
    nonce: string | undefined,
  ): string {
    const issuedAt = Math.floor(this.#options.now() / 1000);
    const { sub, ...person } = this.#personClaims(grant.user, grant.scopes);
    return this.#key.sign({
      iss: this.#options.issuer,
      sub,
      aud: grant.clientId,
      exp: issuedAt + ID_TOKEN_SECONDS,
      iat: issuedAt,
      auth_time: Math.floor(grant.authTime / 1000),
      ...(nonce === undefined ? {} : { nonce }),
      at_hash: accessTokenHash(accessToken),
      ...person,
    });
  }

  /**
   * Who the person is, as the scopes allow (OpenID Connect Core 1.0 §5.4: `email` gives the email
   * claims, `profile` the name ones). The seeded people have no address: theirs is their name at
   * the workspace's domain under `.example` (RFC 2606).
   */
  #personClaims(user: SlackUser, scopes: readonly OpenIdScope[]): { sub: string } & Record<string, unknown> {
    const { team } = this.#options;
    const [givenName = '', ...family] = user.real_name.split(' ');
    return {
      sub: user.id,
      'https://slack.com/team_id': team.id,
      'https://slack.com/user_id': user.id,
      ...(scopes.includes('email')
        ? { email: `${user.name}@${team.domain}.example`, email_verified: true }
        : {}),
      ...(scopes.includes('profile')
        ? {
            name: user.real_name,
            given_name: givenName,
            family_name: family.join(' '),
            locale: 'en-US',
            'https://slack.com/team_image_default': true,
          }
        : {}),
    };
  }

  #people(): readonly SlackUser[] {
    return this.#options.users.filter((user) => !user.is_bot);
  }

  /**
   * The client's credentials, in the body or a Basic header (RFC 6749 §2.3.1: id and secret each
   * form-encoded, then base64); both at once is refused (§2.3: "MUST NOT use more than one
   * authentication method in each request").
   */
  #authenticate(
    input: z.infer<typeof TokenArgsSchema>,
    authorization: string | undefined,
  ): OpenIdClient | { readonly error: string } {
    const basic = basicCredentials(authorization);
    if (basic === 'malformed') return { error: 'invalid_client_id' };
    if (basic && input.client_secret !== undefined) return { error: 'invalid_arguments' };
    if (basic && input.client_id !== undefined && input.client_id !== basic.clientId)
      return { error: 'invalid_client_id' };
    const client = this.#client;
    const clientId = basic?.clientId ?? input.client_id;
    if (!client || clientId !== client.clientId) return { error: 'invalid_client_id' };
    if (!sameSecret(basic?.clientSecret ?? input.client_secret ?? '', client.clientSecret))
      return { error: 'bad_client_secret' };
    return client;
  }

  /** The authorize request, or why Slack would not serve it (in words for the page). */
  #readRequest(params: URLSearchParams): AuthorizeRequest | string {
    // "Request and response parameters MUST NOT be included more than once" (RFC 6749 §3.1).
    for (const name of new Set(params.keys()))
      if (params.getAll(name).length > 1) return `The parameter ${name} is given more than once.`;
    const parsed = AuthorizeParamsSchema.safeParse(Object.fromEntries(params));
    if (!parsed.success) return `A parameter is longer than ${MAX_PARAMETER} characters.`;
    const query = parsed.data;
    const client = this.#client;
    if (!client) return 'This app is not set up for Sign in with Slack (no client registered).';
    if (query.client_id !== client.clientId) return 'Unknown client_id.';
    const redirectUri = query.redirect_uri ?? client.redirectUris[0];
    if (redirectUri === undefined || !client.redirectUris.includes(redirectUri))
      return "redirect_uri is not one of the app's Redirect URLs.";
    if (query.response_type !== 'code') return 'response_type must be code.';
    const scopes = scopeList(query.scope ?? '');
    const unknown = scopes.find((scope) => !isOpenIdScope(scope));
    if (unknown !== undefined)
      return `Unknown scope ${unknown}: Sign in with Slack takes openid, email and profile.`;
    if (!scopes.includes('openid')) return 'scope must include openid.';
    const challenge = query.code_challenge;
    if (challenge !== undefined || query.code_challenge_method !== undefined) {
      // Without a method the challenge is `plain` (RFC 7636 §4.3), which the stand-in refuses.
      if (query.code_challenge_method !== 'S256') return 'code_challenge_method must be S256.';
      if (challenge === undefined || !S256_CHALLENGE.test(challenge))
        return 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).';
    }
    const carried = Object.fromEntries(
      Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    return {
      client,
      scopes: OPENID_SCOPES.filter((scope) => scopes.includes(scope)),
      redirectUri,
      redirectUriSent: query.redirect_uri !== undefined,
      ...(query.state === undefined ? {} : { state: query.state }),
      ...(query.nonce === undefined ? {} : { nonce: query.nonce }),
      ...(challenge === undefined ? {} : { codeChallenge: challenge }),
      params: carried,
    };
  }
}

function problemPage(problem: string): AuthorizeAnswer {
  return { kind: 'page', status: 400, html: documentPage('Cannot sign in', `<p>${escapeHtml(problem)}</p>`) };
}

function isOpenIdScope(scope: string): scope is OpenIdScope {
  return (OPENID_SCOPES as readonly string[]).includes(scope);
}

/** `scope`: space-separated in OpenID Connect; Slack takes commas too, as on its OAuth pages. */
function scopeList(scope: string): string[] {
  return scope.split(/[\s,]+/).filter((item) => item !== '');
}

function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * With a challenge the exchange must bring its verifier; without one it must bring none (a
 * verifier for a request that had no challenge is refused, as RFC 9700 asks against PKCE
 * downgrade, so PKCE cannot be stripped from a request on its way).
 */
function verifierMatches(challenge: string | undefined, verifier: string | undefined): boolean {
  if (challenge === undefined) return verifier === undefined;
  if (verifier === undefined || !CODE_VERIFIER.test(verifier)) return false;
  const computed = createHash('sha256').update(verifier, 'ascii').digest();
  return timingSafeEqual(computed, Buffer.from(challenge, 'base64url'));
}

function basicCredentials(
  authorization: string | undefined,
): { readonly clientId: string; readonly clientSecret: string } | 'malformed' | undefined {
  const encoded = /^Basic\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    const formDecode = (text: string) => decodeURIComponent(text.replaceAll('+', ' '));
    return {
      clientId: formDecode(decoded.slice(0, colon)),
      clientSecret: formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    return 'malformed';
  }
}
