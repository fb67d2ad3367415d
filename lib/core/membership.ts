import { type ApiSettings, createApiClient } from '../api/client-factory.js';
import { ApiError } from '../api/errors.js';
import { getOperation } from '../api/operations/index.js';
import { loadAhead, type Store } from '../store/index.js';
import { DEFAULT_PROFILE, PROFILE_NAME_PATTERN } from '../store/keys.js';
import type { TokenLinkStatus } from '../store/token-links.js';
import { truncate } from '../truncate.js';
import { type AgentDeps, revokeAgentsOfLeaver } from './agents.js';
import type { Caller } from './caller.js';

/**
 * A person's membership of the cloud API through the bot: the personal access tokens they link,
 * one per profile name, which of them their commands run with, and unlinking one. A token is
 * linked only once the API has accepted it; it is never part of an outcome.
 */

export interface MembershipDeps {
  readonly store: Store;
  readonly api: ApiSettings;
}

// ---------------------------------------------------------------------------------------------
// linking a token

export interface LinkRequest {
  readonly profile: string;
  readonly token: string;
}

/** Why a token was not linked: the request's own shape, or what the API said of the token. */
export type LinkRefusal =
  /** Not 1 to 32 letters, digits, `.`, `-` or `_` starting with a letter or digit. */
  | 'profile_name_invalid'
  /** Not 16 to 200 characters without spaces: not sent to the API at all. */
  | 'token_malformed'
  /** The API answered 401: mistyped, revoked or expired. */
  | 'token_rejected'
  /** The API did not answer in time, or could not be reached. */
  | 'api_unreachable'
  /** Any other failure of the check. */
  | 'check_failed';

export type LinkOutcome =
  | {
      readonly kind: 'linked';
      /** The profile linked, now the active one. */
      readonly profile: string;
      readonly apiUsername: string;
      /** As the API reports them: space-separated, `*` for all access, `unknown` when it did not say. */
      readonly scopes: string;
      readonly label: string;
      /** When the token stops working; `null` when it does not expire. */
      readonly expiry: Date | null;
    }
  | { readonly kind: 'refused'; readonly reason: LinkRefusal };

const TOKEN_SHAPE = /^\S{16,200}$/;

/**
 * Checks the token with the API's profile, learns its scopes, label and expiry, and links it to
 * the caller under `profile`, encrypted, as their active profile (one write with the link).
 */
export async function linkToken(
  deps: MembershipDeps,
  caller: Caller,
  { profile, token }: LinkRequest,
): Promise<LinkOutcome> {
  if (!PROFILE_NAME_PATTERN.test(profile)) return { kind: 'refused', reason: 'profile_name_invalid' };
  if (!TOKEN_SHAPE.test(token)) return { kind: 'refused', reason: 'token_malformed' };

  // The link is stored once the API has accepted the token: its module loads meanwhile.
  loadAhead(deps.store.tokenLinks);
  const identity = await identify(deps.api, token);
  if (identity.kind === 'refused') return identity;

  await deps.store.tokenLinks.saveLink(
    {
      team: caller.team,
      user: caller.user,
      profile,
      token,
      label: identity.label,
      apiUsername: identity.apiUsername,
      scopes: identity.scopes,
      expiry: identity.expiry,
    },
    { activate: true },
  );
  return { ...identity, profile };
}

type Identity = Omit<Extract<LinkOutcome, { kind: 'linked' }>, 'profile'>;

async function identify(
  api: ApiSettings,
  token: string,
): Promise<Identity | Extract<LinkOutcome, { kind: 'refused' }>> {
  let scopes: string | undefined;
  const client = createApiClient(api, token);
  const observed = createApiClient(api, token, {
    timeoutMs: Math.min(api.timeoutMs, 2000),
    observe: (event) => {
      if (event.oauthScopes !== undefined) scopes = event.oauthScopes;
    },
  });
  // The token's own record (label, expiry) is asked for at the same time as the profile: one API
  // round trip before the person is answered instead of two. Its answer counts only once the
  // profile call has accepted the token.
  const profileCall = observed.call(getOperation('profile.view'), {});
  const tokensCall = client.listAll(getOperation('profile.tokens-list'), {}, { timeoutMs: 1500 });
  tokensCall.catch(() => undefined);
  let apiUsername: string;
  try {
    apiUsername = (await profileCall).username;
  } catch (error) {
    return { kind: 'refused', reason: refusalOf(error) };
  }

  // Label and expiry are on the token's own record, which tokens with account:read_only can list;
  // the list shows the first 16 characters of each token.
  let label = 'personal access token';
  let expiry: Date | null = null;
  try {
    const tokens = await tokensCall;
    const own = tokens.data.find((t) => token.startsWith(t.token.slice(0, 16)));
    if (own) {
      label = own.label;
      scopes ??= own.scopes;
      expiry = own.expiry ? new Date(own.expiry.endsWith('Z') ? own.expiry : `${own.expiry}Z`) : null;
    }
  } catch {
    // Without account:read_only the token cannot list tokens; scopes still come from the header.
  }
  return { kind: 'linked', apiUsername, scopes: scopes ?? 'unknown', label: boundedLabel(label), expiry };
}

function refusalOf(error: unknown): LinkRefusal {
  if (error instanceof ApiError && error.code === 'unauthorized') return 'token_rejected';
  if (error instanceof ApiError && (error.code === 'timeout' || error.code === 'network')) {
    return 'api_unreachable';
  }
  return 'check_failed';
}

const LABEL_LIMIT = 100;

/**
 * The label as stored: the API's own, cut to 100 characters with an ellipsis, never between the
 * two halves of a surrogate pair (as every text the bot bounds is cut).
 */
function boundedLabel(label: string): string {
  return truncate(label, LABEL_LIMIT);
}

// ---------------------------------------------------------------------------------------------
// unlinking, choosing the active profile, listing

export type UnlinkOutcome =
  /** The profile's link and its sealed token are deleted (and the active pointer, if it named it). */
  | {
      readonly kind: 'unlinked';
      readonly profile: string;
      /** The caller's agents that went with it: their last profile takes them all (`revokeAgentsOfLeaver`). */
      readonly agentsRevoked: number;
    }
  | { readonly kind: 'no_such_profile'; readonly profile: string };

/**
 * Deletes the caller's link of `profile`, or of their active profile when none is named (`default`
 * when they have none). Whether there was one is read before the delete, strongly consistent, so
 * a delete whose answer was lost and was sent again still reports what it removed. When it was the
 * caller's last profile, their agents are revoked too (why: `revokeAgentsOfLeaver`); a logout
 * that finds no such profile leaves them, so a repeated logout says nothing new.
 */
export async function unlinkProfile(
  deps: AgentDeps,
  caller: Caller,
  request: { readonly profile?: string | undefined },
): Promise<UnlinkOutcome> {
  const links = deps.store.tokenLinks;
  const profile =
    request.profile ?? (await links.getActiveProfile(caller.team, caller.user)) ?? DEFAULT_PROFILE;
  const deleted = await links.deleteLink(caller.team, caller.user, profile);
  if (!deleted) return { kind: 'no_such_profile', profile };
  return { kind: 'unlinked', profile, agentsRevoked: await revokeAgentsOfLeaver(deps, caller) };
}

export type UseOutcome =
  /** The caller's commands now run with this profile's token. */
  | { readonly kind: 'switched'; readonly profile: string }
  /** No unexpired link of that name: nothing changed. */
  | { readonly kind: 'no_such_profile'; readonly profile: string };

/** Makes one of the caller's linked profiles the one their commands run with. */
export async function useProfile(
  deps: Pick<MembershipDeps, 'store'>,
  caller: Caller,
  request: { readonly profile: string },
): Promise<UseOutcome> {
  const { profile } = request;
  const switched = await deps.store.tokenLinks.setActiveProfile(caller.team, caller.user, profile);
  return { kind: switched ? 'switched' : 'no_such_profile', profile };
}

/** One of the caller's links, as they may see it: never the token. */
export interface LinkedProfile {
  readonly profile: string;
  /** Whether the caller's commands run with this one. */
  readonly active: boolean;
  readonly apiUsername: string;
  readonly scopes: string;
  readonly expiry: Date | null;
  /** `invalid` once the API rejected the token: the caller has to link it again. */
  readonly status: TokenLinkStatus;
}

/** The caller's unexpired links, in the store's order (by profile name). */
export async function linksOf(
  deps: Pick<MembershipDeps, 'store'>,
  caller: Caller,
): Promise<readonly LinkedProfile[]> {
  const { links, activeProfile } = await deps.store.tokenLinks.listLinks(caller.team, caller.user);
  return links.map((link) => ({
    profile: link.profile,
    active: link.profile === activeProfile,
    apiUsername: link.apiUsername,
    scopes: link.scopes,
    expiry: link.expiry,
    status: link.status,
  }));
}
