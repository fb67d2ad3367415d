import * as z from 'zod/mini';
import type { Config, SlackAuth } from '../../lib/config.js';

/**
 * `loadConfig` of `lib/config.ts` written as a `zod/mini` schema, with the same messages: the
 * candidate that `bench/config-check/run.ts` measures against the hand checks. Each key's schema
 * says what it expects; the message adds what was found, from the environment itself, so a secret
 * is described by its length and never echoed.
 */

const DEFAULT_SLACK_STORAGE_BUDGET_MS = 700;
const MULTI_WORKSPACE_KEYS = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'SLACK_SIGNING_SECRET',
  'SLACK_BOT_TOKEN',
  'SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
  'TOKEN_ENCRYPTION_KEY',
]);
const LONGEST_SHOWN_VALUE = 32;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

const NON_EMPTY = 'a non-empty string';
const ABSOLUTE_URL = 'an absolute URL such as https://host/path';

const requiredText = () => z.string({ error: NON_EMPTY }).check(z.minLength(1, NON_EMPTY));
const text = () => z.optional(requiredText());
const url = () => z.optional(z.url({ error: ABSOLUTE_URL }));

/** As `z.coerce.number().int()` read a string: `Number()` takes ' 12 ', '1e3' and '0x10'. */
function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  const expected = (input: unknown) => {
    const number = typeof input === 'number' ? input : Number.NaN;
    return max === Number.MAX_SAFE_INTEGER && !(number > max)
      ? `a whole number of at least ${min}`
      : `a whole number from ${min} to ${max}`;
  };
  return z.optional(
    z.pipe(
      z.pipe(z.string({ error: () => expected(undefined) }), z.transform(Number)),
      z
        .int({ error: (issue) => expected(issue.input) })
        .check(
          z.gte(min, { error: (issue) => expected(issue.input) }),
          z.lte(max, { error: (issue) => expected(issue.input) }),
        ),
    ),
  );
}

const CONFIG_SHAPE = {
  SLACK_SIGNING_SECRET: requiredText(),
  SLACK_BOT_TOKEN: text(),
  SLACK_CLIENT_ID: text(),
  SLACK_CLIENT_SECRET: text(),
  SLACK_STATE_SECRET: text(),
  SLACK_REDIRECT_URI: url(),
  SLACK_API_URL: url(),
  CLOUD_API_URL: z._default(z.url({ error: ABSOLUTE_URL }), 'https://api.cloud.example.com/v4'),
  TABLE_NAME: requiredText(),
  KMS_KEY_ID: text(),
  TOKEN_ENCRYPTION_KEY: text(),
  DYNAMODB_ENDPOINT: url(),
  WORKER_FUNCTION_NAME: text(),
  APPROVAL_ADMINS: z._default(
    z.pipe(
      z.string({ error: 'a comma-separated list' }),
      z.transform((value) =>
        value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      ),
    ),
    () => [],
  ),
  INLINE_BUDGET_MS: z._default(wholeNumber(1), 1500),
  API_TIMEOUT_MS: z._default(wholeNumber(1), 10_000),
  DYNAMODB_CONNECT_TIMEOUT_MS: wholeNumber(1),
  DYNAMODB_REQUEST_TIMEOUT_MS: wholeNumber(1),
  DYNAMODB_MAX_ATTEMPTS: wholeNumber(1, 10),
  SLACK_STORAGE_BUDGET_MS: z._default(wholeNumber(1, 1500), DEFAULT_SLACK_STORAGE_BUDGET_MS),
};
const ConfigSchema = z.object(CONFIG_SHAPE);

export function loadConfig(env: Env = process.env): Config {
  // Only the environment's own properties count: a key inherited from a prototype was never set.
  const own: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(CONFIG_SHAPE)) if (Object.hasOwn(env, key)) own[key] = env[key];
  const isSet = (key: string) => own[key] !== undefined;
  const parsed = z.safeParse(ConfigSchema, own);
  // One problem per key, as a person fixes it: a number past 2^53 is both not whole and too big.
  const refused = new Map<string, string>();
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const key = String(issue.path[0]);
    if (!refused.has(key))
      refused.set(key, `${key}: must be ${issue.message}, ${describe(own, key, own[key])}`);
  }
  const problems = [...refused.values()];
  if (!isSet('KMS_KEY_ID') && !isSet('TOKEN_ENCRYPTION_KEY')) {
    problems.push('KMS_KEY_ID or TOKEN_ENCRYPTION_KEY must be set');
  }
  const slackAuth = slackAuthOf(parsed.success ? parsed.data : undefined, isSet, problems);
  if (problems.length > 0 || slackAuth === undefined || !parsed.success) {
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return { ...(parsed.data as Omit<Config, 'slackAuth'>), slackAuth };
}

function slackAuthOf(
  config: z.infer<typeof ConfigSchema> | undefined,
  isSet: (key: string) => boolean,
  problems: string[],
): SlackAuth | undefined {
  const present = MULTI_WORKSPACE_KEYS.filter(isSet);
  if (isSet('SLACK_BOT_TOKEN')) {
    if (present.length > 0) {
      problems.push(
        `SLACK_BOT_TOKEN (one workspace) and ${present.join(', ')} (many workspaces) are both set: set one mode only`,
      );
      return undefined;
    }
    return config?.SLACK_BOT_TOKEN === undefined
      ? undefined
      : { mode: 'single', botToken: config.SLACK_BOT_TOKEN };
  }
  if (present.length === 0) {
    problems.push(
      `set SLACK_BOT_TOKEN (one workspace) or ${MULTI_WORKSPACE_KEYS.join(', ')} (many workspaces)`,
    );
    return undefined;
  }
  const missing = MULTI_WORKSPACE_KEYS.filter((key) => !isSet(key));
  if (missing.length > 0) {
    problems.push(`many workspaces also need ${missing.join(', ')}`);
    return undefined;
  }
  if (!config?.SLACK_CLIENT_ID || !config.SLACK_CLIENT_SECRET || !config.SLACK_STATE_SECRET) return undefined;
  return {
    mode: 'multi',
    clientId: config.SLACK_CLIENT_ID,
    clientSecret: config.SLACK_CLIENT_SECRET,
    stateSecret: config.SLACK_STATE_SECRET,
    redirectUri: config.SLACK_REDIRECT_URI,
  };
}

function describe(own: Record<string, unknown>, key: string, value: unknown): string {
  if (value === undefined) return 'but it is not set';
  if (typeof value !== 'string') return `got a value of type ${value === null ? 'null' : typeof value}`;
  if (value.length === 0) return 'got ""';
  const secret = SECRET_KEYS.has(key) || [...SECRET_KEYS].some((name) => own[name] === value);
  if (secret || value.length > LONGEST_SHOWN_VALUE) return `got ${value.length} characters (not shown)`;
  return `got ${JSON.stringify(value)}`;
}
