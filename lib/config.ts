import { z } from 'zod';

/**
 * The environment, parsed once. A missing or malformed key fails at start with its name, not
 * later as `undefined` in the middle of a request.
 */
const ConfigSchema = z.object({
  SLACK_SIGNING_SECRET: z.string().min(1),
  SLACK_BOT_TOKEN: z.string().min(1),
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
});

export type Config = z.infer<typeof ConfigSchema>;

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
  return config;
}
