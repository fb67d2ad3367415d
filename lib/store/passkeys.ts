import { createHash } from 'node:crypto';
import * as z from 'zod';
import { isConditionFailure, parseItem, parseListedItem, updateIf } from './items.js';
import { keys } from './keys.js';
import type { StoreContext } from './store-context.js';
import { recordTeamMember } from './team-data.js';
import { EnvelopeSchema, type TokenCipher } from './token-cipher.js';
import '../zod-settings.js';

/**
 * A person's passkeys (WebAuthn credentials), under their user partition. The credential id,
 * public key and transports are sealed as API tokens are (`token-cipher.ts`, bound to team and
 * user): a copy of the table shows neither which authenticator a person holds nor its key. The
 * sort key is the SHA-256 of the credential id, so a credential is found by key without being
 * readable there. The signature counter is kept in the clear: it is not secret, and each use
 * moves it by a conditional write, so a cloned authenticator's replayed counter is refused.
 */

export interface StoredPasskey {
  /** The credential id, base64url, as WebAuthn names it. */
  readonly id: string;
  readonly publicKey: Uint8Array;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly createdAt: Date;
}

export interface NewPasskey {
  readonly id: string;
  readonly publicKey: Uint8Array;
  readonly counter: number;
  readonly transports: readonly string[];
}

/** What is sealed: the parts that say which authenticator and which key. */
const SealedCredentialSchema = z.object({
  id: z.string().min(1),
  publicKey: z.base64url(),
  transports: z.array(z.string()),
});

const PasskeyItemSchema = z.object({
  kind: z.literal('passkey'),
  team_id: z.string(),
  user_id: z.string(),
  credential: EnvelopeSchema,
  counter: z.number().int().nonnegative(),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().optional(),
});

export class PasskeyAlreadyRegisteredError extends Error {
  override readonly name = 'PasskeyAlreadyRegisteredError';
}

function credentialHash(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('base64url');
}

export class PasskeyRepository {
  readonly #ctx: StoreContext;
  readonly #cipher: TokenCipher;

  constructor(ctx: StoreContext, cipher: TokenCipher) {
    this.#ctx = ctx;
    this.#cipher = cipher;
  }

  /** Registers a passkey; the same credential twice throws `PasskeyAlreadyRegisteredError`. */
  async save(team: string, user: string, passkey: NewPasskey): Promise<void> {
    const sealed = await this.#cipher.encrypt(
      JSON.stringify({
        id: passkey.id,
        publicKey: Buffer.from(passkey.publicKey).toString('base64url'),
        transports: [...passkey.transports],
      } satisfies z.infer<typeof SealedCredentialSchema>),
      { team, user },
    );
    // Before the passkey: a workspace's removal finds the user's partition through this item.
    await recordTeamMember(this.#ctx, team, user);
    try {
      await this.#ctx.table.put({
        TableName: this.#ctx.tableName,
        Item: {
          pk: keys.user(team, user),
          sk: keys.passkey(credentialHash(passkey.id)),
          kind: 'passkey',
          team_id: team,
          user_id: user,
          credential: sealed,
          counter: passkey.counter,
          created_at: this.#ctx.now().toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (error) {
      if (isConditionFailure(error))
        throw new PasskeyAlreadyRegisteredError('This passkey is registered already.');
      throw error;
    }
  }

  /** The person's passkey with this credential id, or undefined when it is not theirs. */
  async find(team: string, user: string, credentialId: string): Promise<StoredPasskey | undefined> {
    const found = await this.#ctx.table.get({
      TableName: this.#ctx.tableName,
      Key: { pk: keys.user(team, user), sk: keys.passkey(credentialHash(credentialId)) },
      ConsistentRead: true,
    });
    if (found.Item === undefined) return undefined;
    const passkey = await this.#open(team, user, parseItem(PasskeyItemSchema, found.Item, 'passkey'));
    return passkey.id === credentialId ? passkey : undefined;
  }

  async list(team: string, user: string): Promise<StoredPasskey[]> {
    const result = await this.#ctx.table.query({
      TableName: this.#ctx.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.user(team, user), ':prefix': keys.passkeyPrefix },
      ConsistentRead: true,
    });
    const passkeys: StoredPasskey[] = [];
    for (const raw of result.Items ?? []) {
      const item = parseListedItem(PasskeyItemSchema, raw, 'passkey');
      if (item) passkeys.push(await this.#open(team, user, item));
    }
    return passkeys;
  }

  /**
   * Removes every passkey of the person (`/cloud mfa reset`); returns how many there were. Each
   * is deleted on its own: one left behind by a failure is still theirs, and a reset again
   * removes it.
   */
  async removeAll(team: string, user: string): Promise<number> {
    const result = await this.#ctx.table.query({
      TableName: this.#ctx.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.user(team, user), ':prefix': keys.passkeyPrefix },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    });
    // Counted from the consistent read, not from each delete's answer: a delete whose answer was
    // lost is sent again, and the resend's answer says nothing was there.
    const found = result.Items ?? [];
    for (const item of found) {
      await this.#ctx.table.delete({ TableName: this.#ctx.tableName, Key: { pk: item.pk, sk: item.sk } });
    }
    return found.length;
  }

  /**
   * Moves the counter from what the check read to what the authenticator reported. False when
   * another use moved it in between: that assertion is refused, as a replay would be.
   */
  async recordUse(
    team: string,
    user: string,
    credentialId: string,
    from: number,
    to: number,
  ): Promise<boolean> {
    return updateIf(
      this.#ctx,
      { pk: keys.user(team, user), sk: keys.passkey(credentialHash(credentialId)) },
      {
        UpdateExpression: 'SET #counter = :to, last_used_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND #counter = :from',
        ExpressionAttributeNames: { '#counter': 'counter' },
        ExpressionAttributeValues: { ':from': from, ':to': to, ':now': this.#ctx.now().toISOString() },
      },
    );
  }

  async #open(team: string, user: string, item: z.infer<typeof PasskeyItemSchema>): Promise<StoredPasskey> {
    const plain = await this.#cipher.decrypt(item.credential, { team, user });
    const sealed = SealedCredentialSchema.parse(JSON.parse(plain));
    return {
      id: sealed.id,
      publicKey: new Uint8Array(Buffer.from(sealed.publicKey, 'base64url')),
      counter: item.counter,
      transports: sealed.transports,
      createdAt: new Date(item.created_at),
    };
  }
}
