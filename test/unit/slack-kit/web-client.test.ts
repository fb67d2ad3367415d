import { describe, expect, it } from 'vitest';
import { BotTokenExpiredError, installedBotTokens } from '../../../lib/slack-kit/web-client.js';

/** Bot tokens of installations, for the worker and the reporter (no incoming event refreshes them). */

const NOW = Date.parse('2026-01-10T12:00:00Z');
const inSeconds = (ms: number) => Math.floor(ms / 1000);

describe('installedBotTokens with rotating tokens', () => {
  it('reads the installation again when its refresh lost to another container, and uses the new token', async () => {
    // InstallProvider hands back the old token when Slack refused its (already spent) refresh token.
    const answers = [
      { botToken: 'xoxe.xoxb-old', botTokenExpiresAt: inSeconds(NOW - 60_000) },
      { botToken: 'xoxe.xoxb-new', botTokenExpiresAt: inSeconds(NOW + 12 * 3_600_000) },
    ];
    const asked: string[] = [];
    const tokens = installedBotTokens(
      async (team) => {
        asked.push(team);
        const answer = answers.shift();
        if (!answer) throw new Error('asked too often');
        return answer;
      },
      () => NOW,
    );
    expect(await tokens.tokenFor('T0SECOND')).toBe('xoxe.xoxb-new');
    expect(asked).toEqual(['T0SECOND', 'T0SECOND']);
  });

  it('never hands out a token that has expired: it fails with BotTokenExpiredError instead', async () => {
    const tokens = installedBotTokens(
      async () => ({ botToken: 'xoxe.xoxb-old', botTokenExpiresAt: inSeconds(NOW - 1_000) }),
      () => NOW,
    );
    await expect(tokens.tokenFor('T0SECOND')).rejects.toBeInstanceOf(BotTokenExpiredError);
  });

  it('reads the installation once when its token is still good', async () => {
    let asked = 0;
    const tokens = installedBotTokens(
      async () => {
        asked += 1;
        return { botToken: 'xoxe.xoxb-good', botTokenExpiresAt: inSeconds(NOW + 3_600_000) };
      },
      () => NOW,
    );
    expect(await tokens.tokenFor('T0SECOND')).toBe('xoxe.xoxb-good');
    expect(await tokens.tokenFor('T0SECOND')).toBe('xoxe.xoxb-good');
    expect(asked).toBe(1);
  });
});
