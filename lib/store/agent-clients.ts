import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { getParsed, isConditionFailure, putNew } from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import '../zod-settings.js';

/**
 * Agents registered through Dynamic Client Registration (RFC 7591, `POST /oauth/register`): public
 * clients only (no secret), each with the redirect URIs it registered, already checked by
 * `lib/agents/oauth/`. Anyone may register, so a registration nobody signs in with goes by itself a
 * day later (TTL); the first consent given to it keeps it for good, since grants and their refresh
 * tokens name it.
 */

/** How long a registration no person has consented to stays. */
export const UNUSED_CLIENT_SECONDS = 86_400;

export interface RegisteredClient {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUris: readonly string[];
  readonly issuedAt: Date;
}

export interface NewRegisteredClient {
  readonly clientName: string;
  readonly redirectUris: readonly string[];
}

/** Registered ids start so, which no metadata document URL does: the two kinds never meet. */
export const REGISTERED_CLIENT_PREFIX = 'cbc_';
const CLIENT_ID_PATTERN = /^cbc_[A-Za-z0-9_-]{32}$/;

const ClientItemSchema = z.object({
  kind: z.literal('agent_client'),
  client_id: z.string(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  issued_at: z.iso.datetime(),
});

export class AgentClientRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async register(input: NewRegisteredClient): Promise<RegisteredClient> {
    const clientId = `${REGISTERED_CLIENT_PREFIX}${randomBytes(24).toString('base64url')}`;
    const issuedAt = this.#ctx.now();
    await putNew(this.#ctx, {
      pk: keys.agentClient(clientId),
      sk: 'CLIENT',
      kind: 'agent_client',
      client_id: clientId,
      client_name: input.clientName,
      redirect_uris: [...input.redirectUris],
      issued_at: issuedAt.toISOString(),
      expires_at: epochSeconds(issuedAt) + UNUSED_CLIENT_SECONDS,
    });
    return { clientId, clientName: input.clientName, redirectUris: input.redirectUris, issuedAt };
  }

  /** A registered client; undefined for an id never issued, or one the TTL has taken. */
  async get(clientId: string): Promise<RegisteredClient | undefined> {
    if (!CLIENT_ID_PATTERN.test(clientId)) return undefined;
    const item = await getParsed(
      this.#ctx,
      { pk: keys.agentClient(clientId), sk: 'CLIENT' },
      ClientItemSchema,
      'agent client',
    );
    return (
      item && {
        clientId: item.client_id,
        clientName: item.client_name,
        redirectUris: item.redirect_uris,
        issuedAt: new Date(item.issued_at),
      }
    );
  }

  /** A person consented to it: it stays (the TTL no longer applies). */
  async keep(clientId: string): Promise<void> {
    if (!CLIENT_ID_PATTERN.test(clientId)) return;
    await this.#ctx.table
      .update({
        TableName: this.#ctx.tableName,
        Key: { pk: keys.agentClient(clientId), sk: 'CLIENT' },
        UpdateExpression: 'REMOVE expires_at',
        ConditionExpression: 'attribute_exists(pk)',
      })
      .catch((error: unknown) => {
        // Gone meanwhile (its TTL ran out between the consent's read and this write).
        if (!isConditionFailure(error)) throw error;
      });
  }
}

export function isRegisteredClientId(clientId: string): boolean {
  return CLIENT_ID_PATTERN.test(clientId);
}
