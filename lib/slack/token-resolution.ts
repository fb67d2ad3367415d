import type { AnyOperation } from '../api/operation.js';
import { requesterToken, type TokenProblem } from '../changes/tokens.js';
import { actionButton, actionsBlock } from '../slack-kit/blocks.js';
import { ActionId } from '../slack-kit/interaction-ids.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import type { Store, TokenLookup } from '../store/index.js';

/**
 * Which token a person's call goes out with: the one linked to their profile, none for a public
 * operation, or a reply asking them to log in.
 */

export type TokenResolution =
  | { readonly ok: true; readonly token: string | undefined; readonly profile: string | undefined }
  | { readonly ok: false; readonly reply: Reply };

/** `text` with a Log in button under it (the button opens the login form). */
export function loginPrompt(text: string): Reply {
  const button = actionButton({ label: 'Log in', actionId: ActionId.login, style: 'primary' });
  const actions = button ? actionsBlock([button]) : undefined;
  return notice(text, actions ? [actions] : []);
}

/**
 * The caller's token for `op` (`requesterToken` in `lib/changes/tokens.ts` decides which): none is
 * needed for public operations. `started` is the same lookup for this team and user, when it was
 * started earlier.
 */
export async function resolveToken(
  store: Store,
  team: string,
  user: string,
  op: AnyOperation | undefined,
  started?: Promise<TokenLookup>,
): Promise<TokenResolution> {
  const token = await requesterToken(store, team, user, op, started);
  if (token.ok) return token;
  return { ok: false, reply: tokenProblemReply(token) };
}

/** What a person without a usable token is told, with the button that links one. */
export function tokenProblemReply({ problem, profile }: { problem: TokenProblem; profile: string }): Reply {
  if (problem === 'rejected') {
    return loginPrompt(
      `The API no longer accepts the token of your profile *${profile}* (revoked or expired). ` +
        'Run `/cloud login` with a new token.',
    );
  }
  return loginPrompt(
    profile === 'default'
      ? 'You have not linked a token yet. Run `/cloud login` and paste a personal access token.'
      : `You have no token for profile *${profile}*. Run \`/cloud login --profile ${profile}\`.`,
  );
}
