import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BOT_SCOPES } from '../../../lib/slack-kit/app-scopes.js';

/** The bot scopes listed under `oauth_config.scopes.bot` in the manifest. */
function manifestBotScopes(manifest: string): string[] {
  const lines = manifest.split('\n');
  const start = lines.findIndex((line) => /^ {4}bot:\s*$/.test(line));
  const scopes: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*#/.test(line)) continue;
    const item = /^ {6}- (\S+)\s*$/.exec(line);
    if (!item?.[1]) break;
    scopes.push(item[1]);
  }
  return scopes;
}

/** The `mcp_servers` block of a manifest, as its lines, or undefined when it has none. */
function mcpServersBlock(manifest: string): string[] | undefined {
  const lines = manifest.split('\n');
  const start = lines.findIndex((line) => /^mcp_servers:\s*$/.test(line));
  if (start === -1) return undefined;
  const end = lines.findIndex((line, i) => i > start && /^\S/.test(line) && !line.startsWith('#'));
  return lines.slice(start + 1, end === -1 ? undefined : end).filter((line) => !/^\s*(#|$)/.test(line));
}

describe('Add to Slack scopes', () => {
  it('asks for exactly the bot scopes of the app manifest (a scope added to one only would break installs)', async () => {
    const manifest = await readFile('infra/slack-app-manifest.yml', 'utf8');
    expect(manifestBotScopes(manifest)).toEqual([...BOT_SCOPES]);
  });

  it('the Socket Mode manifest asks for the same scopes, has Socket Mode on and names no request URL', async () => {
    const manifest = await readFile('infra/slack-app-manifest.socket-mode.yml', 'utf8');
    expect(manifestBotScopes(manifest)).toEqual([...BOT_SCOPES]);
    expect(manifest).toMatch(/^ {2}socket_mode_enabled: true$/m);
    expect(manifest).not.toMatch(/^\s*(request_)?url:|redirect_urls:/m);
  });
});

describe("Slackbot's MCP server (MCP-FACTS §4)", () => {
  it('is declared by the app manifest on its own path, signed by Slack, with the scope it needs', async () => {
    const manifest = await readFile('infra/slack-app-manifest.yml', 'utf8');
    expect(mcpServersBlock(manifest)).toEqual([
      '  cloud:',
      '    url: BASE_URL/mcp/slack',
      '    auth_type: slack_identity_auth',
    ]);
    expect(BOT_SCOPES).toContain('mcp:connect');
  });

  it('is not declared by the Socket Mode manifest, which has no https address to give it', async () => {
    const manifest = await readFile('infra/slack-app-manifest.socket-mode.yml', 'utf8');
    expect(mcpServersBlock(manifest)).toBeUndefined();
    expect(manifest).toContain('#       url: https://YOUR-TUNNEL.example/mcp/slack');
  });
});
