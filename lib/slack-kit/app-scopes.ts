/**
 * The bot scopes "Add to Slack" asks for. They must be the ones in `infra/slack-app-manifest.yml`
 * (where each is explained); `test/unit/slack/app-scopes.test.ts` reads the manifest and fails
 * when the two differ, so the manifest stays the one place to change them.
 */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'channels:read',
  'groups:read',
  'channels:join',
  'files:write',
  // A settings document attached to the import form (`file_input`), read from its url_private.
  'files:read',
  'im:write',
  'users:read',
  'usergroups:read',
  'channels:history',
  'groups:history',
  // Slackbot's connection to the bot's MCP server (the manifest's `mcp_servers`).
  'mcp:connect',
] as const;
