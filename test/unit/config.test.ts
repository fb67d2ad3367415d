import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, storageSettings } from '../../lib/config.js';

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

describe('DynamoDB client settings', () => {
  it('gives the Slack function tight limits and a per-request storage budget by default', () => {
    const config = loadConfig(base);
    expect(storageSettings(config, 'slack')).toEqual({
      connectTimeoutMs: 150,
      requestTimeoutMs: 250,
      maxAttempts: 2,
    });
    expect(config.SLACK_STORAGE_BUDGET_MS).toBe(700);
  });

  it('gives the worker and reporter longer limits by default', () => {
    expect(storageSettings(loadConfig(base), 'background')).toEqual({
      connectTimeoutMs: 1000,
      requestTimeoutMs: 3000,
      maxAttempts: 3,
    });
  });

  it('takes what the function’s environment sets instead', () => {
    const config = loadConfig({
      ...base,
      DYNAMODB_CONNECT_TIMEOUT_MS: '80',
      DYNAMODB_REQUEST_TIMEOUT_MS: '400',
      DYNAMODB_MAX_ATTEMPTS: '1',
      SLACK_STORAGE_BUDGET_MS: '900',
    });
    expect(storageSettings(config, 'slack')).toEqual({
      connectTimeoutMs: 80,
      requestTimeoutMs: 400,
      maxAttempts: 1,
    });
    expect(storageSettings(config, 'background')).toEqual({
      connectTimeoutMs: 80,
      requestTimeoutMs: 400,
      maxAttempts: 1,
    });
    expect(config.SLACK_STORAGE_BUDGET_MS).toBe(900);
  });

  it.each([
    ['DYNAMODB_REQUEST_TIMEOUT_MS', '0'],
    ['DYNAMODB_CONNECT_TIMEOUT_MS', 'soon'],
    ['DYNAMODB_MAX_ATTEMPTS', '0'],
    // A budget that could eat most of Slack's 3 s on storage alone is refused at start.
    ['SLACK_STORAGE_BUDGET_MS', '2500'],
  ])('refuses %s=%s at start, naming the key', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(new RegExp(name));
  });
});

describe('Slack mode', () => {
  const { SLACK_BOT_TOKEN: _, ...withoutToken } = base;
  const oauth = {
    SLACK_CLIENT_ID: '123.456',
    SLACK_CLIENT_SECRET: 'client-s3cret',
    SLACK_STATE_SECRET: 'state-s3cret',
  };

  it('serves one workspace with SLACK_BOT_TOKEN, as before', () => {
    expect(loadConfig(base).slackAuth).toEqual({ mode: 'single', botToken: 'xoxb-1' });
  });

  it('serves many workspaces with the OAuth credentials instead', () => {
    expect(loadConfig({ ...withoutToken, ...oauth }).slackAuth).toMatchObject({
      mode: 'multi',
      clientId: '123.456',
    });
  });

  it('names the OAuth keys still missing for many workspaces', () => {
    const { SLACK_STATE_SECRET: _state, ...partial } = oauth;
    expect(() => loadConfig({ ...withoutToken, ...partial })).toThrow(/also need SLACK_STATE_SECRET$/);
  });

  it("keeps one workspace with the app's client id and secret beside the bot token, for Sign in with Slack", () => {
    const { SLACK_STATE_SECRET: _state, ...signIn } = oauth;
    const config = loadConfig({ ...base, ...signIn });
    expect(config.slackAuth).toEqual({ mode: 'single', botToken: 'xoxb-1' });
    expect(config).toMatchObject({ SLACK_CLIENT_ID: '123.456', SLACK_CLIENT_SECRET: 'client-s3cret' });
  });

  it('names the half of the Sign in with Slack credentials that is missing, without echoing secrets', () => {
    expect(() => loadConfig({ ...base, SLACK_CLIENT_ID: '123.456' })).toThrow(
      /SLACK_CLIENT_SECRET is missing: Sign in with Slack needs/,
    );
    expect(() => loadConfig({ ...base, SLACK_CLIENT_SECRET: 'client-s3cret' })).toThrow(
      /SLACK_CLIENT_ID is missing/,
    );
    expect(() => loadConfig({ ...base, SLACK_CLIENT_SECRET: 'client-s3cret' })).not.toThrow(/s3cret/);
  });

  it('refuses both modes at once, without echoing secrets', () => {
    expect(() => loadConfig({ ...base, ...oauth })).toThrow(/both set/);
    expect(() => loadConfig({ ...base, ...oauth })).not.toThrow(/s3cret/);
  });

  it('names both ways when neither is set', () => {
    expect(() => loadConfig(withoutToken)).toThrow(/SLACK_BOT_TOKEN .* or SLACK_CLIENT_ID/);
  });
});
