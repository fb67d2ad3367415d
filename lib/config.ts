/** See `storageSettings` below for why 700 ms. */
export const DEFAULT_SLACK_STORAGE_BUDGET_MS = 700;

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

/**
 * The environment, checked once. A missing or malformed key fails at start with its name, not
 * later as `undefined` in the middle of a request. An optional key that is unset is absent, not
 * present as `undefined`.
 */
export interface Config {
  readonly SLACK_SIGNING_SECRET: string;
  /** One workspace: the bot token of the app installed there (see `slackAuthOf`). */
  readonly SLACK_BOT_TOKEN?: string | undefined;
  /**
   * The app's OAuth credentials. Many workspaces: installations come through "Add to Slack" with
   * them. Either mode: the agents' sign-in pages sign people in with Slack (Sign in with Slack) as
   * this app, so a single-workspace bot sets them beside SLACK_BOT_TOKEN when agents sign in.
   */
  readonly SLACK_CLIENT_ID?: string | undefined;
  readonly SLACK_CLIENT_SECRET?: string | undefined;
  /** Signs nothing by itself: Bolt requires it; states live in the table and are used once. */
  readonly SLACK_STATE_SECRET?: string | undefined;
  /**
   * Where Slack sends the browser back after "Add to Slack", when it must be named (the local
   * stand-in); in AWS the app's configured redirect URL is used.
   */
  readonly SLACK_REDIRECT_URI?: string | undefined;
  /** Base URL of Slack's Web API; the local stand-in overrides it. */
  readonly SLACK_API_URL?: string | undefined;
  /**
   * Where people reach the bot's HTTP API (the passkey page's links; its host is the passkeys'
   * relying party). https, or http on localhost, which browsers treat as secure for WebAuthn.
   * Unset: no passkey page.
   */
  readonly BOT_PUBLIC_URL?: string | undefined;
  /** Defaults to the public API. */
  readonly CLOUD_API_URL: string;
  readonly TABLE_NAME: string;
  /** AWS: the KMS key for token envelopes. */
  readonly KMS_KEY_ID?: string | undefined;
  /** Local stack and tests: a 32-byte base64 key used instead of KMS. */
  readonly TOKEN_ENCRYPTION_KEY?: string | undefined;
  readonly DYNAMODB_ENDPOINT?: string | undefined;
  /** Name of the worker Lambda for async hand-off; absent locally, where the worker runs in process. */
  readonly WORKER_FUNCTION_NAME?: string | undefined;
  /** Slack user ids allowed to change the approval policy, besides workspace admins (comma-separated). */
  readonly APPROVAL_ADMINS: readonly string[];
  /** How long a command may run inline before it is handed to the worker; 1500 by default. */
  readonly INLINE_BUDGET_MS: number;
  /** 10 000 by default. */
  readonly API_TIMEOUT_MS: number;
  /** DynamoDB client: how long a TCP connect may take; a default per function when unset. */
  readonly DYNAMODB_CONNECT_TIMEOUT_MS?: number | undefined;
  /** DynamoDB client: how long one attempt may take, connect to response; a default per function when unset. */
  readonly DYNAMODB_REQUEST_TIMEOUT_MS?: number | undefined;
  /** DynamoDB client: attempts per call, the first included, at most 10; a default per function when unset. */
  readonly DYNAMODB_MAX_ATTEMPTS?: number | undefined;
  /**
   * Slack function: how long all storage calls of one Slack request may take together. Capped at
   * 1500 so that storage alone can never eat Slack's 3 s.
   */
  readonly SLACK_STORAGE_BUDGET_MS: number;
  readonly slackAuth: SlackAuth;
}

const MULTI_WORKSPACE_KEYS = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

/** Keys whose values an error names but never shows. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'SLACK_SIGNING_SECRET',
  'SLACK_BOT_TOKEN',
  'SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
  'TOKEN_ENCRYPTION_KEY',
]);

/** Longer values are described by their length: a token pasted under the wrong name is long. */
const LONGEST_SHOWN_VALUE = 32;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Checked by hand rather than with a schema library: every function reads its configuration
 * before its first answer, so whatever this module loads is paid on each cold start, and zod
 * alone took about 20 ms to load. `zod/mini` costs less but still more than these checks: the
 * same rules and messages as a `zod/mini` schema (`bench/config-check/zod-mini-config.ts`) add
 * about 14 ms to a fresh process's load and first check, the hand checks about nothing (see
 * `bench/config-check/RESULTS.md`). The rules are the ones the zod schema applied, pinned input
 * by input in `test/unit/config-rules.test.ts`.
 */
export function loadConfig(env: Env = process.env): Config {
  const read = new EnvReader(env);
  const values = {
    SLACK_SIGNING_SECRET: read.requiredText('SLACK_SIGNING_SECRET'),
    SLACK_BOT_TOKEN: read.text('SLACK_BOT_TOKEN'),
    SLACK_CLIENT_ID: read.text('SLACK_CLIENT_ID'),
    SLACK_CLIENT_SECRET: read.text('SLACK_CLIENT_SECRET'),
    SLACK_STATE_SECRET: read.text('SLACK_STATE_SECRET'),
    SLACK_REDIRECT_URI: read.url('SLACK_REDIRECT_URI'),
    SLACK_API_URL: read.url('SLACK_API_URL'),
    BOT_PUBLIC_URL: read.url('BOT_PUBLIC_URL'),
    CLOUD_API_URL: read.url('CLOUD_API_URL') ?? 'https://api.cloud.example.com/v4',
    TABLE_NAME: read.requiredText('TABLE_NAME'),
    KMS_KEY_ID: read.text('KMS_KEY_ID'),
    TOKEN_ENCRYPTION_KEY: read.text('TOKEN_ENCRYPTION_KEY'),
    DYNAMODB_ENDPOINT: read.url('DYNAMODB_ENDPOINT'),
    WORKER_FUNCTION_NAME: read.text('WORKER_FUNCTION_NAME'),
    APPROVAL_ADMINS: read.list('APPROVAL_ADMINS'),
    INLINE_BUDGET_MS: read.wholeNumber('INLINE_BUDGET_MS', 1) ?? 1500,
    API_TIMEOUT_MS: read.wholeNumber('API_TIMEOUT_MS', 1) ?? 10_000,
    DYNAMODB_CONNECT_TIMEOUT_MS: read.wholeNumber('DYNAMODB_CONNECT_TIMEOUT_MS', 1),
    DYNAMODB_REQUEST_TIMEOUT_MS: read.wholeNumber('DYNAMODB_REQUEST_TIMEOUT_MS', 1),
    DYNAMODB_MAX_ATTEMPTS: read.wholeNumber('DYNAMODB_MAX_ATTEMPTS', 1, 10),
    SLACK_STORAGE_BUDGET_MS:
      read.wholeNumber('SLACK_STORAGE_BUDGET_MS', 1, 1500) ?? DEFAULT_SLACK_STORAGE_BUDGET_MS,
  };
  // Whether a key is set, not whether it is valid: a malformed key has its own problem already.
  if (!read.isSet('KMS_KEY_ID') && !read.isSet('TOKEN_ENCRYPTION_KEY')) {
    read.problems.push('KMS_KEY_ID or TOKEN_ENCRYPTION_KEY must be set');
  }
  if (values.BOT_PUBLIC_URL !== undefined && !isSecureWebOrigin(values.BOT_PUBLIC_URL)) {
    read.problems.push(
      `BOT_PUBLIC_URL: must be an https URL (or http on localhost), got ${JSON.stringify(values.BOT_PUBLIC_URL)}`,
    );
  }
  const slackAuth = slackAuthOf(values, read);
  if (read.problems.length > 0 || slackAuth === undefined) {
    throw new ConfigError(`Invalid configuration: ${read.problems.join('; ')}`);
  }
  return { ...withoutUnsetKeys(values, env), slackAuth };
}

/** What WebAuthn runs on: a secure context, which plain http is only on localhost. */
function isSecureWebOrigin(value: string): boolean {
  const url = new URL(value);
  if (url.protocol === 'https:') return url.hostname.length > 0;
  return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname.endsWith('.localhost'));
}

/**
 * Exactly one mode must be complete: a half-configured second mode is a mistake, not a fallback.
 * Decided by which keys are set; a set key that is malformed has its own problem already.
 */
function slackAuthOf(
  config: Pick<Config, 'SLACK_BOT_TOKEN' | 'SLACK_REDIRECT_URI' | (typeof MULTI_WORKSPACE_KEYS)[number]>,
  read: EnvReader,
): SlackAuth | undefined {
  const present = MULTI_WORKSPACE_KEYS.filter((key) => read.isSet(key));
  const { SLACK_BOT_TOKEN: botToken, SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_STATE_SECRET } = config;
  if (read.isSet('SLACK_BOT_TOKEN')) {
    // The app's client id and secret alone are for Sign in with Slack (the agents' sign-in), which
    // one workspace needs too; the state secret is "Add to Slack"'s only, so it makes a second mode.
    const signIn = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET'] as const;
    if (!read.isSet('SLACK_STATE_SECRET') && signIn.every((key) => read.isSet(key)))
      return botToken === undefined ? undefined : { mode: 'single', botToken };
    if (!read.isSet('SLACK_STATE_SECRET') && signIn.some((key) => read.isSet(key))) {
      read.problems.push(
        `${signIn.find((key) => !read.isSet(key))} is missing: Sign in with Slack needs SLACK_CLIENT_ID and SLACK_CLIENT_SECRET together`,
      );
      return undefined;
    }
    if (present.length > 0) {
      read.problems.push(
        `SLACK_BOT_TOKEN (one workspace) and ${present.join(', ')} (many workspaces) are both set: set one mode only`,
      );
      return undefined;
    }
    return botToken === undefined ? undefined : { mode: 'single', botToken };
  }
  if (present.length === 0) {
    read.problems.push(
      `set SLACK_BOT_TOKEN (one workspace) or ${MULTI_WORKSPACE_KEYS.join(', ')} (many workspaces)`,
    );
    return undefined;
  }
  const missing = MULTI_WORKSPACE_KEYS.filter((key) => !read.isSet(key));
  if (missing.length > 0) {
    read.problems.push(`many workspaces also need ${missing.join(', ')}`);
    return undefined;
  }
  if (
    SLACK_CLIENT_ID === undefined ||
    SLACK_CLIENT_SECRET === undefined ||
    SLACK_STATE_SECRET === undefined
  ) {
    return undefined;
  }
  return {
    mode: 'multi',
    clientId: SLACK_CLIENT_ID,
    clientSecret: SLACK_CLIENT_SECRET,
    stateSecret: SLACK_STATE_SECRET,
    redirectUri: config.SLACK_REDIRECT_URI,
  };
}

/**
 * Reads the known keys, one at a time, and collects what is wrong with each so that one error
 * lists them all. Only the environment's own properties count: an object built from hostile
 * JSON may carry `__proto__`, and a key inherited from a prototype was never set.
 */
class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  isSet(key: string): boolean {
    return this.raw(key) !== undefined;
  }

  /** A required text key; the empty placeholder never escapes, since its problem throws. */
  requiredText(key: string): string {
    const value = this.raw(key);
    if (typeof value === 'string' && value.length > 0) return value;
    this.refuse(key, 'a non-empty string', value);
    return '';
  }

  /** Kept exactly as given, spaces included: a token or a name is not ours to tidy. */
  text(key: string): string | undefined {
    const value = this.raw(key);
    if (value === undefined || (typeof value === 'string' && value.length > 0)) return value;
    this.refuse(key, 'a non-empty string', value);
    return undefined;
  }

  /**
   * As zod's `z.url()`: whatever the WHATWG parser takes as an absolute URL once trimmed, any
   * scheme. The parser ignores tabs and newlines anywhere in its input, so the value used drops
   * them too, and what was checked is what is used.
   */
  url(key: string): string | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (typeof value === 'string') {
      const trimmed = value.trim();
      if (URL.canParse(trimmed)) return trimmed.replace(/[\t\n\r]/g, '');
    }
    this.refuse(key, 'an absolute URL such as https://host/path', value);
    return undefined;
  }

  list(key: string): readonly string[] {
    const value = this.raw(key) ?? '';
    if (typeof value === 'string') {
      return value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
    }
    this.refuse(key, 'a comma-separated list', value);
    return [];
  }

  /**
   * As `z.coerce.number().int()` read it: `Number()` takes ' 12 ', '1e3' and '0x10', and reads
   * '' and blanks as 0, which every minimum here refuses. Whole means exactly representable, so
   * nothing past 2^53 − 1.
   */
  wholeNumber(key: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    const number = typeof value === 'string' ? Number(value) : Number.NaN;
    if (Number.isInteger(number) && number >= min && number <= max) return number;
    const range =
      max === Number.MAX_SAFE_INTEGER && !(number > max) ? `of at least ${min}` : `from ${min} to ${max}`;
    this.refuse(key, `a whole number ${range}`, value);
    return undefined;
  }

  private raw(key: string): unknown {
    return Object.hasOwn(this.env, key) ? this.env[key] : undefined;
  }

  private refuse(key: string, expected: string, value: unknown): void {
    this.problems.push(`${key}: must be ${expected}, ${this.describe(key, value)}`);
  }

  private describe(key: string, value: unknown): string {
    if (value === undefined) return 'but it is not set';
    if (typeof value !== 'string') return `got a value of type ${value === null ? 'null' : typeof value}`;
    if (value.length === 0) return 'got ""';
    const secret = SECRET_KEYS.has(key) || [...SECRET_KEYS].some((name) => this.raw(name) === value);
    if (secret || value.length > LONGEST_SHOWN_VALUE) return `got ${value.length} characters (not shown)`;
    return `got ${JSON.stringify(value)}`;
  }
}

/** Spreading the config over defaults must keep the defaults, as the schema's output did. */
function withoutUnsetKeys<T extends object>(values: T, env: Env): T {
  return Object.fromEntries(
    Object.entries(values).filter(([key, value]) => value !== undefined || Object.hasOwn(env, key)),
  ) as T;
}

/** The DynamoDB clients' timeouts and attempts (`lib/runtime.ts` `openTable`, and the worker's SDK client). */
export interface StorageSettings {
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxAttempts: number;
}

/** Who the client serves: the Slack function answers within Slack's 3 s, the others have minutes. */
/** What building a DynamoDB client reads from the configuration. */
export type StorageConfig = Pick<
  Config,
  | 'DYNAMODB_ENDPOINT'
  | 'DYNAMODB_CONNECT_TIMEOUT_MS'
  | 'DYNAMODB_REQUEST_TIMEOUT_MS'
  | 'DYNAMODB_MAX_ATTEMPTS'
>;

export type StorageRole = 'slack' | 'background';

/**
 * Defaults per role. DynamoDB answers a single-item call in under 10 ms at p99 within a region,
 * so a timeout is a sign of trouble, not of a slow answer.
 *
 * Slack function: one call takes at most 250 (first attempt) + 100 (the backoff before a retry,
 * as in the SDK's standard strategy: random × 100 ms) + 250 (second attempt) = 600 ms; a
 * throttled call fails fast but waits up to 500 ms before its retry, about the same. The slowest command, a destructive one, makes
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
