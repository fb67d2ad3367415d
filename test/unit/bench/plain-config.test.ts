import { describe, expect, it } from 'vitest';
import { loadPlainConfig } from '../../../bench/baseline/plain-config.js';
import { loadConfig, storageSettings } from '../../../lib/config.js';

/**
 * The cold-start benchmark's "no zod" floor checks the configuration by hand to measure what zod
 * costs; the saving is only real if the hand check does the schema's work: it must read what
 * `loadConfig` reads and refuse what `loadConfig` refuses.
 */

const VALID = {
  SLACK_SIGNING_SECRET: 'signing-secret',
  SLACK_BOT_TOKEN: 'xoxb-bench',
  SLACK_API_URL: 'http://127.0.0.1:3999/api/',
  TABLE_NAME: 'chatops',
  TOKEN_ENCRYPTION_KEY: 'a2V5',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
  CLOUD_API_URL: 'http://127.0.0.1:4010/v4',
};

describe('loadPlainConfig', () => {
  it.each([
    ['the defaults', {}],
    [
      'storage settings set',
      { DYNAMODB_CONNECT_TIMEOUT_MS: '90', DYNAMODB_REQUEST_TIMEOUT_MS: '400', DYNAMODB_MAX_ATTEMPTS: '3' },
    ],
  ])('reads what loadConfig reads, with %s', (_, extra) => {
    const env = { ...VALID, ...extra };
    const zod = loadConfig(env);
    const plain = loadPlainConfig(env);
    expect(plain).toEqual({
      signingSecret: zod.SLACK_SIGNING_SECRET,
      botToken: zod.slackAuth.mode === 'single' ? zod.slackAuth.botToken : undefined,
      slackApiUrl: zod.SLACK_API_URL,
      tableName: zod.TABLE_NAME,
      dynamoEndpoint: zod.DYNAMODB_ENDPOINT,
      storage: storageSettings(zod, 'slack'),
    });
  });

  it.each([
    ['SLACK_SIGNING_SECRET', { SLACK_SIGNING_SECRET: undefined }],
    ['TABLE_NAME', { TABLE_NAME: undefined }],
    ['TABLE_NAME', { TABLE_NAME: '' }],
    ['SLACK_API_URL', { SLACK_API_URL: 'not a url' }],
    ['DYNAMODB_ENDPOINT', { DYNAMODB_ENDPOINT: 'localhost 8000' }],
    ['DYNAMODB_MAX_ATTEMPTS', { DYNAMODB_MAX_ATTEMPTS: '11' }],
    ['DYNAMODB_REQUEST_TIMEOUT_MS', { DYNAMODB_REQUEST_TIMEOUT_MS: '2.5' }],
    ['SLACK_STORAGE_BUDGET_MS', { SLACK_STORAGE_BUDGET_MS: '1501' }],
    ['INLINE_BUDGET_MS', { INLINE_BUDGET_MS: 'soon' }],
    ['API_TIMEOUT_MS', { API_TIMEOUT_MS: '0' }],
    ['TOKEN_ENCRYPTION_KEY', { TOKEN_ENCRYPTION_KEY: undefined }],
    ['SLACK_BOT_TOKEN', { SLACK_CLIENT_ID: 'client' }],
    ['SLACK_BOT_TOKEN', { SLACK_BOT_TOKEN: undefined }],
  ])('refuses what loadConfig refuses, naming %s', (key, change) => {
    const env = { ...VALID, ...change };
    expect(() => loadConfig(env)).toThrow(key);
    expect(() => loadPlainConfig(env)).toThrow(key);
  });
});
