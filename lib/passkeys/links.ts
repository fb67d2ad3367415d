import type { FactorChange, Store } from '../store/index.js';
import type { PasskeyLinkPurpose } from '../store/passkey-links.js';
import { appQrLinkUrl, passkeyLinkUrl, type RelyingParty } from './paths.js';

/**
 * The ways into the passkey page. The mfa command posts an enrollment link to the person alone (an
 * ephemeral message), and a factor link when adding or removing a method needs a proof from a
 * passkey they have; a step-up challenge posts an approval link the same way. Each is
 * a fresh one-time link (`lib/store/passkey-links.ts`) bound to that person, and an approval link
 * also to its challenge. An authenticator app's enrollment gives its person a link of the same
 * kind to the page that shows its QR code (`app-qr.ts`).
 */

/** Setting up a passkey may mean finding a security key: ten minutes. */
export const ENROLLMENT_LINK_SECONDS = 10 * 60;
/** Approving is one touch on a passkey already set up: five minutes. */
export const APPROVAL_LINK_SECONDS = 5 * 60;
/** Scanning a QR code is done at once, with the reply that gave the link still open: five minutes. */
export const APP_QR_LINK_SECONDS = 5 * 60;

export interface PasskeyLinkContext {
  readonly store: Pick<Store, 'passkeyLinks'>;
  readonly relyingParty: RelyingParty;
}

export interface PasskeyLinkOffer {
  /** To post to the person only: whoever holds it can use it once, within its minutes. */
  readonly url: string;
  readonly validUntil: Date;
}

export function passkeyEnrollmentLink(
  ctx: PasskeyLinkContext,
  who: { readonly teamId: string; readonly userId: string },
): Promise<PasskeyLinkOffer> {
  return offer(ctx, who, { kind: 'enroll' }, ENROLLMENT_LINK_SECONDS, passkeyLinkUrl);
}

export function passkeyApprovalLink(
  ctx: PasskeyLinkContext,
  challenge: { readonly teamId: string; readonly userId: string; readonly challengeId: string },
): Promise<PasskeyLinkOffer> {
  const purpose = { kind: 'approve', challengeId: challenge.challengeId } as const;
  return offer(ctx, challenge, purpose, APPROVAL_LINK_SECONDS, passkeyLinkUrl);
}

/** A link to prove, with a passkey the person has, a change to their own step-up methods. */
export function passkeyFactorLink(
  ctx: PasskeyLinkContext,
  challenge: {
    readonly teamId: string;
    readonly userId: string;
    readonly challengeId: string;
    readonly change: FactorChange;
  },
): Promise<PasskeyLinkOffer> {
  const purpose = { kind: 'factor', challengeId: challenge.challengeId, change: challenge.change } as const;
  return offer(ctx, challenge, purpose, APPROVAL_LINK_SECONDS, passkeyLinkUrl);
}

/**
 * A link to the QR code of the person's authenticator app enrollment. It holds no secret: the page
 * reads the pending enrollment of the person the link names, through the store, when it is used.
 */
export function appQrLink(
  ctx: PasskeyLinkContext,
  who: { readonly teamId: string; readonly userId: string },
): Promise<PasskeyLinkOffer> {
  return offer(ctx, who, { kind: 'app_qr' }, APP_QR_LINK_SECONDS, appQrLinkUrl);
}

/** A fresh one-time link for `who` and `purpose`, on the page `urlOf` names. */
async function offer(
  ctx: PasskeyLinkContext,
  who: { readonly teamId: string; readonly userId: string },
  purpose: PasskeyLinkPurpose,
  lifetimeSeconds: number,
  urlOf: (relyingParty: RelyingParty, token: string) => string,
): Promise<PasskeyLinkOffer> {
  const { token, validUntil } = await ctx.store.passkeyLinks.issue({
    team: who.teamId,
    user: who.userId,
    purpose,
    lifetimeSeconds,
  });
  return { url: urlOf(ctx.relyingParty, token), validUntil };
}
