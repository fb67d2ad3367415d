import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.js';

/**
 * Every key's rules, input by input, as the zod schema applied them before `loadConfig` was
 * written by hand (the Slack function's cold start should not load zod). The tables are the
 * contract: a change that reads a value differently, or lets a bad one through, fails here first.
 */

type Env = Record<string, string | undefined>;

const SINGLE: Env = {
  SLACK_SIGNING_SECRET: 'signing-s3cret-value',
  SLACK_BOT_TOKEN: 'xoxb-s3cret-token',
  TABLE_NAME: 'chatops',
  TOKEN_ENCRYPTION_KEY: 'tek-s3cret-key',
};
const { SLACK_BOT_TOKEN: _token, ...NO_MODE } = SINGLE;
const MULTI: Env = {
  ...NO_MODE,
  SLACK_CLIENT_ID: '123.456',
  SLACK_CLIENT_SECRET: 'client-s3cret-value',
  SLACK_STATE_SECRET: 'state-s3cret-value',
};

function refusal(env: Env): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/^Invalid configuration: /);
    return message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('a whole configuration', () => {
  it('reads every key of one workspace, filling the defaults and nothing else', () => {
    expect(loadConfig({ ...SINGLE, UNRELATED: 'x' })).toStrictEqual({
      SLACK_SIGNING_SECRET: 'signing-s3cret-value',
      SLACK_BOT_TOKEN: 'xoxb-s3cret-token',
      TABLE_NAME: 'chatops',
      TOKEN_ENCRYPTION_KEY: 'tek-s3cret-key',
      CLOUD_API_URL: 'https://api.cloud.example.com/v4',
      APPROVAL_ADMINS: [],
      INLINE_BUDGET_MS: 1500,
      API_TIMEOUT_MS: 10_000,
      SLACK_STORAGE_BUDGET_MS: 700,
      slackAuth: { mode: 'single', botToken: 'xoxb-s3cret-token' },
    });
  });

  it('reads every key that can be set at once', () => {
    expect(
      loadConfig({
        ...MULTI,
        SLACK_REDIRECT_URI: 'https://chatops.example.com/slack/oauth_redirect',
        SLACK_API_URL: 'http://127.0.0.1:3999/api/',
        CLOUD_API_URL: 'http://127.0.0.1:4010/v4',
        KMS_KEY_ID: 'alias/chatops',
        DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
        WORKER_FUNCTION_NAME: 'chatops-worker',
        APPROVAL_ADMINS: 'U1,U2',
        INLINE_BUDGET_MS: '1200',
        API_TIMEOUT_MS: '5000',
        DYNAMODB_CONNECT_TIMEOUT_MS: '90',
        DYNAMODB_REQUEST_TIMEOUT_MS: '400',
        DYNAMODB_MAX_ATTEMPTS: '3',
        SLACK_STORAGE_BUDGET_MS: '900',
      }),
    ).toStrictEqual({
      SLACK_SIGNING_SECRET: 'signing-s3cret-value',
      SLACK_CLIENT_ID: '123.456',
      SLACK_CLIENT_SECRET: 'client-s3cret-value',
      SLACK_STATE_SECRET: 'state-s3cret-value',
      SLACK_REDIRECT_URI: 'https://chatops.example.com/slack/oauth_redirect',
      SLACK_API_URL: 'http://127.0.0.1:3999/api/',
      CLOUD_API_URL: 'http://127.0.0.1:4010/v4',
      TABLE_NAME: 'chatops',
      KMS_KEY_ID: 'alias/chatops',
      TOKEN_ENCRYPTION_KEY: 'tek-s3cret-key',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      WORKER_FUNCTION_NAME: 'chatops-worker',
      APPROVAL_ADMINS: ['U1', 'U2'],
      INLINE_BUDGET_MS: 1200,
      API_TIMEOUT_MS: 5000,
      DYNAMODB_CONNECT_TIMEOUT_MS: 90,
      DYNAMODB_REQUEST_TIMEOUT_MS: 400,
      DYNAMODB_MAX_ATTEMPTS: 3,
      SLACK_STORAGE_BUDGET_MS: 900,
      slackAuth: {
        mode: 'multi',
        clientId: '123.456',
        clientSecret: 'client-s3cret-value',
        stateSecret: 'state-s3cret-value',
        redirectUri: 'https://chatops.example.com/slack/oauth_redirect',
      },
    });
  });

  // Spreading a config over defaults must keep the defaults: an unset key may not come back as
  // an own property holding undefined.
  it('leaves an unset optional key out rather than setting it to undefined', () => {
    const config = loadConfig(SINGLE);
    for (const key of [
      'SLACK_CLIENT_ID',
      'SLACK_REDIRECT_URI',
      'SLACK_API_URL',
      'BOT_PUBLIC_URL',
      'KMS_KEY_ID',
      'DYNAMODB_ENDPOINT',
      'WORKER_FUNCTION_NAME',
      'DYNAMODB_CONNECT_TIMEOUT_MS',
      'DYNAMODB_REQUEST_TIMEOUT_MS',
      'DYNAMODB_MAX_ATTEMPTS',
    ]) {
      expect(Object.hasOwn(config, key), key).toBe(false);
    }
  });

  it('treats a key present with the value undefined as unset', () => {
    const config = loadConfig({ ...SINGLE, DYNAMODB_MAX_ATTEMPTS: undefined, INLINE_BUDGET_MS: undefined });
    expect(config.DYNAMODB_MAX_ATTEMPTS).toBeUndefined();
    expect(config.INLINE_BUDGET_MS).toBe(1500);
  });

  it('lists every broken key in one error, so one deploy fixes them all', () => {
    const message = refusal({
      ...SINGLE,
      SLACK_SIGNING_SECRET: undefined,
      TABLE_NAME: '',
      CLOUD_API_URL: 'not a url',
      INLINE_BUDGET_MS: 'soon',
      DYNAMODB_MAX_ATTEMPTS: '11',
    });
    for (const key of [
      'SLACK_SIGNING_SECRET',
      'TABLE_NAME',
      'CLOUD_API_URL',
      'INLINE_BUDGET_MS',
      'DYNAMODB_MAX_ATTEMPTS',
    ]) {
      expect(message).toContain(`${key}: `);
    }
  });
});

describe('text keys: any non-empty string, kept as given', () => {
  const TEXT_KEYS: readonly [key: string, env: Env, required: boolean][] = [
    ['SLACK_SIGNING_SECRET', SINGLE, true],
    ['TABLE_NAME', SINGLE, true],
    ['SLACK_BOT_TOKEN', SINGLE, false],
    ['SLACK_CLIENT_ID', MULTI, false],
    ['SLACK_CLIENT_SECRET', MULTI, false],
    ['SLACK_STATE_SECRET', MULTI, false],
    ['KMS_KEY_ID', SINGLE, false],
    ['TOKEN_ENCRYPTION_KEY', { ...SINGLE, KMS_KEY_ID: 'alias/k' }, false],
    ['WORKER_FUNCTION_NAME', SINGLE, false],
  ];

  describe.each(TEXT_KEYS)('%s', (key, env, required) => {
    it.each(['x', ' ', ' padded ', 'with,comma', 'ünïcödé'])('keeps %j untouched', (value) => {
      expect((loadConfig({ ...env, [key]: value }) as unknown as Record<string, unknown>)[key]).toBe(value);
    });

    it('refuses the empty string, naming the key', () => {
      expect(refusal({ ...env, [key]: '' })).toContain(`${key}: `);
    });

    if (required) {
      it('refuses it unset, naming the key', () => {
        expect(refusal({ ...env, [key]: undefined })).toContain(`${key}: `);
      });
    }
  });
});

describe('BOT_PUBLIC_URL: where the passkey page is served, a secure context for WebAuthn', () => {
  it.each([
    'https://chatops.example.com',
    'https://abc.execute-api.us-east-1.amazonaws.com/',
    'http://localhost:3003',
  ])('reads %j', (value) => {
    expect(loadConfig({ ...SINGLE, BOT_PUBLIC_URL: value }).BOT_PUBLIC_URL).toBe(value);
  });

  it.each([
    'http://chatops.example.com',
    'http://127.0.0.1:3003',
    'file:///tmp/x',
    'localhost:3003',
    'not a url',
  ])('refuses %j, naming the key', (value) => {
    expect(() => loadConfig({ ...SINGLE, BOT_PUBLIC_URL: value })).toThrow(/BOT_PUBLIC_URL: /);
  });
});

describe('URL keys: anything the WHATWG URL parser takes as an absolute URL, trimmed', () => {
  const URL_KEYS: readonly [key: string, env: Env][] = [
    ['SLACK_REDIRECT_URI', MULTI],
    ['SLACK_API_URL', SINGLE],
    ['CLOUD_API_URL', SINGLE],
    ['DYNAMODB_ENDPOINT', SINGLE],
  ];
  const ACCEPTED: readonly [raw: string, read: string][] = [
    ['http://127.0.0.1:8000', 'http://127.0.0.1:8000'],
    ['https://api.example.com/v4', 'https://api.example.com/v4'],
    ['http://[::1]:8000/', 'http://[::1]:8000/'],
    ['HTTP://EXAMPLE.COM', 'HTTP://EXAMPLE.COM'],
    [' http://x/a ', 'http://x/a'],
    ['\thttp://x/a\n', 'http://x/a'],
    ['\u00a0http://x/a\u00a0', 'http://x/a'],
    // The parser drops tabs and newlines anywhere; the value read drops them too, so what is
    // checked is what is used.
    ['http://exa\nmple.com', 'http://example.com'],
    // Any scheme, and no `//` needed: zod's `z.url()` asked no more of a URL than this.
    ['localhost:8000', 'localhost:8000'],
    ['http:example.com', 'http:example.com'],
    ['file:///tmp/x', 'file:///tmp/x'],
  ];
  const REFUSED = ['', '   ', 'not a url', 'localhost 8000', '/v4', '//host/path', 'http://', 'http://a b'];

  describe.each(URL_KEYS)('%s', (key, env) => {
    const read = (value: string) => {
      const config = loadConfig({ ...env, [key]: value });
      return key === 'SLACK_REDIRECT_URI' && config.slackAuth.mode === 'multi'
        ? [config.SLACK_REDIRECT_URI, config.slackAuth.redirectUri]
        : [(config as unknown as Record<string, unknown>)[key]];
    };

    it.each(ACCEPTED)('reads %j as %j', (raw, expected) => {
      for (const value of read(raw)) expect(value).toBe(expected);
    });

    it.each(REFUSED)('refuses %j, naming the key', (raw) => {
      expect(refusal({ ...env, [key]: raw })).toContain(`${key}: `);
    });
  });

  it('uses the public API when CLOUD_API_URL is unset', () => {
    expect(loadConfig(SINGLE).CLOUD_API_URL).toBe('https://api.cloud.example.com/v4');
  });
});

describe('whole-number keys: read as JavaScript reads a number, then held to their range', () => {
  const NUMBER_KEYS: readonly [key: string, min: number, max: number, unset: number | undefined][] = [
    ['INLINE_BUDGET_MS', 1, Number.MAX_SAFE_INTEGER, 1500],
    ['API_TIMEOUT_MS', 1, Number.MAX_SAFE_INTEGER, 10_000],
    ['DYNAMODB_CONNECT_TIMEOUT_MS', 1, Number.MAX_SAFE_INTEGER, undefined],
    ['DYNAMODB_REQUEST_TIMEOUT_MS', 1, Number.MAX_SAFE_INTEGER, undefined],
    ['DYNAMODB_MAX_ATTEMPTS', 1, 10, undefined],
    ['SLACK_STORAGE_BUDGET_MS', 1, 1500, 700],
  ];
  /** Spellings `Number()` reads, with the number each one denotes. */
  const SPELLINGS: readonly [raw: string, denotes: number][] = [
    ['7', 7],
    [' 7 ', 7],
    ['\n7\t', 7],
    ['+7', 7],
    ['7.0', 7],
    ['7.', 7],
    ['.7e1', 7],
    ['1e1', 10],
    ['0x10', 16],
    ['0b11', 3],
    ['0o7', 7],
    ['1e3', 1000],
  ];
  /** Refused by every key: not a number, not whole, not positive, or past exact integers. */
  const REFUSED = [
    '',
    '  ',
    '0',
    '-0',
    '-3',
    '7.5',
    '1_000',
    '1,000',
    'abc',
    '12abc',
    '0x',
    '１２',
    'Infinity',
    'NaN',
    '9007199254740992',
    '1e21',
  ];

  describe.each(NUMBER_KEYS)('%s', (key, min, max, unset) => {
    const read = (raw: string | undefined) =>
      (loadConfig({ ...SINGLE, [key]: raw }) as unknown as Record<string, unknown>)[key];

    it.each(SPELLINGS.filter(([, n]) => n >= min && n <= max))('reads %j as %d', (raw, denotes) => {
      expect(read(raw)).toBe(denotes);
    });

    it.each(SPELLINGS.filter(([, n]) => n > max))('refuses %j (denotes %d, above the maximum)', (raw) => {
      expect(refusal({ ...SINGLE, [key]: raw })).toContain(`${key}: `);
    });

    it.each(REFUSED)('refuses %j, naming the key', (raw) => {
      expect(refusal({ ...SINGLE, [key]: raw })).toContain(`${key}: `);
    });

    it(`accepts its bounds ${min} and ${max}, refuses ${max + 1}`, () => {
      expect(read(String(min))).toBe(min);
      expect(read(String(max))).toBe(max);
      expect(refusal({ ...SINGLE, [key]: String(max + 1) })).toContain(`${key}: `);
    });

    it(`reads an unset key as ${unset}`, () => {
      expect(read(undefined)).toBe(unset);
    });
  });
});

describe('APPROVAL_ADMINS: a comma-separated list of Slack user ids', () => {
  it.each([
    [undefined, []],
    ['', []],
    [' ', []],
    [',,', []],
    ['U1', ['U1']],
    [' U1 , U2 ,,', ['U1', 'U2']],
    ['\tU1\n,U2', ['U1', 'U2']],
    ['U1,u1,U1', ['U1', 'u1', 'U1']],
  ])('reads %j as %j', (raw, admins) => {
    expect(loadConfig({ ...SINGLE, APPROVAL_ADMINS: raw }).APPROVAL_ADMINS).toStrictEqual(admins);
  });
});

describe('secrets in errors', () => {
  const SECRETS = {
    SLACK_SIGNING_SECRET: 'signing-s3cret-value',
    SLACK_BOT_TOKEN: 'xoxb-s3cret-token',
    SLACK_CLIENT_SECRET: 'client-s3cret-value',
    SLACK_STATE_SECRET: 'state-s3cret-value',
    TOKEN_ENCRYPTION_KEY: 'tek-s3cret-key',
  };

  it('never shows a secret value, whatever else is wrong', () => {
    const message = refusal({
      ...SECRETS,
      SLACK_CLIENT_ID: '123.456',
      TABLE_NAME: '',
      CLOUD_API_URL: 'not a url',
      DYNAMODB_MAX_ATTEMPTS: 'abc',
    });
    for (const value of Object.values(SECRETS)) expect(message).not.toContain(value);
    expect(message).not.toContain('s3cret');
  });
});

describe('what an error says', () => {
  it.each([
    [
      'DYNAMODB_MAX_ATTEMPTS: must be a whole number from 1 to 10, got "abc"',
      { DYNAMODB_MAX_ATTEMPTS: 'abc' },
    ],
    [
      'SLACK_STORAGE_BUDGET_MS: must be a whole number from 1 to 1500, got "2500"',
      { SLACK_STORAGE_BUDGET_MS: '2500' },
    ],
    ['INLINE_BUDGET_MS: must be a whole number of at least 1, got ""', { INLINE_BUDGET_MS: '' }],
    [
      'API_TIMEOUT_MS: must be a whole number from 1 to 9007199254740991, got "9007199254740992"',
      { API_TIMEOUT_MS: '9007199254740992' },
    ],
    [
      'CLOUD_API_URL: must be an absolute URL such as https://host/path, got "api.example.com"',
      { CLOUD_API_URL: 'api.example.com' },
    ],
    ['TABLE_NAME: must be a non-empty string, but it is not set', { TABLE_NAME: undefined }],
    ['TABLE_NAME: must be a non-empty string, got ""', { TABLE_NAME: '' }],
  ])('says %j', (problem, change) => {
    expect(refusal({ ...SINGLE, ...change })).toBe(`Invalid configuration: ${problem}`);
  });

  it('lists the missing-together keys with the malformed ones, not one deploy later', () => {
    const message = refusal({ SLACK_SIGNING_SECRET: 's', INLINE_BUDGET_MS: 'soon' });
    expect(message.replace(/^Invalid configuration: /, '').split('; ')).toEqual([
      'TABLE_NAME: must be a non-empty string, but it is not set',
      'INLINE_BUDGET_MS: must be a whole number of at least 1, got "soon"',
      'KMS_KEY_ID or TOKEN_ENCRYPTION_KEY must be set',
      'set SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET (many workspaces)',
    ]);
  });

  it('describes a long value by its length: it may be a token set under the wrong name', () => {
    const pasted = `xoxb-${'1'.repeat(50)}`;
    const message = refusal({ ...SINGLE, DYNAMODB_ENDPOINT: pasted });
    expect(message).toBe(
      'Invalid configuration: DYNAMODB_ENDPOINT: must be an absolute URL such as https://host/path, got 55 characters (not shown)',
    );
  });

  it('does not show a value that is also set as a secret, however short', () => {
    const message = refusal({ ...SINGLE, SLACK_SIGNING_SECRET: 'hunter2', INLINE_BUDGET_MS: 'hunter2' });
    expect(message).toContain('INLINE_BUDGET_MS: ');
    expect(message).not.toContain('hunter2');
  });
});

describe('an environment object that is not what it claims', () => {
  const WITH_PROTO_KEY =
    '{"__proto__":{"TABLE_NAME":"evil","INLINE_BUDGET_MS":"1"},' +
    '"SLACK_SIGNING_SECRET":"s","SLACK_BOT_TOKEN":"x","TOKEN_ENCRYPTION_KEY":"k"';

  it('ignores a `__proto__` key carrying settings (JSON.parse makes it an own property)', () => {
    const env = JSON.parse(`${WITH_PROTO_KEY}}`) as Env;
    expect(Object.hasOwn(env, '__proto__')).toBe(true);
    expect(refusal(env)).toBe(
      'Invalid configuration: TABLE_NAME: must be a non-empty string, but it is not set',
    );
  });

  it('carries a `__proto__` key neither into the config nor into its prototype', () => {
    const config = loadConfig(JSON.parse(`${WITH_PROTO_KEY},"TABLE_NAME":"t"}`) as Env);
    expect(Object.getPrototypeOf(config)).toBe(Object.prototype);
    expect(Object.hasOwn(config, '__proto__')).toBe(false);
    expect(config.INLINE_BUDGET_MS).toBe(1500);
  });

  it('ignores keys inherited from a prototype: they were never set', () => {
    const { TABLE_NAME: _table, ...withoutTable } = SINGLE;
    const env = Object.assign(Object.create({ TABLE_NAME: 'inherited' }) as Env, withoutTable);
    expect(env.TABLE_NAME).toBe('inherited');
    expect(refusal(env)).toBe(
      'Invalid configuration: TABLE_NAME: must be a non-empty string, but it is not set',
    );
  });

  it('refuses a value that is not a string, naming its type only', () => {
    const env = { ...SINGLE, SLACK_BOT_TOKEN: 42, INLINE_BUDGET_MS: 1200 } as unknown as Env;
    const message = refusal(env);
    expect(message).toContain('SLACK_BOT_TOKEN: must be a non-empty string, got a value of type number');
    expect(message).toContain(
      'INLINE_BUDGET_MS: must be a whole number of at least 1, got a value of type number',
    );
  });
});
