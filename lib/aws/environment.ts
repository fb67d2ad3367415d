import type { Credentials } from 'aws4';

/**
 * The endpoint an SDK client for one service would take from the environment: the service's own
 * `AWS_ENDPOINT_URL_<SERVICE>`, else the global `AWS_ENDPOINT_URL` (empty counts as unset), unless
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is `true` (the SDK's `getEndpointFromConfig`, and
 * docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html). The clients that sign their
 * own requests (`lib/store/http-table.ts`, `lib/aws/lambda-invoke.ts`) go where the SDK would.
 */
function configuredEndpoint(
  env: Record<string, string | undefined>,
  service: { readonly envId: string; readonly label: string },
): string | undefined {
  const ignore = env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS;
  if (ignore !== undefined && ignore.toLowerCase() !== 'false') {
    if (ignore.toLowerCase() === 'true') return undefined;
    throw new Error(`${service.label}: AWS_IGNORE_CONFIGURED_ENDPOINT_URLS must be "true" or "false"`);
  }
  for (const name of [`AWS_ENDPOINT_URL_${service.envId}`, 'AWS_ENDPOINT_URL']) {
    const value = env[name];
    if (!value) continue;
    if (!URL.canParse(value)) throw new Error(`${service.label}: ${name} is not a URL`);
    return value;
  }
  return undefined;
}

export interface EnvironmentTarget {
  readonly endpoint?: string;
  readonly region: string;
  readonly credentials: Credentials;
}

/**
 * Where one service is and as whom, as the SDK would decide on Lambda: the function's region and
 * the role credentials Lambda puts in its environment, at the endpoint the environment names, if
 * any. `unsetHint` says what else would do when they are missing.
 */
export function environmentTarget(
  env: Record<string, string | undefined>,
  service: { readonly envId: string; readonly label: string; readonly unsetHint?: string },
): EnvironmentTarget {
  const { AWS_REGION: region, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = env;
  if (!region || !AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) {
    throw new Error(
      `${service.label}: AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set (Lambda sets them)${service.unsetHint ?? ''}`,
    );
  }
  const configured = configuredEndpoint(env, service);
  return {
    ...(configured ? { endpoint: configured } : {}),
    region,
    credentials: {
      accessKeyId: AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_SECRET_ACCESS_KEY,
      ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
    },
  };
}
