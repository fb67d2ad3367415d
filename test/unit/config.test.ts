import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.js';

const base = {
  SLACK_SIGNING_SECRET: 's3cret-value',
  SLACK_BOT_TOKEN: 'xoxb-1',
  TABLE_NAME: 'table',
  TOKEN_ENCRYPTION_KEY: 'a'.repeat(44),
};

describe('loadConfig', () => {
  it('fills defaults', () => {
    const config = loadConfig(base);
    expect(config.CLOUD_API_URL).toBe('https://api.cloud.example.com/v4');
    expect(config.INLINE_BUDGET_MS).toBe(1500);
    expect(config.APPROVAL_ADMINS).toEqual([]);
  });

  it('names the missing key', () => {
    const { TABLE_NAME: _, ...rest } = base;
    expect(() => loadConfig(rest)).toThrow(/TABLE_NAME/);
  });

  it('needs a key for token envelopes, and says which', () => {
    const { TOKEN_ENCRYPTION_KEY: _, ...rest } = base;
    expect(() => loadConfig(rest)).toThrow(ConfigError);
    expect(() => loadConfig(rest)).toThrow(/KMS_KEY_ID or TOKEN_ENCRYPTION_KEY/);
  });

  it('never puts a secret value into its error', () => {
    try {
      loadConfig({ ...base, CLOUD_API_URL: 'not a url' });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).toContain('CLOUD_API_URL');
      expect(String(error)).not.toContain('s3cret-value');
    }
  });

  it('splits the approval admins', () => {
    expect(loadConfig({ ...base, APPROVAL_ADMINS: 'U1, U2,,' }).APPROVAL_ADMINS).toEqual(['U1', 'U2']);
  });
});
