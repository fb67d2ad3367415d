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
    methods: ['chat.postMessage', 'chat.update', 'chat.delete', 'files.completeUploadExternal'],
    behaviour:
      'posting to a public channel the bot is not a member of answers not_in_channel (unless the token has chat:write.public); a private channel it is not in answers channel_not_found; an unknown channel answers channel_not_found',
    source: 'https://api.slack.com/methods/chat.postMessage (errors: not_in_channel, channel_not_found)',
  },
  {
    id: 'archived',
    methods: ['chat.postMessage', 'chat.update', 'files.completeUploadExternal', 'conversations.join'],
    behaviour: 'an archived channel answers is_archived',
    source: 'https://api.slack.com/methods/chat.postMessage (errors: is_archived)',
  },
  {
    id: 'join',
    methods: ['conversations.join'],
    behaviour:
      'joins a public channel with the channels:join scope (missing_scope without it); a private channel answers method_not_supported_for_channel_type',
    source: 'https://api.slack.com/methods/conversations.join',
  },
  {
    id: 'async-file-shares',
    methods: ['files.completeUploadExternal', 'chat.postMessage', 'chat.update'],
    behaviour:
      'completeUploadExternal answers without shares or a message ts; the file is shared after a processing delay; until then (and for a file not shared to the channel or unknown) an image block with slack_file is refused with invalid_blocks',
    source:
      'https://api.slack.com/methods/files.completeUploadExternal; bolt-js#2115, node-slack-sdk#2260, java-slack-sdk#1349, python-slack-sdk#1658',
    stricter: 'the invalid_blocks refusal of an unprocessed file is observed, not documented',
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
      'for a distributed (non-Marketplace) install: 1 request a minute and limit at most 15 (default 15); internal and Marketplace installs keep Tier 3 (limit up to 999, default 100)',
    source:
      'https://api.slack.com/changelog/2025-05-terms-rate-limit-update-and-faq; https://api.slack.com/methods/conversations.history',
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
    methods: ['usergroups.users.list'],
    behaviour:
      'a workspace on the free plan (settings.plan, Standard by default) answers plan_upgrade_required',
    source:
      'https://api.slack.com/methods/usergroups.users.list (errors: plan_upgrade_required, "only available on Standard and above plans")',
  },
  {
    id: 'token-rotation',
    methods: ['oauth.v2.access'],
    behaviour:
      'with rotation on (oauthApp.tokenExpiresInSeconds; Slack: 43200, ROTATING_TOKEN_SECONDS), bot tokens expire and then answer token_expired; each refresh token is single use: a refresh returns a new one and the old answers invalid_refresh_token',
    source:
      'https://api.slack.com/authentication/rotation ("expires every 12 hours"; "The refresh token is then revoked, and a new refresh token is used")',
  },
] as const satisfies readonly SlackRule[];

export type SlackRuleId = (typeof SLACK_RULES)[number]['id'];
