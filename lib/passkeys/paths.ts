/**
 * Where the passkey page (and the authenticator app's QR page) lives on the bot's HTTP API, and
 * their links' shape. Kept apart from the
 * routes so the Slack function can tell a passkey request by its path without loading them (or
 * WebAuthn's library) on its cold start.
 *
 * `GET /passkey/{token}` is the page; `POST /passkey/{token}/options` starts a ceremony and
 * `POST /passkey/{token}/verify` checks the browser's answer. The path may sit under a stage
 * prefix, as API Gateway's stage names do.
 */

export const PASSKEY_PATH = '/passkey';

export type PasskeyStep = 'page' | 'options' | 'verify';

export interface PasskeyRequestPath {
  readonly token: string;
  readonly step: PasskeyStep;
}

const PASSKEY_ROUTE = /\/passkey\/([^/]+)(?:\/(options|verify))?$/;

/** The token and step of a passkey path; undefined for every other path. */
export function passkeyRequestPath(path: string): PasskeyRequestPath | undefined {
  const match = PASSKEY_ROUTE.exec(path);
  if (!match?.[1]) return undefined;
  const step = match[2] === 'options' ? 'options' : match[2] === 'verify' ? 'verify' : 'page';
  return { token: match[1], step };
}

/**
 * The relying party the passkeys are registered with: the host of the bot's public URL (its RP
 * ID) and that URL's origin, which the browser writes into every answer and the checks compare.
 * A passkey registered under one host answers only there: moving the bot to another host needs
 * passkeys enrolled again. `http://localhost` is a secure context for WebAuthn, so the local
 * stack serves the page there; an IP address cannot be an RP ID.
 */
export interface RelyingParty {
  readonly id: string;
  readonly origin: string;
  readonly name: string;
  /** Where links start: the public URL without a trailing slash. */
  readonly baseUrl: string;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  return {
    id: url.hostname,
    origin: url.origin,
    name: 'Cloud ChatOps',
    baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
  };
}

export function passkeyLinkUrl(relyingParty: RelyingParty, token: string): string {
  return `${relyingParty.baseUrl}${PASSKEY_PATH}/${token}`;
}

/**
 * The page that shows the QR code of a person's authenticator app enrollment: `GET
 * /authenticator/{token}` says what it will show and uses nothing, `POST` (its one button) shows
 * it, once. Beside the passkey page's paths for the same reason: told apart without loading it.
 */
export const APP_QR_PATH = '/authenticator';

const APP_QR_ROUTE = /\/authenticator\/([^/]+)$/;

/** The token of a QR page path; undefined for every other path. */
export function appQrRequestPath(path: string): { readonly token: string } | undefined {
  const token = APP_QR_ROUTE.exec(path)?.[1];
  return token ? { token } : undefined;
}

export function appQrLinkUrl(relyingParty: RelyingParty, token: string): string {
  return `${relyingParty.baseUrl}${APP_QR_PATH}/${token}`;
}
