import { randomBytes } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { renderSVG } from 'uqr';
import { CODE_DIGITS } from '../changes/step-up.js';
import { pendingAppKey } from '../core/step-up-enrollment.js';
import { escapeHtml } from '../slack-kit/page-style.js';
import type { Store } from '../store/index.js';
import type { PasskeyLinkRefusal } from '../store/passkey-links.js';
import { documentWithNonce, noticePage, type PasskeyPage, pageHeaders } from './page.js';
import { appQrRequestPath } from './paths.js';

/**
 * The page that shows the QR code of a person's authenticator app enrollment, on the bot's HTTP
 * API (loaded only for its path, with the QR encoder). Slack shows no image without a URL, and the
 * key must never be kept in Slack as a file nor reach a public URL, so the enrollment reply gives
 * its person a one-time link here (`appQrLink`) that holds no key: the page reads the pending
 * enrollment of the person the link names through the store, where it is sealed, and draws it as
 * inline SVG under the same CSP as the passkey page (no script at all here).
 *
 * `GET` says what the page will show and uses nothing, as the passkey page's does: whatever
 * fetches a link to look at it (a link preview, a scanner) neither spends it nor sees the key.
 * The page's one button posts to the same address, which spends the link and shows the code, once:
 * a second visit says the link was used. It works for minutes, and only while the app waits for
 * its first code; once confirmed, its key is never shown again.
 */

export interface AppQrRouteDeps {
  readonly store: Pick<Store, 'passkeyLinks' | 'stepUp'>;
  readonly logger: Pick<Logger, 'error'>;
}

const TITLE = 'Add the bot to your authenticator app';

/** A QR code's quiet zone is four modules wide (ISO/IEC 18004); scanners need it. */
const QR_BORDER_MODULES = 4;

const REFUSALS: Record<PasskeyLinkRefusal, { status: number; title: string; text: string }> = {
  used: {
    status: 410,
    title: 'Link already used',
    text: 'This link was already used: it shows the QR code once. To see a code again, start again with /cloud mfa enroll in Slack.',
  },
  expired: {
    status: 410,
    title: 'Link expired',
    text: 'This link has expired: it works for a few minutes. Start again with /cloud mfa enroll in Slack.',
  },
  unknown: {
    status: 404,
    title: 'Link not valid',
    text: 'This link is not valid. Start again with /cloud mfa enroll in Slack.',
  },
};

const NOTHING_TO_SHOW = {
  none: 'No authenticator app is waiting to be added for you, so there is no QR code to show. Start with /cloud mfa enroll in Slack.',
  confirmed:
    'Your authenticator app is confirmed already; its key is not shown again. To change apps, reset first with /cloud mfa reset in Slack.',
} as const;

const STYLE =
  '#app-qr{margin:0}#app-qr svg{display:block;width:min(100%,18rem);height:auto;margin:1rem auto}';

export async function handleAppQrRequest(
  event: APIGatewayProxyEventV2,
  deps: AppQrRouteDeps,
): Promise<APIGatewayProxyStructuredResultV2> {
  const path = appQrRequestPath(event.rawPath);
  if (!path) return html(404, noticePage(REFUSALS.unknown.title, REFUSALS.unknown.text));
  const method = event.requestContext.http.method;
  try {
    if (method === 'GET' || method === 'HEAD') return await offer(path.token, deps);
    if (method === 'POST') return await show(path.token, deps);
    return { statusCode: 405, headers: { 'content-type': 'text/plain', allow: 'GET, POST' }, body: '' };
  } catch (error) {
    // Never the path (it holds the token) nor what was read: the error's kind and message only.
    deps.logger.error('authenticator QR page failed', {
      error: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown',
    });
    return html(
      503,
      noticePage(
        'Not available just now',
        'The bot could not show the QR code just now. Start again with /cloud mfa enroll in Slack in a minute.',
      ),
    );
  }
}

/** What the link will show, and its button; nothing used. */
async function offer(token: string, deps: AppQrRouteDeps) {
  const found = await deps.store.passkeyLinks.look(token);
  if (found.status !== 'valid' || found.link.purpose.kind !== 'app_qr') return refused(found.status);
  const nonce = randomBytes(16).toString('base64');
  const body =
    `<p>${escapeHtml('Show the QR code of the key you asked for in Slack, then scan it with your authenticator app. This link shows it once: keep this page to yourself.')}</p>` +
    `<form method="post"><p class="actions"><button type="submit" class="button primary" id="app-qr-show">Show the QR code</button></p></form>`;
  return html(200, {
    html: documentWithNonce(TITLE, body, nonce, STYLE),
    headers: pageHeaders(nonce, "'self'"),
  });
}

/** Spends the link, then draws the person's pending key; a link met twice shows it once. */
async function show(token: string, deps: AppQrRouteDeps) {
  const used = await deps.store.passkeyLinks.useAppQr(token);
  if (used.status !== 'valid') return refused(used.status);
  const { team, user } = used.link;
  const key = await pendingAppKey(deps, { team, user });
  if (key.kind !== 'pending') return html(409, noticePage('No QR code to show', NOTHING_TO_SHOW[key.kind]));
  return html(200, qrPage(key.uri));
}

/** The page with the QR code of `uri`, exactly: what the authenticator app scans. */
export function qrPage(uri: string): PasskeyPage {
  const nonce = randomBytes(16).toString('base64');
  const svg = renderSVG(uri, { ecc: 'M', border: QR_BORDER_MODULES });
  const body =
    `<p>${escapeHtml(`Scan this with your authenticator app, then confirm in Slack with /cloud mfa confirm and the ${CODE_DIGITS}-digit code it shows. Until then it does not count.`)}</p>` +
    `<figure id="app-qr" role="img" aria-label="QR code of your authenticator app's key">${svg}</figure>` +
    `<p class="muted">${escapeHtml('This page is not shown again: reloading it shows nothing. Close it once the app shows codes.')}</p>`;
  return { html: documentWithNonce(TITLE, body, nonce, STYLE), headers: pageHeaders(nonce) };
}

function refused(status: PasskeyLinkRefusal | 'valid') {
  const refusal = REFUSALS[status === 'valid' ? 'unknown' : status];
  return html(refusal.status, noticePage(refusal.title, refusal.text));
}

function html(statusCode: number, page: PasskeyPage): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: page.headers, body: page.html };
}
