import type { SignedInPerson } from './openid.js';

/**
 * What a Sign in with Slack user token (`xoxp-…`, scopes `openid`, `email`, `profile` only) gets
 * from the Web API methods the stand-in serves (rule `openid-user-token`). It is a person's token,
 * not the bot's: `auth.test` answers who the person is (no scope needed); a method that takes user
 * tokens needs a user scope the token was never granted, so it answers `missing_scope` with
 * `needed` and `provided`; a method for bot tokens only answers `not_allowed_token_type`.
 * Sources: each method page's "Required scopes" for user tokens and https://api.slack.com/scopes
 * (the methods each scope unlocks, by token type); the openid scopes unlock only
 * `openid.connect.userInfo`.
 */

export type UserTokenRule =
  /** `auth.test`: "No scopes required"; it answers for whichever token calls it. */
  | { readonly kind: 'identity' }
  /** The user scope the method needs, as `missing_scope` names it in `needed`. */
  | { readonly kind: 'user_scope'; readonly needed: string }
  /** Methods the stand-in serves to the bot only (see `stricter` in the rule). */
  | { readonly kind: 'bot_only' };

/** One row per Web API method of `web-api.ts` (a test keeps the two lists equal). */
export const USER_TOKEN_RULES: Readonly<Record<string, UserTokenRule>> = {
  'auth.test': { kind: 'identity' },
  'chat.postMessage': { kind: 'user_scope', needed: 'chat:write' },
  'chat.postEphemeral': { kind: 'user_scope', needed: 'chat:write' },
  'chat.update': { kind: 'user_scope', needed: 'chat:write' },
  'chat.delete': { kind: 'user_scope', needed: 'chat:write' },
  'views.open': { kind: 'bot_only' },
  'views.push': { kind: 'bot_only' },
  'views.update': { kind: 'bot_only' },
  'views.publish': { kind: 'bot_only' },
  'users.info': { kind: 'user_scope', needed: 'users:read' },
  'usergroups.users.list': { kind: 'user_scope', needed: 'usergroups:read' },
  'usergroups.list': { kind: 'user_scope', needed: 'usergroups:read' },
  'users.list': { kind: 'user_scope', needed: 'users:read' },
  'conversations.list': { kind: 'user_scope', needed: 'channels:read' },
  'conversations.info': { kind: 'user_scope', needed: 'channels:read' },
  'users.conversations': { kind: 'user_scope', needed: 'channels:read' },
  'conversations.join': { kind: 'user_scope', needed: 'channels:write' },
  'conversations.history': { kind: 'user_scope', needed: 'channels:history' },
  // Its method page lists the same user scopes as conversations.history's.
  'conversations.replies': { kind: 'user_scope', needed: 'channels:history' },
  'files.getUploadURLExternal': { kind: 'user_scope', needed: 'files:write' },
  'files.completeUploadExternal': { kind: 'user_scope', needed: 'files:write' },
  'files.info': { kind: 'user_scope', needed: 'files:read' },
  'conversations.open': { kind: 'user_scope', needed: 'im:write' },
};

/** The answer (HTTP 200, as Slack's Web API answers) to `method` called with `person`'s user token. */
export function answerUserToken(
  method: string,
  person: SignedInPerson,
  baseUrl: string,
): Readonly<Record<string, unknown>> {
  const rule = Object.hasOwn(USER_TOKEN_RULES, method) ? USER_TOKEN_RULES[method] : undefined;
  if (rule?.kind === 'identity') {
    const { team, user } = person;
    // auth.test with a user token: the person and workspace, and no bot_id (auth.test method page).
    return {
      ok: true,
      url: `${baseUrl}/`,
      team: team.name,
      user: user.name,
      team_id: team.id,
      user_id: user.id,
      is_enterprise_install: false,
    };
  }
  if (rule?.kind === 'user_scope')
    return { ok: false, error: 'missing_scope', needed: rule.needed, provided: person.scopes.join(',') };
  return { ok: false, error: 'not_allowed_token_type' };
}
