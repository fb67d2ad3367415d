/**
 * The endpoint an SDK client for one service would take from the environment: the service's own
 * `AWS_ENDPOINT_URL_<SERVICE>`, else the global `AWS_ENDPOINT_URL` (empty counts as unset), unless
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is `true` (the SDK's `getEndpointFromConfig`, and
 * docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html). The clients that sign their
 * own requests (`lib/store/http-table.ts`, `lib/aws/lambda-invoke.ts`) go where the SDK would.
 */
export function configuredEndpoint(
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
