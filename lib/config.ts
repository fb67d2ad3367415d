import { z } from 'zod';

/** See `storageSettings` below for why 700 ms. */
export const DEFAULT_SLACK_STORAGE_BUDGET_MS = 700;

/**
 * The environment, parsed once. A missing or malformed key fails at start with its name, not
 * later as `undefined` in the middle of a request.
 */
const ConfigSchema = z.object({
  SLACK_SIGNING_SECRET: z.string().min(1),
  /** One workspace: the bot token of the app installed there (see `slackAuthOf`). */
  SLACK_BOT_TOKEN: z.string().min(1).optional(),
  /** Many workspaces: the app's OAuth credentials; installations come through "Add to Slack". */
  SLACK_CLIENT_ID: z.string().min(1).optional(),
  SLACK_CLIENT_SECRET: z.string().min(1).optional(),
  /** Signs nothing by itself: Bolt requires it; states live in the table and are used once. */
  SLACK_STATE_SECRET: z.string().min(1).optional(),
  /**
   * Where Slack sends the browser back after "Add to Slack", when it must be named (the local
   * stand-in); in AWS the app's configured redirect URL is used.
   */
  SLACK_REDIRECT_URI: z.url().optional(),
  /** Base URL of Slack's Web API; the local stand-in overrides it. */
  SLACK_API_URL: z.url().optional(),
  CLOUD_API_URL: z.url().default('https://api.cloud.example.com/v4'),
  TABLE_NAME: z.string().min(1),
  /** AWS: the KMS key for token envelopes. */
  KMS_KEY_ID: z.string().min(1).optional(),
  /** Local stack and tests: a 32-byte base64 key used instead of KMS. */
  TOKEN_ENCRYPTION_KEY: z.string().min(1).optional(),
  DYNAMODB_ENDPOINT: z.url().optional(),
  /** Name of the worker Lambda for async hand-off; absent locally, where the worker runs in process. */
  WORKER_FUNCTION_NAME: z.string().min(1).optional(),
  /** Comma-separated Slack user ids allowed to change the approval policy, besides workspace admins. */
  APPROVAL_ADMINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  /** How long a command may run inline before it is handed to the worker. */
  INLINE_BUDGET_MS: z.coerce.number().int().positive().default(1500),
  API_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** DynamoDB client: how long a TCP connect may take; a default per function when unset. */
  DYNAMODB_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  /** DynamoDB client: how long one attempt may take, connect to response; a default per function when unset. */
  DYNAMODB_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  /** DynamoDB client: attempts per call, the first included; a default per function when unset. */
  DYNAMODB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).optional(),
  /**
   * Slack function: how long all storage calls of one Slack request may take together. Capped so
   * that storage alone can never eat Slack's 3 s.
   */
  SLACK_STORAGE_BUDGET_MS: z.coerce
    .number()
    .int()
    .positive()
    .max(1500)
    .default(DEFAULT_SLACK_STORAGE_BUDGET_MS),
});

/**
 * How the bot gets its Slack token: one token for the one workspace it serves, or, for a
 * distributed app, the token of each workspace's installation, read from the table.
 */
export type SlackAuth =
  | { readonly mode: 'single'; readonly botToken: string }
  | {
      readonly mode: 'multi';
      readonly clientId: string;
      readonly clientSecret: string;
      readonly stateSecret: string;
      readonly redirectUri?: string | undefined;
    };

export type Config = z.infer<typeof ConfigSchema> & { readonly slackAuth: SlackAuth };

const MULTI_WORKSPACE_KEYS = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = ConfigSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const config = result.data;
  if (!config.KMS_KEY_ID && !config.TOKEN_ENCRYPTION_KEY) {
    throw new ConfigError('Invalid configuration: KMS_KEY_ID or TOKEN_ENCRYPTION_KEY must be set');
  }
  return { ...config, slackAuth: slackAuthOf(config) };
}

/** Exactly one mode must be complete: a half-configured second mode is a mistake, not a fallback. */
function slackAuthOf(config: z.infer<typeof ConfigSchema>): SlackAuth {
  const present = MULTI_WORKSPACE_KEYS.filter((key) => config[key] !== undefined);
  const { SLACK_BOT_TOKEN: botToken, SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET } = config;
  if (botToken !== undefined && present.length > 0) {
    throw new ConfigError(
      `Invalid configuration: SLACK_BOT_TOKEN (one workspace) and ${present.join(', ')} (many workspaces) are both set; set one mode only`,
    );
  }
  if (botToken !== undefined) return { mode: 'single', botToken };
  if (SLACK_CLIENT_ID && SLACK_CLIENT_SECRET && SLACK_STATE_SECRET) {
    return {
      mode: 'multi',
      clientId: SLACK_CLIENT_ID,
      clientSecret: SLACK_CLIENT_SECRET,
      stateSecret: SLACK_STATE_SECRET,
      redirectUri: config.SLACK_REDIRECT_URI,
    };
  }
  if (present.length > 0) {
    const missing = MULTI_WORKSPACE_KEYS.filter((key) => config[key] === undefined);
    throw new ConfigError(`Invalid configuration: many workspaces also need ${missing.join(', ')}`);
  }
  throw new ConfigError(
    `Invalid configuration: set SLACK_BOT_TOKEN (one workspace) or ${MULTI_WORKSPACE_KEYS.join(', ')} (many workspaces)`,
  );
}

/** The DynamoDB client's timeouts and attempts, as `lib/runtime.ts` hands them to the SDK. */
export interface StorageSettings {
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxAttempts: number;
}

/** Who the client serves: the Slack function answers within Slack's 3 s, the others have minutes. */
export type StorageRole = 'slack' | 'background';

/**
 * Defaults per role. DynamoDB answers a single-item call in under 10 ms at p99 within a region,
 * so a timeout is a sign of trouble, not of a slow answer.
 *
 * Slack function: one call takes at most 250 (first attempt) + 100 (the SDK's backoff before a
 * retry: random × 100 ms) + 250 (second attempt) = 600 ms; a throttled call fails fast but waits
 * up to 500 ms before its retry, about the same. The slowest command, a destructive one, makes
 * seven storage calls in a row (delivery claim, active profile, token link, approval policy,
 * approval, audit line, card timestamp) besides an 800 ms label lookup and a Slack post, so
 * per-call limits alone would allow 7 × 600 = 4.2 s. Hence the per-request budget
 * (`SLACK_STORAGE_BUDGET_MS`, 700 ms): every storage call of one Slack request shares it, and a
 * call fails as soon as it is spent. The worst case is then 700 ms of storage + the 1.5 s inline
 * budget for the API (which starts after the delivery claim) + the hand-off, about 2.3 s; with
 * DynamoDB hung the first call fails after 600 ms and the answer leaves at once.
 *
 * Worker and reporter: no Slack deadline, but a Lambda timeout; three attempts of 3 s are enough
 * to ride out a brief hiccup and still fail a stuck call long before the function times out.
 */
const STORAGE_DEFAULTS: Record<StorageRole, StorageSettings> = {
  slack: { connectTimeoutMs: 150, requestTimeoutMs: 250, maxAttempts: 2 },
  background: { connectTimeoutMs: 1000, requestTimeoutMs: 3000, maxAttempts: 3 },
};

/** The role's defaults, with whatever the environment of this function sets instead. */
export function storageSettings(
  config: Pick<
    Config,
    'DYNAMODB_CONNECT_TIMEOUT_MS' | 'DYNAMODB_REQUEST_TIMEOUT_MS' | 'DYNAMODB_MAX_ATTEMPTS'
  >,
  role: StorageRole,
): StorageSettings {
  const defaults = STORAGE_DEFAULTS[role];
  return {
    connectTimeoutMs: config.DYNAMODB_CONNECT_TIMEOUT_MS ?? defaults.connectTimeoutMs,
    requestTimeoutMs: config.DYNAMODB_REQUEST_TIMEOUT_MS ?? defaults.requestTimeoutMs,
    maxAttempts: config.DYNAMODB_MAX_ATTEMPTS ?? defaults.maxAttempts,
  };
}
