import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/**
 * The few HTTP chores the OAuth endpoints share: reading parameters (each at most once, RFC 6749
 * §3.1 and §3.2: "Request and response parameters MUST NOT be included more than once"), bodies of a
 * bounded size, JSON answers that are never cached (§5.1), and the cookie that ties a sign-in to
 * the browser that started it.
 */

export type OAuthRouteHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export type Params =
  | { readonly ok: true; readonly get: (name: string) => string | undefined }
  | { readonly ok: false; readonly problem: string };

/** A query string or form body is at most this long: every parameter here is short. */
export const MAX_PARAMS_LENGTH = 8 * 1024;

/** `application/x-www-form-urlencoded` text as parameters; a repeated or oversized one refuses all. */
export function paramsOf(text: string): Params {
  if (text.length > MAX_PARAMS_LENGTH) return { ok: false, problem: 'The request is too long.' };
  const values = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (values.has(name))
      return { ok: false, problem: `The parameter ${truncatedName(name)} is given more than once.` };
    values.set(name, value);
  }
  return { ok: true, get: (name) => values.get(name) };
}

function truncatedName(name: string): string {
  return JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
}

export function queryOf(event: APIGatewayProxyEventV2): Params {
  return paramsOf(event.rawQueryString ?? '');
}

/** The body as text, or undefined when it is longer than `maxBytes`. */
export function bodyOf(event: APIGatewayProxyEventV2, maxBytes: number): string | undefined {
  const raw = event.body ?? '';
  const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  return bytes.length > maxBytes ? undefined : bytes.toString('utf8');
}

export function mediaTypeOf(event: APIGatewayProxyEventV2): string {
  return (event.headers?.['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function methodOf(event: APIGatewayProxyEventV2): string {
  return event.requestContext.http.method.toUpperCase();
}

/** No credentials ride on these requests (no cookies, no ambient auth), so any origin may call. */
const CORS = { 'access-control-allow-origin': '*' };

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'x-content-type-options': 'nosniff',
      ...CORS,
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

/** An OAuth error answer (RFC 6749 §5.2; RFC 7591 §3.2.2; RFC 7009 §2.2.1). */
export function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return json(status, { error, error_description: description }, headers);
}

/** A CORS preflight for the JSON endpoints. */
export function preflight(allow: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: 204,
    headers: {
      ...CORS,
      'access-control-allow-methods': allow,
      'access-control-allow-headers': 'content-type, authorization, mcp-protocol-version',
      'access-control-max-age': '600',
    },
  };
}

export function methodNotAllowed(allow: string): APIGatewayProxyStructuredResultV2 {
  return oauthError(405, 'invalid_request', `Use ${allow}.`, { allow });
}

export function redirect(
  location: string,
  cookies: readonly string[] = [],
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: 302,
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    ...(cookies.length > 0 ? { cookies: [...cookies] } : {}),
  };
}

/**
 * The cookie that holds a sign-in's browser secret: named after the sign-in (several agents may
 * sign in from one browser at once), HttpOnly, sent only to the OAuth paths, and SameSite=Lax so
 * it rides along on Slack's redirect back (a top-level GET) and the consent form's POST from the
 * bot's own page, never on a request another site makes in the background.
 */
export function signInCookieName(signInId: string): string {
  return `agent_sign_in_${createHash('sha256').update(signInId).digest('base64url').slice(0, 16)}`;
}

export function signInCookie(
  signInId: string,
  browserSecret: string,
  options: { readonly path: string; readonly secure: boolean; readonly maxAgeSeconds: number },
): string {
  return [
    `${signInCookieName(signInId)}=${browserSecret}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function cookieValue(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const all = [...(event.cookies ?? []), ...(event.headers?.cookie?.split(/;\s*/) ?? [])];
  for (const cookie of all) {
    const at = cookie.indexOf('=');
    if (at > 0 && cookie.slice(0, at).trim() === name) return cookie.slice(at + 1).trim();
  }
  return undefined;
}
