/**
 * What a real workspace enforces, one row per rule: the methods it governs, the behaviour, and
 * where it comes from (method page, changelog, or an issue thread that shows real behaviour).
 * The stand-in implements every row; `test/local/slack-rules.test.ts` tests each row by itself
 * (its `describe` is the rule's id). Where Slack's pages and observed behaviour disagree, the
 * stand-in emulates the stricter and `stricter` says so.
 */

export interface SlackRule {
  /** Stable id; the rule's tests `describe` it by this name. */
  readonly id: string;
  readonly methods: readonly string[];
  readonly behaviour: string;
  readonly source: string;
  /** Set where documents and observed behaviour differ and the stand-in takes the stricter. */
  readonly stricter?: string;
}

export const SLACK_RULES = [
  {
    id: 'membership',
    methods: [
      'chat.postMessage',
      'chat.postEphemeral',
      'chat.update',
      'chat.delete',
      'files.completeUploadExternal',
      'conversations.history',
      'conversations.replies',
      'conversations.info',
    ],
    behaviour:
      'an unknown channel answers channel_not_found; a private channel the bot is not in answers channel_not_found (conversations.info too); in a public channel the bot is not in, chat.postMessage answers not_in_channel unless the token has chat:write.public, and every other method answers not_in_channel (chat.postEphemeral even with chat:write.public); chat.postEphemeral to a user not in the channel answers user_not_in_channel; conversations.info reports is_member and needs channels:read (groups:read for private channels)',
    source:
      'https://api.slack.com/methods/chat.postMessage (errors: not_in_channel, channel_not_found); https://api.slack.com/scopes/chat:write.public; https://api.slack.com/methods/chat.postEphemeral ("The user should be in the channel", errors: user_not_in_channel); https://api.slack.com/methods/conversations.info; ifvictr/prox#30, node-slack-sdk#977 (postEphemeral refused where the bot is not a member)',
    stricter:
      'that chat.postEphemeral needs the bot in the channel is observed, not stated on the method page',
  },
  {
    id: 'archived',
    methods: [
      'chat.postMessage',
      'chat.postEphemeral',
      'chat.update',
      'chat.delete',
      'files.completeUploadExternal',
      'conversations.join',
    ],
    behaviour:
      'an archived channel answers is_archived (a private one the bot is not in stays channel_not_found); conversations.info reports is_archived; reading history still works',
    source:
      'https://api.slack.com/methods/chat.postMessage (errors: is_archived); https://api.slack.com/methods/conversations.join (errors: is_archived)',
  },
  {
    id: 'join',
    methods: ['conversations.join'],
    behaviour:
      'needs the channels:join scope (missing_scope with needed/provided without it); joins a public channel (already a member: ok with the warning already_in_channel), and Slack shows "joined the channel"; a private channel or DM answers method_not_supported_for_channel_type (channel_not_found if the bot cannot see it); archived: is_archived',
    source:
      'https://api.slack.com/methods/conversations.join (bot scope channels:join; errors: method_not_supported_for_channel_type, is_archived, channel_not_found; warning already_in_channel)',
  },
  {
    id: 'async-file-shares',
    methods: [
      'files.completeUploadExternal',
      'files.info',
      'chat.postMessage',
      'chat.postEphemeral',
      'chat.update',
      'response_url',
    ],
    behaviour:
      'completeUploadExternal answers with the files (id, title) but no shares and no message ts; the file is processed and shared some time later, and only then does the share message (with initial_comment) appear and files.info show its mimetype and shares; an image slack_file (by id or url) that is unknown, not yet processed, or not shared in the target channel is refused with invalid_blocks ("invalid slack file [json-pointer:…/slack_file]"); a file uploaded to no channel is private to the uploader and shows in no message, and no ephemeral message shows a file its channel cannot see',
    source:
      'https://docs.slack.dev/reference/methods/files.completeUploadExternal; node-slack-sdk#2260 and #1865 (share arrives later, poll files.info), java-slack-sdk#1349 (empty mimetype and shares, invalid_blocks through response_url), python-slack-sdk#1658 (invalid slack file; without a channel only the uploader has access), node-slack-sdk#1790 (no way to share a file within an ephemeral message: use a DM)',
    stricter:
      'the invalid_blocks refusals are observed in threads, not documented; every unprocessed or unshared file is refused, in ephemeral replies too',
  },
  {
    id: 'file-input',
    methods: ['views.open', 'views.push', 'views.update', 'view_submission'],
    behaviour:
      "a file_input element sits only in an input block of a modal, with max_files 1-10 (10 when unset) and filetypes a list of extensions; the person picks at most max_files files of those extensions, each at most 10 MB (SlackWorkspace.submitView refuses others, as Slack's client does); the view_submission carries them as state.values[block_id][action_id] = {type: file_input, files: [file objects]}, each with id, name, title, mimetype, filetype, size, user, url_private and url_private_download; the files are shared in no channel",
    source:
      'https://docs.slack.dev/reference/block-kit/block-elements/file-input-element (fields type, action_id, filetypes, max_files "Minimum of 1, maximum of 10. Defaults to 10"; "must be used inside the input block"; "your app must have the files:read scope. There is a 10MB file size limit"; filetypes "provided for convenience only"); https://docs.slack.dev/changelog/2024/01/17/block-kit (file_input released); bolt-js#1995 and @slack/bolt ViewStateValue.files (UploadedFile: id, name, size, url_private, url_private_download, …)',
  },
  {
    id: 'file-downloads',
    methods: ['url_private', 'url_private_download'],
    behaviour:
      "a file's bytes come from its url_private (or url_private_download) only with an Authorization: Bearer header holding a token of the file's workspace that has files:read; without one, with an unknown token, a token without files:read or one of another workspace the answer is HTTP 200 text/html, Slack's sign-in page, never the file; an unknown file answers 404; each GET is recorded as a call of url_private (failFileDownloads makes them answer 5xx or 404, to test a failed download)",
    source:
      'https://api.slack.com/types/file#auth ("url_private and url_private_download … require an authorization header": Authorization: Bearer A_VALID_TOKEN, a token with files:read); https://api.slack.com/scopes/files:read (download files); Slack platform blog, "Important changes to files in the Web API" (2015-11-18); bolt-js#2585 (maintainer: pass the authorization header to url_private_download), deno-slack-sdk#285, wee-slack#767, grundleborg/slack-advanced-exporter#13, PipedreamHQ/pipedream#22031 (without the header Slack answers its sign-in page as HTML, or a redirect to it)',
    stricter:
      'the documents say a header is required but not what Slack answers without one; threads report the HTML sign-in page (sometimes behind a 302): the stand-in answers it with 200, so a client that trusts the status alone takes a web page for the file',
  },
  {
    id: 'trigger-id',
    methods: ['views.open', 'views.push'],
    behaviour:
      'a trigger_id opens one view within 3 s of the interaction; reused: exchanged_trigger_id, late: expired_trigger_id, never issued: invalid_trigger_id',
    source:
      'https://api.slack.com/methods/views.open (errors: exchanged_trigger_id "already exchanged in a previous call", expired_trigger_id); https://api.slack.com/interactivity/handling#modal_responses (triggers expire in 3 seconds)',
  },
  {
    id: 'rate-limit-tiers',
    methods: ['*'],
    behaviour:
      'every method has a tier per workspace (1: 1+/min, 2: 20+/min, 3: 50+/min, 4: 100+/min; the stand-in allows exactly the floor; METHOD_TIERS in rate-limit.ts, e.g. views.open 4, chat.update 3, usergroups.users.list 2); chat.postMessage is special, about 1/s per channel; over it, HTTP 429 ratelimited with Retry-After; off unless methodTiers is set; injectRateLimit makes chosen methods answer 429',
    source:
      'https://api.slack.com/apis/rate-limits (tiers, "per API method per app per workspace", Retry-After); the Rate limits line of each method page (views.open: Tier 4; usergroups.users.list: Tier 2)',
  },
  {
    id: 'history-caps',
    methods: ['conversations.history', 'conversations.replies'],
    behaviour:
      'for an app distributed outside the Marketplace: 1 request a minute per method per workspace (429 with Retry-After) and at most 15 messages a call (limit defaults to 15; more is cut to 15); internal customer-built and Marketplace apps keep Tier 3 (limit up to 999, default 100)',
    source:
      'https://docs.slack.dev/changelog/2025/05/29/rate-limit-changes-for-non-marketplace-apps; https://docs.slack.dev/apis/web-api/rate-limits (App types and rate limits); https://docs.slack.dev/reference/methods/conversations.history',
    stricter:
      'the pages disagree on when installs made before 2025-05-29 are capped (2025-09-02, 2026-03-03, or not at all): every distributed install is capped; the stand-in is never a Marketplace app',
  },
  {
    id: 'messages-tab',
    methods: ['chat.postMessage'],
    behaviour:
      "posting to a user id (or the app's DM channel) opens the app's DM; without the App Home Messages tab (features.app_home.messages_tab_enabled in the manifest, which the seeded app follows) it answers messages_tab_disabled",
    source:
      'https://api.slack.com/methods/chat.postMessage (errors: messages_tab_disabled, "Messages tab for the app is disabled"); https://api.slack.com/surfaces/app-home; https://api.slack.com/reference/manifests (features.app_home)',
  },
  {
    id: 'ephemeral-response-url',
    methods: ['response_url'],
    behaviour:
      "replace_original and delete_original on a slash command's response_url do not act on the command's replies (the first ephemeral one included): a replace posts a new message, a delete does nothing; on a click's response_url they act on the message clicked, as documented",
    source: 'https://api.slack.com/interactivity/handling#message_responses; bolt-js#2287, bolt-python#1268',
    stricter: 'the documents describe replacing; threads report a new message instead',
  },
  {
    id: 'escaping',
    methods: ['slash command'],
    behaviour:
      'with should_escape: true, &, < and > arrive as entities, @user as <@U…|name>, #channel as <#C…|name>, @group as <!subteam^S…|@handle>, @here as <!here> and links as <url>; unknown names stay as typed (escaping.ts; the sandbox page sends typed text through it)',
    source:
      'https://api.slack.com/interactivity/slash-commands (Escape channels, users, and links sent to your app); https://api.slack.com/reference/surfaces/formatting#escaping',
  },
  {
    id: 'free-plan-usergroups',
    methods: ['usergroups.users.list', 'usergroups.list'],
    behaviour:
      'a workspace on the free plan (settings.plan, Standard by default) answers plan_upgrade_required',
    source:
      'https://api.slack.com/methods/usergroups.users.list (errors: plan_upgrade_required, "only available on Standard and above plans"); https://docs.slack.dev/reference/methods/usergroups.list (errors: plan_upgrade_required, the same words), as slack-ruby/slack-api-ref docs.slack.dev/methods/usergroups.list.json records it',
  },
  {
    id: 'conversations-list',
    methods: ['conversations.list'],
    behaviour:
      "the channels of the caller's workspace, whether the bot is in them or not, except private ones it is not a member of; types is a comma-separated list of public_channel (the default), private_channel, mpim and im, each needing its read scope (channels:read, groups:read, mpim:read, im:read; else missing_scope with needed and provided), any other invalid_types; exclude_archived drops archived ones (listed otherwise, is_archived true); a renamed channel is listed under its new name with the same id; limit 1–999 (100 by default, else invalid_limit), paged by an opaque cursor (response_metadata.next_cursor, empty on the last page; a cursor it did not issue: invalid_cursor); Tier 2",
    source:
      'https://docs.slack.dev/reference/methods/conversations.list (arguments: types, exclude_archived, limit "an integer under 1000" default 100, cursor; scopes channels:read, groups:read, mpim:read, im:read; errors invalid_cursor, invalid_limit, invalid_types, missing_scope; Tier 2); https://api.slack.com/scopes/groups:read ("private channels that [the app] has been added to"); https://docs.slack.dev/apis/web-api/pagination',
    stricter:
      'Slack\'s pagination guide allows limit up to 1000 where the method page says "under 1000": 1000 answers invalid_limit',
  },
  {
    id: 'users-list',
    methods: ['users.list'],
    behaviour:
      "every member of the caller's workspace, bots and deactivated people included (deleted: true), each with id, name (the handle), real_name, profile.display_name and profile.real_name; needs users:read (else missing_scope); without limit (0, the default) everyone at once, else at most limit (up to 1000) a page, paged by an opaque cursor (response_metadata.next_cursor, empty on the last page; invalid_cursor for one it did not issue); Tier 2",
    source:
      'https://docs.slack.dev/reference/methods/users.list (arguments cursor, limit "Providing no limit value will result in Slack attempting to deliver you the entire result set", scope users:read, errors invalid_cursor, limit_required; Tier 2; example response with deleted, name, real_name, profile.display_name); https://api.slack.com/types/user (deleted; display_name); https://docs.slack.dev/apis/web-api/pagination',
  },
  {
    id: 'usergroups-list',
    methods: ['usergroups.list'],
    behaviour:
      "the caller's workspace's user groups with id, handle, name and date_delete (non-zero once disabled); disabled groups only with include_disabled; each group's users with include_users and user_count with include_count; needs usergroups:read (else missing_scope); not paged; on the free plan plan_upgrade_required (rule free-plan-usergroups); Tier 2",
    source:
      'https://docs.slack.dev/reference/methods/usergroups.list (arguments include_disabled, include_users, include_count; scope usergroups:read; errors plan_upgrade_required, missing_scope; Tier 2; example response: date_delete set on a disabled group), as slack-ruby/slack-api-ref docs.slack.dev/methods/usergroups.list.json records it',
  },
  {
    id: 'token-rotation',
    methods: ['oauth.v2.access'],
    behaviour:
      'with rotation on (oauthApp.tokenExpiresInSeconds; Slack: 43200, ROTATING_TOKEN_SECONDS), bot tokens expire and then answer token_expired; each refresh token is single use: a refresh returns a new one and the old answers invalid_refresh_token',
    source:
      'https://api.slack.com/authentication/rotation ("expires every 12 hours"; "The refresh token is then revoked, and a new refresh token is used")',
  },
  {
    id: 'authorize-team',
    methods: ['oauth/v2/authorize'],
    behaviour:
      'the authorize page opens on the workspace its team parameter names (a workspace id the person belongs to); without one, or with an unknown one, on the first workspace; the person may still pick another before Allow',
    source:
      'https://api.slack.com/docs/oauth (authorize parameters: team, "Slack team ID of a workspace to attempt to restrict to"); @slack/oauth InstallURLOptions.teamId (sent as team on the authorize URL)',
  },
  {
    id: 'socket-mode-open',
    methods: ['apps.connections.open'],
    behaviour:
      'takes an app-level token (xapp-) in the Authorization header only and answers a WebSocket URL (/link/?ticket=…&app_id=…); a bot or user token answers not_allowed_token_type, an unknown token invalid_auth, no header (the token as a POST parameter) not_authed, an app-level token without connections:write missing_scope with needed and provided; each URL opens one connection',
    source:
      'https://api.slack.com/methods/apps.connections.open (usage info: app-level token, Authorization header only; typical response); https://api.slack.com/scopes/connections:write; https://api.slack.com/apis/socket-mode',
    stricter:
      'a URL used once is refused (401) for a second connection; the pages call it temporary without saying how often it may be used',
  },
  {
    id: 'socket-mode-envelopes',
    methods: ['socket mode'],
    behaviour:
      "a new connection gets hello (num_connections, debug_info with host and approximate_connection_time, connection_info.app_id); requests come as envelopes of type slash_commands, interactive (block_actions, view_submission) and events_api with envelope_id, payload and accepts_response_payload (true for slash commands, view_submission and block_suggestion, where the acknowledgement's payload is the answer); the app acknowledges with {envelope_id, payload?} on the connection the envelope came on within 3 s; an unacknowledged events_api envelope is redelivered at once, after 1 minute and after 5 minutes with retry_attempt 1-3 and retry_reason timeout (0 and empty at first), an unacknowledged command or interaction is not redelivered and the person sees an error; nothing is delivered to an app with no connection",
    source:
      'https://api.slack.com/apis/socket-mode; https://api.slack.com/apis/connections/socket-implement; https://api.slack.com/apis/events-api#retries; java-slack-sdk EventContext ("retry_reason": "timeout" in Socket Mode); python-slack-sdk SocketModeRequest (retry fields on events_api only)',
  },
  {
    id: 'socket-mode-disconnect',
    methods: ['socket mode'],
    behaviour:
      'Slack sends {type: disconnect, reason, debug_info} and sends no more envelopes on that connection: warning and refresh_requested connections close about 10 s later (the app reconnects through a fresh apps.connections.open meanwhile), link_disabled (Socket Mode turned off for the app) closes them at once and a new connection is told link_disabled too',
    source:
      'https://api.slack.com/apis/connections/socket-implement (disconnect messages); https://api.slack.com/apis/socket-mode',
  },
  {
    id: 'home-tab',
    methods: ['views.publish', 'app_home_opened'],
    behaviour:
      "views.publish(user_id, view, hash?) sets one person's Home tab for the app, one view per person and workspace that each publish replaces (same view id, new hash); without the Home tab (features.app_home.home_tab_enabled in the manifest, which the seeded app follows) a home view answers not_enabled; the view must be of type home and within Block Kit's view limits (at most 100 blocks), else invalid_arguments with Slack's messages; a hash that is not the current view's answers hash_conflict; Tier 4 (100 a minute per workspace, then 429 with Retry-After); opening the tab sends the app_home_opened event (user, channel, tab home or messages, and view once one was published); clicks on a Home view arrive as block_actions with container.type view and the view, with no channel and no response_url",
    source:
      'https://api.slack.com/methods/views.publish (arguments user_id, view, hash; errors: not_enabled "a home view is published but the Home tab isn\'t enabled for the app", hash_conflict, invalid_arguments; rate limit Tier 4); https://api.slack.com/reference/surfaces/views and https://api.slack.com/reference/block-kit/blocks ("up to 100 blocks" in a Home tab); https://api.slack.com/reference/manifests (features.app_home.home_tab_enabled); https://api.slack.com/events/app_home_opened; https://api.slack.com/reference/interaction-payloads/block-actions (container type view, no response_url for views)',
    stricter:
      'a user_id the workspace does not know answers invalid_arguments; the method page names no error for it',
  },
  {
    id: 'in-channel-command-echo',
    methods: ['slash command', 'response_url'],
    behaviour:
      'an immediate answer to a slash command (the body of the HTTP 200, or the Socket Mode acknowledgement\'s payload) with response_type in_channel shows the command as the person typed it (`/cloud …`) in the channel, as that person\'s message, before the answer; `{"response_type": "in_channel"}` alone shows just the command; an ephemeral or empty answer shows it to nobody, and a later in_channel post through the command\'s response_url shows the post without the command',
    source:
      'https://api.slack.com/interactivity/slash-commands (Message visibility; Sending delayed responses), worded in slackhq/slack-api-docs index_slash_commands.md: "When the `response_type` is `in_channel`, **both** the response message and the initial message typed by the user will be shared in the channel"; "The only user-facing difference between immediate responses and delayed responses is that "in channel" delayed responses will not include the initial command sent by the user. To echo the command back to the channel, you\'ll still need to provide a response to Slack\'s original visit to your invocation URL"; Best practices: respond with "a simplified JSON response containing only the `response_type` field set to `in_channel`" to have the slash command "displayed within the channel"',
  },
  {
    id: 'user-conversations',
    methods: ['users.conversations'],
    behaviour:
      "the conversations of the caller's workspace that a member is in: the token's own (the bot's) by default, or with user another member's, a private channel only where the caller is a member too; types is a comma-separated list of public_channel (the default), private_channel, mpim and im, each needing its read scope (channels:read, groups:read, mpim:read, im:read; else missing_scope), any other invalid_types; exclude_archived drops archived ones; limit 1–999 (100 by default, else invalid_limit), paged by an opaque cursor (response_metadata.next_cursor, empty on the last page; a cursor it did not issue: invalid_cursor)",
    source:
      'https://docs.slack.dev/reference/methods/users.conversations (arguments, "Non-public channels are restricted to those where the calling user shares membership", scopes, errors invalid_cursor, invalid_limit, invalid_types; Tier 3)',
    stricter:
      "Slack's page names no error for a user that does not exist: the stand-in answers user_not_found, as users.info does",
  },
  {
    id: 'openid-discovery',
    methods: ['.well-known/openid-configuration', 'openid/connect/keys'],
    behaviour:
      "Sign in with Slack's discovery document field for field, with the stand-in's base URL as issuer (Slack's is https://slack.com) and its own endpoints: authorization_endpoint /openid/connect/authorize, token_endpoint <apiUrl>openid.connect.token, userinfo_endpoint <apiUrl>openid.connect.userInfo, jwks_uri /openid/connect/keys, scopes openid profile email, response type code, response mode query, grant type authorization_code, RS256, client_secret_post and client_secret_basic; like Slack's it lists no code_challenge_methods_supported; the JWKS holds the RSA public key (kid, alg RS256, use sig) that signs the id_tokens, made once per stand-in",
    source:
      'https://api.slack.com/authentication/sign-in-with-slack; https://slack.com/.well-known/openid-configuration as captured in geldata/gel tests/test_http_ext_auth.py (SLACK_DISCOVERY_DOCUMENT); MCP-FACTS.md §5; OpenID Connect Discovery 1.0 §3; RFC 7517',
  },
  {
    id: 'openid-authorize',
    methods: ['openid/connect/authorize'],
    behaviour:
      "the page takes response_type=code, the app's client_id, scope with openid (email and profile optional; nothing else), redirect_uri among the app's Redirect URLs (none: the first), state, nonce and an optional team hint (the seeded workspace is the only one with people); a person of the workspace (not a bot) picks who they are and allows: Slack redirects to redirect_uri with code and state; Cancel (or a person not of the workspace) redirects with error=access_denied and state; a request it cannot serve (unknown client, unlisted redirect_uri, another response_type, a scope without openid or an unknown one, a repeated parameter, PKCE other than S256) gets a page and no redirect",
    source:
      'https://api.slack.com/authentication/sign-in-with-slack (authorize parameters, scopes openid email profile); RFC 6749 §3.1 (parameters once, unknown ones ignored), §4.1.2 and §4.1.2.1 (code, state, access_denied); RFC 7636 §4.3 (a challenge without a method is plain); OpenID Connect Core 1.0 §3.1.2.1 (nonce)',
    stricter:
      "Slack's answer to a request without openid, with another response_type or with a plain PKCE challenge is not documented: the stand-in refuses each with a page rather than a redirect, and takes S256 only",
  },
  {
    id: 'openid-token',
    methods: ['openid.connect.token'],
    behaviour:
      "the client authenticates with client_id and client_secret in the body or a Basic header (not both: invalid_arguments); unknown client: invalid_client_id; wrong secret: bad_client_secret; grant_type authorization_code (the default) or refresh_token, else invalid_grant_type; a code works once and for ten minutes on the stand-in's clock, for the client it was issued to, and is spent by any exchange, failed or not; else invalid_code; redirect_uri must repeat the authorize request's when it named one (and match when given), else bad_redirect_uri; with a code_challenge the code_verifier must hash to it (S256), and without one none may be sent, else invalid_code; the answer is {ok, access_token xoxp-…, token_type Bearer, id_token}, and with rotation (tokenExpiresInSeconds) refresh_token and expires_in, each refresh token good once (else invalid_refresh_token); the id_token is an RS256 JWT with iss, sub (the user id), aud (the client id), exp (300 s after iat), iat, auth_time, nonce, at_hash, https://slack.com/user_id and team_id, email and email_verified with email, name, given_name, family_name and locale with profile; every answer is HTTP 200",
    source:
      'https://docs.slack.dev/reference/methods/openid.connect.token (arguments, code_verifier "Required when the authorization request included a code_challenge", redirect_uri "required if your app passed it", example response and id_token payload); slack-ruby/slack-api-ref methods/openid/openid.connect.token.json (errors); RFC 6749 §2.3.1 (client_secret_basic), §4.1.2 (10 minutes, once); RFC 7636 §4.6; OpenID Connect Core 1.0 §2, §3.1.3.6 (at_hash), §12.2 (no nonce on refresh)',
    stricter:
      "Slack names no error for a PKCE mismatch: the stand-in answers invalid_code; a code spent by a failed exchange, a verifier sent without a challenge, both client authentication methods at once and an exchange without the secret (for an app with PKCE) are refused, which Slack's pages do not say",
  },
  {
    id: 'openid-user-info',
    methods: ['openid.connect.userInfo'],
    behaviour:
      'the user token in Authorization: Bearer (or as token) answers ok with sub, https://slack.com/user_id, team_id, team_name and team_domain, and the email and profile claims its scopes allow; no token: not_authed; an unknown one: invalid_auth; an expired rotating one: token_expired; a bot token: not_allowed_token_type',
    source:
      'https://docs.slack.dev/reference/methods/openid.connect.userInfo (example response); slack-ruby/slack-api-ref methods/openid/openid.connect.userInfo.json (errors not_authed, invalid_auth, token_expired, not_allowed_token_type); @slack/web-api OpenIDConnectUserInfoResponse',
  },
  {
    id: 'openid-user-token',
    methods: ['*'],
    behaviour:
      "a Sign in with Slack token is a person's user token with openid, email and profile only: auth.test answers the person (user_id, team_id, no bot_id); a method that takes user tokens answers missing_scope with the user scope it needs (chat.postMessage: chat:write, …) and provided; views.* answer not_allowed_token_type (user-tokens.ts, one row per method)",
    source:
      'https://api.slack.com/methods/auth.test ("No scopes required"); each method page\'s required user scope and https://api.slack.com/scopes (openid, email, profile unlock openid.connect.userInfo only)',
    stricter:
      'views.open, views.push and views.update need no scope and may take user tokens in Slack; the stand-in serves views to the bot only and refuses a user token with not_allowed_token_type',
  },
  {
    id: 'slackbot-mcp-client',
    methods: ['mcp_servers (slack_identity_auth)'],
    behaviour:
      "Slackbot calls an app's MCP server over Streamable HTTP, one connection per question: initialize first (the 2025-era handshake, declaring the io.slack/block-kit extension with mimeTypes application/vnd.slack.blocks+json), then tools/list and tools/call; with Slack identity auth every request is signed with the app's signing secret as events are (X-Slack-Request-Timestamp, and X-Slack-Signature v0= hex HMAC-SHA256 of v0:{timestamp}:{raw body}) and names the person as params._meta.slack {user_id, team_id}; a call unanswered after 60 s is given up; a result's _meta.slack.blocks are drawn beside its text only when every block is of a kind Slackbot draws (context, divider, header, markdown, rich_text, section, file, image, video, actions, carousel, input, data_table, data_visualization, table, card, container), at most 50 with at most 2 data_visualization, else none is; a tool without readOnlyHint counts as a write, and one not read-only without destructiveHint as destructive",
    source:
      'https://docs.slack.dev/ai/slackbot-mcp-client (Slack identity auth: "Slack identifies them via signed requests containing their user and team IDs"); https://docs.slack.dev/ai/slackbot-mcp-client/returning-rich-responses/ (the io.slack/block-kit extension in initialize, _meta.slack.supportsBlockKit, _meta.slack.blocks); https://api.slack.com/authentication/verifying-requests-from-slack; MCP-FACTS.md §4 (initialize first, 60 s, the blocks drawn and their caps, unannotated tools count as writes) and §1.5 (annotation defaults)',
    stricter:
      'whether Slackbot names the person on tools/list is not documented: the stand-in does, so the list is fitted to them as their tool calls are',
  },
] as const satisfies readonly SlackRule[];

export type SlackRuleId = (typeof SLACK_RULES)[number]['id'];
