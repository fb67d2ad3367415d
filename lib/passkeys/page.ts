import { randomBytes } from 'node:crypto';
import { DOCUMENT_PAGE_STYLE, escapeHtml } from '../slack-kit/page-style.js';
import type { ChallengeDecision } from '../store/index.js';

/**
 * The passkey page: one card, its style and script inline (it loads nothing else), under a
 * Content-Security-Policy that lets only this response's own script and style run and lets it
 * talk only to its own origin. The script asks the bot for the ceremony's options, hands them to
 * `navigator.credentials.create` (enroll) or `.get` (approve) with the base64url fields turned
 * into bytes and back, and posts the browser's answer for checking. Referrer-Policy keeps the
 * link (its token is in the path) out of any request the page makes.
 */

/** What the page is for: a new passkey, a decision, or a change to the person's own methods. */
export type PasskeyPageKind = 'enroll' | 'approve' | 'add_passkey' | 'add_app' | 'remove_own';

export interface PasskeyPage {
  readonly html: string;
  readonly headers: Record<string, string>;
}

const ACTIONS: Record<PasskeyPageKind, { title: string; intro: string; button: string }> = {
  enroll: {
    title: 'Set up a passkey',
    intro:
      'Create a passkey for approving requests in Slack. Your device asks for your fingerprint, face or PIN; the bot keeps only the public key.',
    button: 'Create passkey',
  },
  approve: {
    title: 'Confirm with your passkey',
    intro: 'Use your passkey to confirm your decision in Slack. Nothing is recorded until it checks out.',
    button: 'Use passkey',
  },
  add_passkey: {
    title: 'Confirm it is you: add a passkey',
    intro:
      'You asked in Slack to add another passkey to your step-up methods. Use a passkey you already have to confirm it is you; then you set up the new one. Nothing changes until it checks out.',
    button: 'Use passkey',
  },
  add_app: {
    title: 'Confirm it is you: add an authenticator app',
    intro:
      'You asked in Slack to add an authenticator app to your step-up methods. Use a passkey you already have to confirm it is you; then this page shows the key for your app. Nothing changes until it checks out.',
    button: 'Use passkey',
  },
  remove_own: {
    title: 'Confirm it is you: remove your step-up methods',
    intro:
      'You asked in Slack to remove all your step-up methods (your passkeys and authenticator app). Use one of your passkeys to confirm it is you. Nothing is removed until it checks out.',
    button: 'Use passkey',
  },
};

/**
 * What an approval link proves, as its page shows it before anyone touches a passkey: read from
 * the challenge the link itself is bound to (never from the page's address, whose query anyone
 * can change), so a link for one request never shows or proves another. Plain text from outside
 * (labels, a reason, names): the page escapes it.
 */
export interface ProofSubject {
  readonly decision: ChallengeDecision;
  /** The operation in people's words: `delete volume`. */
  readonly action: string;
  /** The target by name and id, as the card names it: `db-data (12)`. */
  readonly target: string;
  /** Who asked, as Slack names them (their id when it cannot be read). */
  readonly requester: string;
  readonly reason: string | null;
  readonly requestId: string;
  /** When the request expires unless decided. */
  readonly requestExpires: Date;
  /** The person's own time zone as Slack has it (`users.info`), for the times shown. */
  readonly timeZone: string;
  /** Why a passkey cannot count for it under the rule in force now; absent when it can. */
  readonly passkeyRefused?: string | undefined;
}

/** What an approval page proves, by the decision the link was made for. */
const DECISIONS: Record<ChallengeDecision, { doing: string; decision: string; button: string }> = {
  approve: { doing: 'You are approving', decision: 'Approve', button: 'Approve with passkey' },
  deny: { doing: 'You are denying', decision: 'Deny', button: 'Deny with passkey' },
  break_glass: {
    doing: 'You are breaking glass to run at once, without approvals',
    decision: 'Break glass: run it now',
    button: 'Break glass with passkey',
  },
};

export type CeremonyPageInput =
  | { readonly kind: Exclude<PasskeyPageKind, 'approve'> }
  | { readonly kind: 'approve'; readonly subject: ProofSubject; readonly linkUntil: Date };

/**
 * The page with the button for a link that can be used. An approval page first says what the
 * passkey will confirm (the request, its target, the decision, who asked, why, until when), so a
 * touch never signs something the person did not see; where the rule no longer takes a passkey it
 * says so and offers no button.
 */
export function ceremonyPage(input: CeremonyPageInput): PasskeyPage {
  const nonce = randomBytes(16).toString('base64');
  const action = ACTIONS[input.kind];
  const subject = input.kind === 'approve' ? subjectHtml(input.subject, input.linkUntil) : '';
  const refused = input.kind === 'approve' ? input.subject.passkeyRefused : undefined;
  if (refused !== undefined) {
    const body = `${subject}<p id="passkey-result" data-state="refused">${escapeHtml(refused)}</p>`;
    return { html: documentWithNonce(action.title, body, nonce), headers: pageHeaders(nonce) };
  }
  const button = input.kind === 'approve' ? DECISIONS[input.subject.decision].button : action.button;
  const body = `${subject}<p>${escapeHtml(action.intro)}</p><p class="actions"><button type="button" class="button primary" id="passkey-start" data-kind="${input.kind}">${escapeHtml(button)}</button></p><p id="passkey-result" role="status" aria-live="polite" data-state="idle"></p><script nonce="${nonce}">${PAGE_SCRIPT}</script>`;
  return { html: documentWithNonce(action.title, body, nonce), headers: pageHeaders(nonce) };
}

/** What an approval link confirms, every value escaped (labels, the reason and names are outside text). */
function subjectHtml(subject: ProofSubject, linkUntil: Date): string {
  const words = DECISIONS[subject.decision];
  const row = (label: string, value: string) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`;
  const rows = [
    row('Request', subject.action),
    row('Target', subject.target),
    row('Your decision', words.decision),
    row('Asked by', subject.requester),
    row('Reason', subject.reason ?? 'none given'),
    row('Request expires', timeIn(subject.requestExpires, subject.timeZone)),
    row('This link works until', timeIn(linkUntil, subject.timeZone)),
    row('Request ID', subject.requestId),
  ];
  return (
    `<p id="passkey-decision" data-decision="${subject.decision}"><strong>${escapeHtml(words.doing)}:</strong> ` +
    `${escapeHtml(subject.action)} ${escapeHtml(subject.target)}</p><dl id="passkey-subject">${rows.join('')}</dl>`
  );
}

/** `15 Jan 2030, 14:35 (Asia/Kolkata)`: in the person's own zone, named; UTC where the zone is unknown. */
export function timeIn(at: Date, timeZone: string): string {
  const format = (zone: string) =>
    `${new Intl.DateTimeFormat('en-GB', { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' }).format(at)} (${zone})`;
  try {
    return format(timeZone);
  } catch {
    return format('UTC');
  }
}

/** A page that only tells (a link used, expired, unknown, or the bot not ready for passkeys). */
export function noticePage(title: string, text: string): PasskeyPage {
  const nonce = randomBytes(16).toString('base64');
  return {
    html: documentWithNonce(
      title,
      `<p id="passkey-result" data-state="refused">${escapeHtml(text)}</p>`,
      nonce,
    ),
    headers: pageHeaders(nonce),
  };
}

/** A page of the bot's: one card, its style inline under `nonce` (the QR page's too). */
export function documentWithNonce(title: string, body: string, nonce: string, style = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style nonce="${nonce}">${DOCUMENT_PAGE_STYLE}${style}#passkey-result[data-state="refused"]{color:var(--danger)}#passkey-result[data-state="done"]{color:var(--primary);font-weight:700}#passkey-subject{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}#passkey-subject dt{font-weight:700}#passkey-subject dd{margin:0;overflow-wrap:anywhere}</style></head><body><main class="card"><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

/**
 * No caching, no referrer, and a CSP under which only this response's own script and style run.
 * `formAction`: where a form may post; none but the QR page's own button (`'self'`).
 */
export function pageHeaders(
  nonce: string,
  formAction: "'none'" | "'self'" = "'none'",
): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'content-security-policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "connect-src 'self'",
      "base-uri 'none'",
      `form-action ${formAction}`,
      "frame-ancestors 'none'",
    ].join('; '),
  };
}

/**
 * The browser's side, as plain ES2020 (no build step, no library). WebAuthn's JSON forms carry
 * bytes as base64url; the browser's API wants ArrayBuffers, so the few byte fields are converted
 * each way by name.
 */
const PAGE_SCRIPT = `(() => {
  const button = document.getElementById('passkey-start');
  const result = document.getElementById('passkey-result');
  const kind = button.dataset.kind;
  const here = location.pathname.replace(/\\/+$/, '');
  const toBytes = (text) => {
    const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
    const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0)).buffer;
  };
  const toText = (buffer) => {
    if (!buffer) return undefined;
    let binary = '';
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  };
  const show = (state, text) => {
    result.dataset.state = state;
    result.textContent = text;
  };
  const post = async (step, body) => {
    const response = await fetch(here + '/' + step, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
      credentials: 'omit',
      cache: 'no-store',
    });
    const answer = await response.json().catch(() => ({ outcome: 'refused', message: 'The bot did not answer. Try again from Slack.' }));
    return { ok: response.ok, answer };
  };
  const asCreation = (options) => ({
    ...options,
    challenge: toBytes(options.challenge),
    user: { ...options.user, id: toBytes(options.user.id) },
    excludeCredentials: (options.excludeCredentials ?? []).map((c) => ({ ...c, id: toBytes(c.id) })),
  });
  const asRequest = (options) => ({
    ...options,
    challenge: toBytes(options.challenge),
    allowCredentials: (options.allowCredentials ?? []).map((c) => ({ ...c, id: toBytes(c.id) })),
  });
  const registrationJson = (credential) => ({
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: toText(credential.response.clientDataJSON),
      attestationObject: toText(credential.response.attestationObject),
      transports: credential.response.getTransports ? credential.response.getTransports() : [],
    },
  });
  const authenticationJson = (credential) => ({
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: toText(credential.response.clientDataJSON),
      authenticatorData: toText(credential.response.authenticatorData),
      signature: toText(credential.response.signature),
      userHandle: toText(credential.response.userHandle),
    },
  });
  button.addEventListener('click', async () => {
    button.disabled = true;
    show('working', 'Waiting for your passkey…');
    try {
      const started = await post('options');
      if (!started.ok) {
        show('refused', started.answer.message);
        return;
      }
      let credential;
      try {
        credential = kind === 'enroll'
          ? await navigator.credentials.create({ publicKey: asCreation(started.answer.options) })
          : await navigator.credentials.get({ publicKey: asRequest(started.answer.options) });
      } catch (error) {
        show('refused', 'Your browser gave no passkey (' + (error && error.name ? error.name : 'cancelled') + '). Reload the page to try again.');
        button.disabled = false;
        return;
      }
      const body = kind === 'enroll' ? registrationJson(credential) : authenticationJson(credential);
      const checked = await post('verify', body);
      show(checked.ok ? 'done' : 'refused', checked.answer.message);
      const next = checked.ok ? checked.answer.next : undefined;
      if (next && typeof next.url === 'string' && /^(https?:|otpauth:)/.test(next.url)) {
        const link = document.createElement('a');
        link.id = 'passkey-next';
        link.className = 'button primary';
        link.href = next.url;
        link.textContent = String(next.label);
        const line = document.createElement('p');
        line.className = 'actions';
        line.append(link);
        result.after(line);
      }
    } catch {
      show('refused', 'The bot could not be reached. Try again from Slack.');
    }
  });
})();`;
