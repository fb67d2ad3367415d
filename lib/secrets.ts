/**
 * In AWS the Slack secrets live in SSM Parameter Store (SecureString) and the functions get only
 * the parameter names (`SLACK_SIGNING_SECRET_PARAM`, `SLACK_BOT_TOKEN_PARAM`); they are read once
 * per cold start, with decryption, and never land in the function's configuration. Locally the
 * values are in the environment directly.
 */
const SECRET_KEYS = [
  'SLACK_SIGNING_SECRET',
  'SLACK_BOT_TOKEN',
  'SLACK_CLIENT_ID',
  'SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
] as const;

export async function withSecretsFromSsm(
  env: Record<string, string | undefined>,
): Promise<Record<string, string | undefined>> {
  const wanted = SECRET_KEYS.filter((key) => !env[key] && env[`${key}_PARAM`]);
  if (wanted.length === 0) return env;
  // Loaded only when secrets live in SSM (in AWS): the local stack and tests never pay for it.
  const { getParametersByName } = await import('@aws-lambda-powertools/parameters/ssm');
  const names = Object.fromEntries(wanted.map((key) => [env[`${key}_PARAM`] as string, {}]));
  // The parameters that exist choose the mode (one workspace or many); `loadConfig` names what
  // is missing or set twice, so an absent parameter is not an error here.
  const values: Record<string, unknown> = await getParametersByName(names, {
    decrypt: true,
    throwOnError: false,
  });
  const resolved = { ...env };
  for (const key of wanted) {
    const value = values[env[`${key}_PARAM`] as string];
    if (typeof value === 'string') resolved[key] = value;
  }
  return resolved;
}
