import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { isConditionFailure, parseItem } from './items.js';
import { keys } from './keys.js';
import type { FactorChange } from './step-up.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import '../zod-settings.js';

/**
 * One-time links to the bot's own pages (`lib/passkeys/`): the passkey page, and the page that
 * shows an authenticator app's QR code. A link is a random 256-bit token in the
 * URL; the table keeps only its SHA-256, so a read of the table (or a backup) gives no usable
 * link. Each link is bound to one person (team and user) and one purpose: enrolling a passkey,
 * approving one step-up challenge, proving one change to the person's own step-up methods, or
 * showing the QR code of their authenticator app's pending enrollment. It works for minutes, and
 * once: the verification (or the showing) that uses it
 * marks it used by a conditional write, so two verifications racing on one link cannot both pass.
 * A used link stays (until its TTL removes it) so that the page can say it was used rather than
 * that it never existed.
 */

export type PasskeyLinkPurpose =
  | { readonly kind: 'enroll' }
  | { readonly kind: 'approve'; readonly challengeId: string }
  /** Proving with a passkey the person has that a change to their own methods is theirs. */
  | { readonly kind: 'factor'; readonly challengeId: string; readonly change: FactorChange }
  /** Showing the QR code of the person's authenticator app enrollment, once (no ceremony). */
  | { readonly kind: 'app_qr' };

export interface PasskeyLink {
  readonly team: string;
  readonly user: string;
  readonly purpose: PasskeyLinkPurpose;
  readonly validUntil: Date;
  /** The WebAuthn challenge of the ceremony the page started, once it has asked for options. */
  readonly ceremonyChallenge?: string | undefined;
}

/** Why a link does not open: said to the person in the browser as such, nothing more. */
export type PasskeyLinkRefusal = 'unknown' | 'used' | 'expired';

export type PasskeyLinkResult =
  | { readonly status: 'valid'; readonly link: PasskeyLink }
  | { readonly status: PasskeyLinkRefusal };

/** 32 random bytes, base64url: 43 characters. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const TOKEN_BYTES = 32;

/** A token as it may appear in a link; anything else is refused before the table is read. */
export function isPasskeyLinkToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

const LinkItemSchema = z.object({
  kind: z.literal('passkey_link'),
  team_id: z.string(),
  user_id: z.string(),
  purpose: z.enum(['enroll', 'approve', 'factor', 'app_qr']),
  challenge_id: z.string().optional(),
  factor_change: z.enum(['add_passkey', 'add_app', 'remove_own']).optional(),
  valid_until_ms: z.number(),
  ceremony_challenge: z.string().optional(),
  used_at: z.iso.datetime().optional(),
  /** Random per use: tells this use's own write from another's on reading back. */
  use_id: z.string().optional(),
});
type LinkItem = z.infer<typeof LinkItemSchema>;

export interface NewPasskeyLink {
  readonly team: string;
  readonly user: string;
  readonly purpose: PasskeyLinkPurpose;
  readonly lifetimeSeconds: number;
}

export class PasskeyLinkStore {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** A new link's token: the only time it exists outside the person's browser. */
  async issue(input: NewPasskeyLink): Promise<{ token: string; validUntil: Date }> {
    // Checked like every key part: a malformed id fails here, not in a later write.
    keys.user(input.team, input.user);
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const validUntil = new Date(this.#ctx.now().getTime() + input.lifetimeSeconds * 1000);
    const item = {
      pk: keys.passkeyLink(tokenHash(token)),
      sk: 'LINK',
      kind: 'passkey_link',
      team_id: input.team,
      user_id: input.user,
      purpose: input.purpose.kind,
      ...('challengeId' in input.purpose ? { challenge_id: input.purpose.challengeId } : {}),
      ...(input.purpose.kind === 'factor' ? { factor_change: input.purpose.change } : {}),
      valid_until_ms: validUntil.getTime(),
      created_at: this.#ctx.now().toISOString(),
      // TTL removes it a day later: until then a late visit reads "expired", not "unknown".
      expires_at: epochSeconds(validUntil) + 86_400,
    } satisfies LinkItem & Record<string, unknown>;
    try {
      await this.#ctx.table.put({
        TableName: this.#ctx.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (error) {
      // The token is 32 random bytes, so an item already under its hash is this put's own first
      // attempt: it landed, its answer was lost, and the client sent it again. The link stands.
      if (!isConditionFailure(error)) throw error;
    }
    return { token, validUntil };
  }

  /** What the link is, without using it: the page shows this before any ceremony. */
  async look(token: string): Promise<PasskeyLinkResult> {
    if (!isPasskeyLinkToken(token)) return { status: 'unknown' };
    const found = await this.#ctx.table.get({
      TableName: this.#ctx.tableName,
      Key: { pk: keys.passkeyLink(tokenHash(token)), sk: 'LINK' },
      ConsistentRead: true,
    });
    if (found.Item === undefined) return { status: 'unknown' };
    return this.#judge(parseItem(LinkItemSchema, found.Item, 'passkey link'));
  }

  /**
   * Notes the WebAuthn challenge of the ceremony the page is starting, while the link is unused
   * and unexpired. A second call replaces it: only the latest options can be answered.
   */
  async beginCeremony(token: string, ceremonyChallenge: string): Promise<PasskeyLinkResult> {
    return this.#writeWhileValid(
      token,
      'SET ceremony_challenge = :challenge',
      { ':challenge': ceremonyChallenge },
      { challenge: ceremonyChallenge },
    );
  }

  /**
   * Uses the link: marks it used, once, and answers what it was bound to and the ceremony's
   * challenge. Called before the browser's answer is checked, so a link that met a wrong
   * answer is spent too: nobody gets a second try with it.
   */
  async use(token: string): Promise<PasskeyLinkResult> {
    const useId = randomBytes(16).toString('base64url');
    return this.#writeWhileValid(
      token,
      'SET used_at = :now, use_id = :useId',
      { ':now': this.#ctx.now().toISOString(), ':useId': useId },
      { useId },
      'attribute_exists(ceremony_challenge)',
    );
  }

  /**
   * Uses a QR link: marks it used, once, while unexpired, and answers whose it is. A link of any
   * other purpose is not touched (its page needs a ceremony) and answers as unknown.
   */
  async useAppQr(token: string): Promise<PasskeyLinkResult> {
    const useId = randomBytes(16).toString('base64url');
    const used = await this.#writeWhileValid(
      token,
      'SET used_at = :now, use_id = :useId',
      { ':now': this.#ctx.now().toISOString(), ':useId': useId, ':appQr': 'app_qr' },
      { useId },
      'purpose = :appQr',
    );
    return used.status === 'valid' && used.link.purpose.kind !== 'app_qr' ? { status: 'unknown' } : used;
  }

  /**
   * `own` recognises this call's write on reading back after a refused condition: a write that
   * landed but whose answer was lost is sent again by the client, and the second attempt meets
   * the first one's result. The challenge and the use id are random, so no other call wrote them.
   */
  async #writeWhileValid(
    token: string,
    update: string,
    values: Record<string, unknown>,
    own: { readonly challenge?: string; readonly useId?: string },
    extraCondition?: string,
  ): Promise<PasskeyLinkResult> {
    if (!isPasskeyLinkToken(token)) return { status: 'unknown' };
    const key = { pk: keys.passkeyLink(tokenHash(token)), sk: 'LINK' };
    const conditions = [
      'attribute_exists(pk)',
      'attribute_not_exists(used_at)',
      'valid_until_ms > :nowMs',
      ...(extraCondition ? [extraCondition] : []),
    ];
    try {
      const written = await this.#ctx.table.update({
        TableName: this.#ctx.tableName,
        Key: key,
        UpdateExpression: update,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeValues: { ...values, ':nowMs': this.#ctx.now().getTime() },
        ReturnValues: 'ALL_NEW',
      });
      return this.#judge(parseItem(LinkItemSchema, written.Attributes, 'passkey link'), own.useId);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const found = await this.#ctx.table.get({
      TableName: this.#ctx.tableName,
      Key: key,
      ConsistentRead: true,
    });
    const item = found.Item && parseItem(LinkItemSchema, found.Item, 'passkey link');
    const isOwnWrite =
      item !== undefined &&
      ((own.useId !== undefined && item.use_id === own.useId) ||
        (own.challenge !== undefined && item.ceremony_challenge === own.challenge));
    if (item && isOwnWrite) return this.#judge(item, own.useId);
    // Refused: read why, for the page's words. Nothing was written.
    const refused = item ? this.#judge(item) : ({ status: 'unknown' } as const);
    // Valid on reading back: the ceremony was never started (`use` before `beginCeremony`), or the
    // link is for another page than the one using it.
    return refused.status === 'valid' ? { status: 'unknown' } : refused;
  }

  /** `ownUseId`: the use this call made, which does not count against it. */
  #judge(item: LinkItem, ownUseId?: string): PasskeyLinkResult {
    const usedByOther = item.used_at !== undefined && (ownUseId === undefined || item.use_id !== ownUseId);
    if (usedByOther) return { status: 'used' };
    if (item.valid_until_ms <= this.#ctx.now().getTime()) return { status: 'expired' };
    let purpose: PasskeyLinkPurpose;
    if (item.purpose === 'enroll') purpose = { kind: 'enroll' };
    else if (item.purpose === 'app_qr') purpose = { kind: 'app_qr' };
    else if (item.challenge_id === undefined) return { status: 'unknown' };
    else if (item.purpose === 'approve') purpose = { kind: 'approve', challengeId: item.challenge_id };
    else if (item.factor_change !== undefined)
      purpose = { kind: 'factor', challengeId: item.challenge_id, change: item.factor_change };
    // A link that names no challenge (or no change) proves nothing.
    else return { status: 'unknown' };
    return {
      status: 'valid',
      link: {
        team: item.team_id,
        user: item.user_id,
        purpose,
        validUntil: new Date(item.valid_until_ms),
        ceremonyChallenge: item.ceremony_challenge,
      },
    };
  }
}
