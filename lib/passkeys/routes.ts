import type { Logger } from '@aws-lambda-powertools/logger';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as z from 'zod';
import type { Store } from '../store/index.js';
import type { PasskeyLink, PasskeyLinkRefusal, PasskeyLinkResult } from '../store/passkey-links.js';
import { PasskeyAlreadyRegisteredError } from '../store/passkeys.js';
import { ceremonyPage, noticePage, type PasskeyPage, type ProofSubject } from './page.js';
import { type PasskeyRequestPath, passkeyRequestPath, type RelyingParty } from './paths.js';
import '../zod-settings.js';

/**
 * The passkey page's three requests, as the Slack function serves them on the bot's HTTP API
 * (loaded only for these paths, with WebAuthn's library). `@simplewebauthn/server` makes and
 * checks the ceremonies; this module decides what a link allows.
 *
 * Who may use a link: the page is not signed in to Slack, so it cannot ask who is looking. A link is
 * bound to one person by three things instead: it reaches only them (an ephemeral message), it is
 * spent by its first answer and dies within minutes, and an approval counts only when signed by a
 * passkey registered to the person the link names. Someone else who opens it has no such passkey:
 * the options offer only that person's credentials, and an answer signed by any other credential
 * is refused (and spends the link). An enrollment link adds a passkey to the person it names, so
 * it must reach only them, as an ephemeral message does; it expires in ten minutes and works once.
 */

export interface VerifiedAssertion {
  readonly teamId: string;
  readonly userId: string;
  readonly credentialId: string;
}

/**
 * What came of a verified assertion, as the page tells the person: `recorded` only when the
 * decision counted (or its outcome is on the card); otherwise why nothing was (the challenge used,
 * expired, not theirs, or the rule no longer takes a passkey). `message` is plain text.
 */
export interface AssertionOutcome {
  readonly recorded: boolean;
  readonly message: string;
  /** Where the person goes next, a link the page shows under the message (plain text label). */
  readonly next?: { readonly url: string; readonly label: string } | undefined;
}

/**
 * What the passkey page tells the bot of a person's own methods: a passkey registered (the person
 * is told and it is audited), and a factor link's assertion checked out (the change it was for is
 * made, and the page says what came of it). Supplied by the surface that words them.
 */
export interface PasskeyFactorEvents {
  passkeyAdded(who: { readonly teamId: string; readonly userId: string }): Promise<void>;
  proved(challengeId: string, proof: VerifiedAssertion): Promise<AssertionOutcome>;
}

/**
 * Told once per approval link whose assertion checked out, with the challenge the link was bound
 * to; the step-up challenge records the vote. Not called for any refusal.
 */
export type OnVerifiedAssertion = (
  challengeId: string,
  proof: VerifiedAssertion,
) => Promise<AssertionOutcome>;

export type { ProofSubject };

/** The subject of the approval link `link` names, or undefined when its challenge or request is gone. */
export type DescribeProof = (link: {
  readonly team: string;
  readonly user: string;
  readonly challengeId: string;
}) => Promise<ProofSubject | undefined>;

export interface PasskeyRouteDeps {
  readonly store: Pick<Store, 'passkeys' | 'passkeyLinks'>;
  readonly relyingParty: RelyingParty;
  readonly onVerifiedAssertion: OnVerifiedAssertion;
  readonly factors: PasskeyFactorEvents;
  readonly describeProof: DescribeProof;
  readonly logger: Logger;
}

/** The largest answer a browser sends for one ceremony is a few kilobytes. */
const MAX_BODY_BYTES = 64 * 1024;
/** How long the browser may wait for the person's touch. */
const CEREMONY_TIMEOUT_MS = 120_000;

const base64url = z.string().regex(/^[A-Za-z0-9_-]*$/);

const RegistrationAnswerSchema = z.object({
  id: base64url.min(1),
  rawId: base64url.min(1),
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  response: z.object({
    clientDataJSON: base64url.min(1),
    attestationObject: base64url.min(1),
    transports: z
      .array(z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']))
      .max(8)
      .default([]),
  }),
});

const AuthenticationAnswerSchema = z.object({
  id: base64url.min(1),
  rawId: base64url.min(1),
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  response: z.object({
    clientDataJSON: base64url.min(1),
    authenticatorData: base64url.min(1),
    signature: base64url.min(1),
    userHandle: base64url.optional(),
  }),
});

const REQUEST_GONE = {
  status: 404,
  title: 'Request not found',
  text: 'The request this link was made for no longer exists. Nothing was recorded.',
};

const REFUSALS: Record<PasskeyLinkRefusal, { status: number; title: string; text: string }> = {
  used: {
    status: 410,
    title: 'Link already used',
    text: 'This link was already used. Each link works once: ask for a new one in Slack.',
  },
  expired: {
    status: 410,
    title: 'Link expired',
    text: 'This link has expired. Links work for a few minutes: ask for a new one in Slack.',
  },
  unknown: {
    status: 404,
    title: 'Link not valid',
    text: 'This link is not valid. Ask for a new one in Slack.',
  },
};

export async function handlePasskeyRequest(
  event: APIGatewayProxyEventV2,
  deps: PasskeyRouteDeps,
): Promise<APIGatewayProxyStructuredResultV2> {
  const path = passkeyRequestPath(event.rawPath);
  const method = event.requestContext.http.method;
  if (!path) return json(404, 'refused', 'Not found.');
  try {
    if (path.step === 'page' && (method === 'GET' || method === 'HEAD')) return await page(path, deps);
    if (path.step === 'options' && method === 'POST') return await options(path, deps);
    if (path.step === 'verify' && method === 'POST') return await verify(path, event, deps);
    return json(405, 'refused', 'Method not allowed.');
  } catch (error) {
    // Never the path (it holds the token) nor the body: the error's kind and message only.
    deps.logger.error('passkey request failed', {
      step: path.step,
      error: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown',
    });
    return json(
      503,
      'refused',
      'The bot could not finish this just now. Nothing was recorded; try again from Slack.',
    );
  }
}

/** A link of this page's: one for the authenticator app's QR page (`app-qr.ts`) is not valid here. */
type PasskeyPageLink = PasskeyLink & {
  readonly purpose: Exclude<PasskeyLink['purpose'], { kind: 'app_qr' }>;
};

function passkeyPageLink(
  found: PasskeyLinkResult,
): { readonly status: 'valid'; readonly link: PasskeyPageLink } | { readonly status: PasskeyLinkRefusal } {
  if (found.status !== 'valid') return found;
  const { link } = found;
  const { purpose } = link;
  return purpose.kind === 'app_qr' ? { status: 'unknown' } : { status: 'valid', link: { ...link, purpose } };
}

/** Showing the page uses nothing: a link preview that fetches it spends no link. */
async function page(path: PasskeyRequestPath, deps: PasskeyRouteDeps) {
  const found = passkeyPageLink(await deps.store.passkeyLinks.look(path.token));
  if (found.status !== 'valid') {
    const refusal = REFUSALS[found.status];
    return html(refusal.status, noticePage(refusal.title, refusal.text));
  }
  const { link } = found;
  const { purpose } = link;
  if (purpose.kind === 'enroll') return html(200, ceremonyPage({ kind: 'enroll' }));
  if (purpose.kind === 'factor') return html(200, ceremonyPage({ kind: purpose.change }));
  const subject = await subjectOf(link, purpose.challengeId, deps);
  if (!subject) return html(REQUEST_GONE.status, noticePage(REQUEST_GONE.title, REQUEST_GONE.text));
  return html(200, ceremonyPage({ kind: 'approve', subject, linkUntil: link.validUntil }));
}

function subjectOf(link: PasskeyLink, challengeId: string, deps: PasskeyRouteDeps) {
  return deps.describeProof({ team: link.team, user: link.user, challengeId });
}

/** Why this approval link cannot count now (its request gone, or its rule no longer takes a passkey). */
async function approvalRefusal(link: PasskeyLink, challengeId: string, deps: PasskeyRouteDeps) {
  const subject = await subjectOf(link, challengeId, deps);
  if (!subject) return json(REQUEST_GONE.status, 'refused', REQUEST_GONE.text);
  return subject.passkeyRefused ? json(409, 'refused', subject.passkeyRefused) : undefined;
}

async function options(path: PasskeyRequestPath, deps: PasskeyRouteDeps) {
  const found = passkeyPageLink(await deps.store.passkeyLinks.look(path.token));
  if (found.status !== 'valid') return refusedLink(found.status);
  const { link } = found;
  const { relyingParty: rp } = deps;
  const registered = await deps.store.passkeys.list(link.team, link.user);
  let ceremony: { challenge: string };
  if (link.purpose.kind === 'enroll') {
    ceremony = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      // The user handle the authenticator keeps: random, so it names nobody.
      userName: `${link.user}@${link.team}`,
      userDisplayName: 'Slack user',
      timeout: CEREMONY_TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: registered.map((passkey) => ({
        id: passkey.id,
        transports: [...passkey.transports],
      })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
  } else {
    // A decision's link checks its request and rule; a factor link proves only who the person is.
    const refusal =
      link.purpose.kind === 'approve'
        ? await approvalRefusal(link, link.purpose.challengeId, deps)
        : undefined;
    if (refusal) return refusal;
    if (registered.length === 0)
      return json(
        403,
        'refused',
        'No passkey is registered for the person this link was sent to. Nothing was recorded.',
      );
    ceremony = await generateAuthenticationOptions({
      rpID: rp.id,
      timeout: CEREMONY_TIMEOUT_MS,
      userVerification: 'required',
      allowCredentials: registered.map((passkey) => ({
        id: passkey.id,
        transports: [...passkey.transports],
      })),
    });
  }
  const begun = await deps.store.passkeyLinks.beginCeremony(path.token, ceremony.challenge);
  if (begun.status !== 'valid') return refusedLink(begun.status);
  return jsonBody(200, { outcome: 'options', options: ceremony });
}

async function verify(path: PasskeyRequestPath, event: APIGatewayProxyEventV2, deps: PasskeyRouteDeps) {
  const body = bodyOf(event);
  // Spent before the answer is checked: whatever the answer, this link is not tried twice.
  const used = passkeyPageLink(await deps.store.passkeyLinks.use(path.token));
  if (used.status !== 'valid') return refusedLink(used.status);
  const { link } = used;
  if (body === undefined || link.ceremonyChallenge === undefined)
    return json(
      400,
      'refused',
      'The browser sent no passkey answer. Nothing was recorded; ask for a new link in Slack.',
    );
  if (link.purpose.kind === 'enroll') return enroll(link, link.ceremonyChallenge, body, deps);
  const record: OnVerifiedAssertion =
    link.purpose.kind === 'factor' ? deps.factors.proved : deps.onVerifiedAssertion;
  return approve(link, link.purpose.challengeId, link.ceremonyChallenge, body, deps, record);
}

async function enroll(link: PasskeyLink, challenge: string, body: unknown, deps: PasskeyRouteDeps) {
  const answer = RegistrationAnswerSchema.safeParse(body);
  if (!answer.success) return notAccepted();
  const { authenticatorAttachment, ...registration } = answer.data;
  const checked = await verifyRegistrationResponse({
    response: { ...registration, ...(authenticatorAttachment ? { authenticatorAttachment } : {}) },
    expectedChallenge: challenge,
    expectedOrigin: deps.relyingParty.origin,
    expectedRPID: deps.relyingParty.id,
    requireUserVerification: true,
  }).catch(() => undefined);
  if (!checked?.verified) return notAccepted();
  const { credential } = checked.registrationInfo;
  try {
    await deps.store.passkeys.save(link.team, link.user, {
      id: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? [],
    });
  } catch (error) {
    // Registered to this person already (or by this same save, sent again after a lost answer):
    // either way it is theirs, which is what they came for.
    if (error instanceof PasskeyAlreadyRegisteredError)
      return json(200, 'saved', 'This passkey is set up already. You may close this page.');
    throw error;
  }
  deps.logger.info('passkey registered', { team: link.team, user: link.user });
  // Saved whatever comes of telling: the person is told in Slack, and a lost notice is logged there.
  await deps.factors.passkeyAdded({ teamId: link.team, userId: link.user });
  return json(200, 'saved', 'Passkey saved. You may close this page.');
}

async function approve(
  link: PasskeyLink,
  challengeId: string,
  challenge: string,
  body: unknown,
  deps: PasskeyRouteDeps,
  record: OnVerifiedAssertion,
) {
  const answer = AuthenticationAnswerSchema.safeParse(body);
  if (!answer.success) return notAccepted();
  // Only a passkey of the person the link names can answer it.
  const passkey = await deps.store.passkeys.find(link.team, link.user, answer.data.id);
  if (!passkey) {
    deps.logger.warn('passkey approval refused: credential not registered to the link’s person', {
      team: link.team,
      user: link.user,
    });
    return json(
      403,
      'refused',
      'This passkey is not registered to the person this link was sent to. Nothing was recorded.',
    );
  }
  const { authenticatorAttachment, response, ...assertion } = answer.data;
  const { userHandle, ...signed } = response;
  const checked = await verifyAuthenticationResponse({
    response: {
      ...assertion,
      ...(authenticatorAttachment ? { authenticatorAttachment } : {}),
      response: { ...signed, ...(userHandle ? { userHandle } : {}) },
    },
    expectedChallenge: challenge,
    expectedOrigin: deps.relyingParty.origin,
    expectedRPID: deps.relyingParty.id,
    credential: {
      id: passkey.id,
      publicKey: new Uint8Array(passkey.publicKey),
      counter: passkey.counter,
      transports: [...passkey.transports],
    },
    requireUserVerification: true,
  }).catch(() => undefined);
  if (!checked?.verified) return notAccepted();
  // A counter another use moved meanwhile: this answer may be a replay or a clone's.
  const moved = await deps.store.passkeys.recordUse(
    link.team,
    link.user,
    passkey.id,
    passkey.counter,
    checked.authenticationInfo.newCounter,
  );
  if (!moved) return notAccepted();
  // The rule may have changed since the page was opened: a passkey it no longer takes counts nothing.
  const refusal =
    link.purpose.kind === 'approve' ? await approvalRefusal(link, challengeId, deps) : undefined;
  if (refusal) return refusal;
  let outcome: AssertionOutcome;
  try {
    outcome = await record(challengeId, {
      teamId: link.team,
      userId: link.user,
      credentialId: passkey.id,
    });
  } catch (error) {
    // Whether the vote landed is not known here: say so, not "nothing was recorded".
    deps.logger.error('passkey approval checked but not confirmed recorded', {
      team: link.team,
      error: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown',
    });
    return json(
      503,
      'refused',
      'Your passkey checked out, but the bot could not confirm your decision was recorded. Look at the request in Slack.',
    );
  }
  if (!outcome.recorded) return json(409, 'refused', outcome.message);
  return jsonBody(200, {
    outcome: 'approved',
    message: outcome.message,
    ...(outcome.next && { next: outcome.next }),
  });
}

function notAccepted() {
  return json(
    403,
    'refused',
    'Your passkey’s answer did not check out. Nothing was recorded; ask for a new link in Slack.',
  );
}

function refusedLink(status: PasskeyLinkRefusal) {
  const refusal = REFUSALS[status];
  return json(refusal.status, 'refused', refusal.text);
}

function bodyOf(event: APIGatewayProxyEventV2): unknown {
  const raw = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : event.body;
  if (raw === undefined || raw.length === 0 || Buffer.byteLength(raw) > MAX_BODY_BYTES) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

function json(statusCode: number, outcome: string, message: string): APIGatewayProxyStructuredResultV2 {
  return jsonBody(statusCode, { outcome, message });
}

function jsonBody(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

function html(statusCode: number, page: PasskeyPage): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: page.headers, body: page.html };
}
