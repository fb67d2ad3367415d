import type { Store } from '../../store/index.js';
import { type ClientMetadataPolicy, fetchClientMetadata, looksLikeMetadataUrl } from './client-metadata.js';
import { cleanClientName } from './client-names.js';

/**
 * Who an authorization request's `client_id` names: an agent identified by its metadata document's
 * URL (fetched now, `client-metadata.ts`), or one registered here through DCR (`registration.ts`).
 * Anything else is no client of this server.
 */

export interface KnownClient {
  readonly clientId: string;
  readonly kind: 'metadata_document' | 'registered';
  /** As the client gives it, cleaned (`client-names.ts`); absent when it gave none. */
  readonly name?: string | undefined;
  readonly redirectUris: readonly string[];
}

export type ClientLookup =
  | { readonly ok: true; readonly client: KnownClient }
  | { readonly ok: false; readonly reason: string };

export async function findClient(
  clientId: string,
  deps: { readonly store: Pick<Store, 'agentClients'>; readonly clientMetadata: ClientMetadataPolicy },
): Promise<ClientLookup> {
  if (looksLikeMetadataUrl(clientId)) {
    const fetched = await fetchClientMetadata(clientId, deps.clientMetadata);
    if (!fetched.ok) return fetched;
    const { metadata } = fetched;
    return {
      ok: true,
      client: {
        clientId,
        kind: 'metadata_document',
        name: cleanClientName(metadata.clientName),
        redirectUris: metadata.redirectUris,
      },
    };
  }
  const registered = await deps.store.agentClients.get(clientId);
  if (!registered)
    return { ok: false, reason: 'The agent’s client id is not known here: it may have to register again.' };
  return {
    ok: true,
    client: {
      clientId,
      kind: 'registered',
      name: cleanClientName(registered.clientName),
      redirectUris: registered.redirectUris,
    },
  };
}
