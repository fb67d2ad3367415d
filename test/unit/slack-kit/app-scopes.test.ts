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
