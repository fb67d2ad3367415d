import type { AnyOperation } from '../api/operation.js';
import type { Store } from '../store/index.js';

/**
 * The requester's token, for the reads the workflow makes on their behalf (the preview, the
 * check that the target did not change, the read-back of a change in doubt). None is needed for
 * a public operation. Telling the person how to link one is the surface's part.
 */
export type RequesterToken =
  | { readonly ok: true; readonly token: string | undefined }
  | { readonly ok: false; readonly problem: 'not_linked' | 'rejected' };

export async function requesterToken(
  store: Store,
  team: string,
  user: string,
  op: AnyOperation | undefined,
): Promise<RequesterToken> {
  const lookup = await store.tokenLinks.getToken(team, user);
  if (lookup.status === 'found') return { ok: true, token: lookup.token };
  if (op?.access === 'public') return { ok: true, token: undefined };
  return { ok: false, problem: lookup.status === 'invalid' ? 'rejected' : 'not_linked' };
}
