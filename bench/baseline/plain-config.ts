/**
 * The bot's configuration (`lib/config.ts`) checked by hand instead of with zod: the same keys,
 * the same rules, a failure naming the key. A cold-start experiment only — it measures what
 * loading zod and parsing the schema cost the first answer — so it returns just what the floor
 * apps use. `test/unit/bench/plain-config.test.ts` holds it to `loadConfig` on the same inputs.
 */

type Env = Record<string, string | undefined>;

export interface PlainConfig {
  readonly signingSecret: string;
  /** The single-workspace token; undefined when the app is configured for many workspaces. */
  readonly botToken: string | undefined;
  readonly slackApiUrl: string | undefined;
  readonly tableName: string;
  readonly dynamoEndpoint: string | undefined;
  /** The Slack function's DynamoDB client settings, as `storageSettings(config, 'slack')` gives them. */
  readonly storage: {
    readonly connectTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly maxAttempts: number;
  };
}

/** `STORAGE_DEFAULTS.slack` in `lib/config.ts`; importing it would load zod with the schema. */
const SLACK_STORAGE_DEFAULTS = { connectTimeoutMs: 150, requestTimeoutMs: 250, maxAttempts: 2 };
const MULTI_WORKSPACE_KEYS = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;
const OPTIONAL_TEXT_KEYS = [
  'SLACK_BOT_TOKEN',
  ...MULTI_WORKSPACE_KEYS,
  'KMS_KEY_ID',
  'TOKEN_ENCRYPTION_KEY',
  'WORKER_FUNCTION_NAME',
] as const;
const URL_KEYS = ['SLACK_REDIRECT_URI', 'SLACK_API_URL', 'CLOUD_API_URL', 'DYNAMODB_ENDPOINT'] as const;
/** Positive integers, with the schema's upper bounds where it has one. */
const INTEGER_KEYS: Readonly<Record<string, { min: number; max?: number }>> = {
  INLINE_BUDGET_MS: { min: 1 },
  API_TIMEOUT_MS: { min: 1 },
  DYNAMODB_CONNECT_TIMEOUT_MS: { min: 1 },
  DYNAMODB_REQUEST_TIMEOUT_MS: { min: 1 },
  DYNAMODB_MAX_ATTEMPTS: { min: 1, max: 10 },
  SLACK_STORAGE_BUDGET_MS: { min: 1, max: 1500 },
};

export function loadPlainConfig(env: Env): PlainConfig {
  const problems: string[] = [];
  const text = (key: string, required: boolean): string | undefined => {
    const value = env[key];
    if (value === undefined) {
      if (required) problems.push(`${key}: required`);
      return undefined;
    }
    if (value.length === 0) problems.push(`${key}: empty`);
    return value;
  };
  const integer = (key: string): number | undefined => {
    const value = env[key];
    if (value === undefined) return undefined;
    const bounds = INTEGER_KEYS[key] ?? { min: 1 };
    // As `z.coerce.number()`: `Number('')` is 0, which the lower bound then rejects.
    const parsed = Number(value);
    if (
      !Number.isInteger(parsed) ||
      parsed < bounds.min ||
      (bounds.max !== undefined && parsed > bounds.max)
    ) {
      problems.push(`${key}: not an integer from ${bounds.min}${bounds.max ? ` to ${bounds.max}` : ''}`);
    }
    return parsed;
  };

  const signingSecret = text('SLACK_SIGNING_SECRET', true);
  const tableName = text('TABLE_NAME', true);
  for (const key of OPTIONAL_TEXT_KEYS) text(key, false);
  for (const key of URL_KEYS) {
    const value = env[key];
    if (value !== undefined && !URL.canParse(value)) problems.push(`${key}: not a URL`);
  }
  const numbers = Object.fromEntries(Object.keys(INTEGER_KEYS).map((key) => [key, integer(key)]));
  if (problems.length > 0 || signingSecret === undefined || tableName === undefined) {
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  if (!env.KMS_KEY_ID && !env.TOKEN_ENCRYPTION_KEY) {
    throw new Error('Invalid configuration: KMS_KEY_ID or TOKEN_ENCRYPTION_KEY must be set');
  }
  const multi = MULTI_WORKSPACE_KEYS.filter((key) => env[key] !== undefined);
  if (env.SLACK_BOT_TOKEN !== undefined && multi.length > 0) {
    throw new Error(`Invalid configuration: SLACK_BOT_TOKEN and ${multi.join(', ')} are both set`);
  }
  if (env.SLACK_BOT_TOKEN === undefined && multi.length < MULTI_WORKSPACE_KEYS.length) {
    throw new Error(`Invalid configuration: set SLACK_BOT_TOKEN or ${MULTI_WORKSPACE_KEYS.join(', ')}`);
  }
  return {
    signingSecret,
    botToken: env.SLACK_BOT_TOKEN,
    slackApiUrl: env.SLACK_API_URL,
    tableName,
    dynamoEndpoint: env.DYNAMODB_ENDPOINT,
    storage: {
      connectTimeoutMs: numbers.DYNAMODB_CONNECT_TIMEOUT_MS ?? SLACK_STORAGE_DEFAULTS.connectTimeoutMs,
      requestTimeoutMs: numbers.DYNAMODB_REQUEST_TIMEOUT_MS ?? SLACK_STORAGE_DEFAULTS.requestTimeoutMs,
      maxAttempts: numbers.DYNAMODB_MAX_ATTEMPTS ?? SLACK_STORAGE_DEFAULTS.maxAttempts,
    },
  };
}
