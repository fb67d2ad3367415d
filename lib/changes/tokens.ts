import type { AnyOperation } from '../api/operation.js';
import type { Store, TokenLookup } from '../store/index.js';

/**
 * The requester's token, for the reads the workflow makes on their behalf (the preview, the
 * check that the target did not change, the read-back of a change in doubt). None is needed for
 * a public operation. Telling the person how to link one is the surface's part.
 */
export type RequesterToken =
  /** `profile` names the link the token came from; none when a public operation needs no token. */
  | { readonly ok: true; readonly token: string | undefined; readonly profile: string | undefined }
  /** `profile` is the person's active profile, whose link is missing or was rejected by the API. */
  | { readonly ok: false; readonly problem: TokenProblem; readonly profile: string };

export type TokenProblem = 'not_linked' | 'rejected';

/** The person's token for `op`; `started` is the same lookup, when one was started earlier. */
export async function requesterToken(
  store: Store,
  team: string,
  user: string,
  op: AnyOperation | undefined,
  started?: Promise<TokenLookup>,
): Promise<RequesterToken> {
  const lookup = await (started ?? store.tokenLinks.getToken(team, user));
  if (lookup.status === 'found') return { ok: true, token: lookup.token, profile: lookup.link.profile };
  if (op?.access === 'public') return { ok: true, token: undefined, profile: undefined };
  if (lookup.status === 'invalid') return { ok: false, problem: 'rejected', profile: lookup.link.profile };
  return { ok: false, problem: 'not_linked', profile: lookup.profile };
}
