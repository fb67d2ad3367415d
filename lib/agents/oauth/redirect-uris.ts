/**
 * Which redirect URIs an agent may register (DCR) or list in its metadata document (CIMD), and
 * whether the one an authorization request names is one of them.
 *
 * Allowed (MCP-FACTS §2; OAuth 2.1 §2.3.1, §8.4): https URLs, and plain http only to this computer's
 * loopback (`localhost`, `127.0.0.1`, `[::1]`; RFC 8252 §7.3), where a desktop agent listens for
 * the code. No fragment (RFC 6749 §3.1.2), no user name or password, printable ASCII only (a URI
 * is ASCII, RFC 3986 §2; the WHATWG parser would silently drop tabs and newlines, so what was
 * checked would not be what is used). Besides these, a few private-use URIs of known desktop agents
 * (RFC 8252 §7.1), each by exact match: a custom scheme reaches whichever local app claimed it, and
 * PKCE is what keeps a code caught there useless.
 *
 * Matching is exact string comparison (OAuth 2.1 §4.1.2.1), except that a loopback URI matches on
 * any port: RFC 8252 §7.3 says the server "MUST allow any port to be specified at the time of the
 * request for loopback IP redirect URIs", since the agent picks a free port each time.
 */

export const MAX_REDIRECT_URI_LENGTH = 512;

/** Private-use redirect URIs accepted by exact match, with where the agent documents them. */
export const NATIVE_APP_REDIRECT_URIS: readonly { readonly uri: string; readonly source: string }[] = [
  {
    uri: 'cursor://anysphere.cursor-mcp/oauth/callback',
    source:
      'https://cursor.com/docs/mcp (Cursor registers it through DCR beside an https and a loopback callback; seen in makeplane/plane-mcp-server#159, erp-mafia/accounted#2225)',
  },
];

export type RedirectKind = 'https' | 'loopback' | 'native_app';

export type RedirectUriCheck =
  | { readonly ok: true; readonly kind: RedirectKind }
  | { readonly ok: false; readonly reason: string };

const LOOPBACK = /^(http:\/\/(?:localhost|127\.0\.0\.1|\[::1\]))(?::(\d{1,5}))?([/?].*)?$/;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

export function checkRedirectUri(value: string): RedirectUriCheck {
  if (value.length > MAX_REDIRECT_URI_LENGTH)
    return { ok: false, reason: `is longer than ${MAX_REDIRECT_URI_LENGTH} characters` };
  if (!PRINTABLE_ASCII.test(value))
    return { ok: false, reason: 'has a space, a control character or a character outside ASCII' };
  if (NATIVE_APP_REDIRECT_URIS.some((known) => known.uri === value)) return { ok: true, kind: 'native_app' };
  if (!URL.canParse(value)) return { ok: false, reason: 'is not an absolute URL' };
  const url = new URL(value);
  if (value.includes('#')) return { ok: false, reason: 'has a fragment' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'has a user name or password' };
  if (url.protocol === 'https:')
    return url.hostname === '' ? { ok: false, reason: 'has no host' } : { ok: true, kind: 'https' };
  if (url.protocol === 'http:' && LOOPBACK.test(value)) {
    const port = LOOPBACK.exec(value)?.[2];
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535))
      return { ok: false, reason: 'has a port outside 1–65535' };
    return { ok: true, kind: 'loopback' };
  }
  return {
    ok: false,
    reason: 'must be https, or http to localhost, 127.0.0.1 or [::1] (a desktop agent on this computer)',
  };
}

/** Whether `requested` (an authorization request's) is `registered`, any port allowed on loopback. */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const a = LOOPBACK.exec(registered);
  const b = LOOPBACK.exec(requested);
  if (!a || !b || !checkRedirectUri(requested).ok) return false;
  return a[1] === b[1] && (a[3] ?? '') === (b[3] ?? '');
}

/** How the consent page names where the code goes: the host (with its scheme when not https). */
export function redirectDestination(uri: string): { readonly label: string; readonly kind: RedirectKind } {
  const check = checkRedirectUri(uri);
  const kind = check.ok ? check.kind : 'https';
  if (kind === 'native_app') return { label: uri.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/]*).*$/, '$1'), kind };
  const url = new URL(uri);
  return { label: kind === 'loopback' ? `${url.hostname} (this computer)` : url.host, kind };
}

/** The origin a form may be sent on to when it redirects there (the consent page's CSP). */
export function redirectFormTarget(uri: string): string {
  const check = checkRedirectUri(uri);
  if (check.ok && check.kind === 'native_app') return `${new URL(uri).protocol}`;
  return new URL(uri).origin;
}
