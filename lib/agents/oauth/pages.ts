import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DOCUMENT_PAGE_STYLE, escapeHtml } from '../../slack-kit/page-style.js';
import type { OfferedChannel } from '../../store/agent-authorizations.js';
import type { RedirectKind } from './redirect-uris.js';

/**
 * The pages a person sees while signing an agent in: the consent page, and a notice for anything
 * that stops the sign-in before the agent can be told (RFC 6749 §4.1.2.1: with no redirect URI to
 * trust, the error is shown, never sent anywhere). Plain server-rendered HTML in the style of the
 * bot's other pages (`lib/slack-kit/page-style.ts`), every outside value escaped, no script at all
 * and nothing loaded from elsewhere; the Content-Security-Policy allows only this response's own
 * style, and a form sent only here (and on to the agent's redirect URI, which Chromium checks a
 * form's redirect against). The page may not be framed: a consent page inside another site's frame
 * could be clicked through without being seen.
 */

const EXTRA_STYLE = `
.warning { border-left: 4px solid var(--danger); background: #fdf0f4; padding: 8px 12px; border-radius: 4px; }
.field { display: block; font-weight: 700; margin: 16px 0 6px; }
select { width: 100%; padding: 8px; border: 1px solid #bbb; border-radius: 4px; background: #fff; }
.choice span { font-weight: 400; color: var(--muted); display: block; font-size: 13px; }
.who { word-break: break-all; }
`;

function document(title: string, body: string, nonce: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style nonce="${nonce}">${DOCUMENT_PAGE_STYLE}${EXTRA_STYLE}</style></head><body><main class="card"><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

function page(
  status: number,
  title: string,
  body: string,
  formTargets: readonly string[] = [],
): APIGatewayProxyStructuredResultV2 {
  const nonce = randomBytes(16).toString('base64');
  const formAction = formTargets.length === 0 ? "'none'" : ["'self'", ...formTargets].join(' ');
  return {
    statusCode: status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'content-security-policy': [
        "default-src 'none'",
        `style-src 'nonce-${nonce}'`,
        `form-action ${formAction}`,
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
    },
    body: document(title, body, nonce),
  };
}

/** A page that only tells: why the sign-in stopped, and what to do. */
export function noticePage(status: number, title: string, text: string): APIGatewayProxyStructuredResultV2 {
  return page(status, title, `<p id="notice">${escapeHtml(text)}</p>`);
}

export interface ConsentPageInput {
  readonly agentName: string;
  /** The client id, when it is a metadata document's URL (what the name was read from). */
  readonly metadataUrl?: string | undefined;
  readonly destination: { readonly label: string; readonly kind: RedirectKind };
  readonly personName: string;
  readonly channels: readonly OfferedChannel[];
  /** Whether the agent asked to ask for changes (else it may only read). */
  readonly mayAskForChanges: boolean;
  readonly consentPath: string;
  readonly signInId: string;
  readonly consentSecret: string;
  /** Where the form's redirect goes (the agent's redirect URI's origin, or its scheme). */
  readonly formTarget: string;
}

export function consentPage(input: ConsentPageInput): APIGatewayProxyStructuredResultV2 {
  const agent = `<strong>${escapeHtml(input.agentName)}</strong>`;
  const where =
    input.destination.kind === 'https'
      ? `<p class="muted">Its sign-in returns to <strong class="who">${escapeHtml(input.destination.label)}</strong>.</p>`
      : `<p class="warning" id="local-warning">This agent runs on your computer: its sign-in returns to <strong class="who">${escapeHtml(input.destination.label)}</strong>, where any program can listen. Allow it only if you started this sign-in from your agent just now.</p>`;
  const identified = input.metadataUrl
    ? `<p class="muted">The name is the agent's own, from <span class="who">${escapeHtml(input.metadataUrl)}</span>.</p>`
    : '<p class="muted">The name is the one the agent registered with; nobody checked it.</p>';
  const hidden = `<input type="hidden" name="sign_in" value="${escapeHtml(input.signInId)}"><input type="hidden" name="consent" value="${escapeHtml(input.consentSecret)}">`;
  const deny = '<button type="submit" name="decision" value="deny" class="button" id="deny">Deny</button>';
  if (input.channels.length === 0) {
    return page(
      200,
      'No channel for this agent',
      `<p>${agent} wants to act for you, ${escapeHtml(input.personName)}. Every change it asks for waits for approval in a channel of yours where @cloud is too, and there is none.</p><p>Invite @cloud to a channel you are in with <code>/invite @cloud</code>, then sign the agent in again.</p><form method="post" action="${escapeHtml(input.consentPath)}">${hidden}<p class="actions">${deny}</p></form>`,
      [input.formTarget],
    );
  }
  const options = input.channels
    .map((channel) => `<option value="${escapeHtml(channel.id)}">#${escapeHtml(channel.name)}</option>`)
    .join('');
  const read =
    '<label class="choice"><input type="radio" name="access" value="read"' +
    (input.mayAskForChanges ? '' : ' checked') +
    '><div>Read<span>List and show your resources with your linked token.</span></div></label>';
  const change = input.mayAskForChanges
    ? '<label class="choice"><input type="radio" name="access" value="change" checked><div>Read and ask for changes<span>Every change waits for approval in the home channel, as yours do.</span></div></label>'
    : '';
  return page(
    200,
    `Allow ${input.agentName}?`,
    `<p>${agent} wants to use Cloud ChatOps for you, <strong>${escapeHtml(input.personName)}</strong>.</p>${where}${identified}<form method="post" action="${escapeHtml(input.consentPath)}">${hidden}<label class="field" for="channel">Home channel</label><select name="channel" id="channel" required>${options}</select><p class="muted">Its changes are posted there for approval, under the channel's rules.</p><span class="field">What it may do</span><div class="choices">${read}${change}</div><p class="actions">${deny}<button type="submit" name="decision" value="allow" class="button primary" id="allow">Allow</button></p></form>`,
    [input.formTarget],
  );
}
