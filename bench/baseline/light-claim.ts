import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type Credentials, sign } from 'aws4';

/**
 * The delivery claim of `lib/store/delivery-claims.ts` — the same item, the same condition, the
 * same answer (true for the first claim, false for a repeat) — sent as one SigV4-signed request in
 * DynamoDB's JSON protocol over `node:http(s)` instead of through the AWS SDK. A cold-start
 * experiment only (bench code, never `lib/`): it measures what the SDK's load and first request
 * cost the Slack function's first answer.
 *
 * Kept as close to the bot's client as a few lines allow: a keep-alive agent (as the SDK's), a
 * limit per attempt and as many attempts as the Slack function's client, retrying what the SDK
 * retries (network errors, timeouts, 5xx, throttling). The SDK's separate connect limit is folded
 * into the attempt's limit, which is longer.
 */

const CLAIM_SORT_KEY = 'CLAIM';
const CLAIM_SECONDS = 60 * 60;
const MAX_KEY_LENGTH = 512;
const RETRYABLE_TYPES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
]);

export interface LightClaimOptions {
  readonly tableName: string;
  /** DynamoDB Local's URL; absent in AWS, where the regional endpoint is used over HTTPS. */
  readonly endpoint?: string | undefined;
  readonly region: string;
  readonly credentials: Credentials;
  readonly requestTimeoutMs: number;
  readonly maxAttempts: number;
  readonly now: () => Date;
}

export interface LightClaims {
  claimOnce(key: string): Promise<boolean>;
}

interface DynamoResponse {
  readonly status: number;
  readonly body: string;
}

class RetryableError extends Error {
  override readonly name = 'RetryableError';
}

export function createLightClaims(options: LightClaimOptions): LightClaims {
  const url = new URL(options.endpoint ?? `https://dynamodb.${options.region}.amazonaws.com`);
  const secure = url.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;

  const attempt = (body: string): Promise<DynamoResponse> => {
    const signed = sign(
      {
        host: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        method: 'POST',
        path: '/',
        service: 'dynamodb',
        region: options.region,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.PutItem',
        },
        body,
      },
      options.credentials,
    );
    return new Promise((resolve, reject) => {
      const request = send({ ...signed, agent }, (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', (error) => {
          clearTimeout(timer);
          reject(new RetryableError('DynamoDB response failed', { cause: error }));
        });
      });
      const timer = setTimeout(
        () => request.destroy(new RetryableError(`no answer within ${options.requestTimeoutMs} ms`)),
        options.requestTimeoutMs,
      );
      request.on('error', (error) => {
        clearTimeout(timer);
        reject(error instanceof RetryableError ? error : new RetryableError(error.message, { cause: error }));
      });
      request.end(body);
    });
  };

  return {
    async claimOnce(key) {
      // As the bot's claim: control characters would make keys that look alike in logs differ.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting them is the point
      if (key.length === 0 || key.length > MAX_KEY_LENGTH || /[\u0000-\u001f]/.test(key)) {
        throw new Error('Invalid delivery key.');
      }
      const at = options.now();
      const now = Math.floor(at.getTime() / 1000);
      const body = JSON.stringify({
        TableName: options.tableName,
        Item: {
          pk: { S: `CLAIM#${key}` },
          sk: { S: CLAIM_SORT_KEY },
          kind: { S: 'delivery_claim' },
          claimed_at: { S: at.toISOString() },
          expires_at: { N: String(now + CLAIM_SECONDS) },
        },
        ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
        ExpressionAttributeValues: { ':now': { N: String(now) } },
      });
      let lastError: unknown;
      for (let tries = 1; tries <= options.maxAttempts; tries++) {
        let response: DynamoResponse;
        try {
          response = await attempt(body);
        } catch (error) {
          if (!(error instanceof RetryableError)) throw error;
          lastError = error;
          continue;
        }
        if (response.status === 200) return true;
        const type = errorType(response.body);
        if (type === 'ConditionalCheckFailedException') return false;
        lastError = new Error(`DynamoDB PutItem failed: ${response.status} ${type ?? 'unknown error'}`);
        if (response.status < 500 && !RETRYABLE_TYPES.has(type ?? '')) throw lastError;
      }
      throw lastError;
    },
  };
}

/** `__type` is `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` or similar. */
function errorType(body: string): string | undefined {
  try {
    const type = (JSON.parse(body) as { __type?: unknown }).__type;
    return typeof type === 'string' ? type.slice(type.lastIndexOf('#') + 1) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where the claim goes and as whom, as `createDynamoDbClient` decides: DynamoDB Local's fixed
 * region and keys when an endpoint is configured, else the function's region and the credentials
 * Lambda puts in its environment.
 */
export function lightClaimTarget(
  endpoint: string | undefined,
  env: Record<string, string | undefined>,
): Pick<LightClaimOptions, 'endpoint' | 'region' | 'credentials'> {
  if (endpoint) {
    return { endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  }
  const region = env.AWS_REGION;
  if (!region) throw new Error('AWS_REGION is not set');
  return {
    region,
    credentials: {
      ...(env.AWS_ACCESS_KEY_ID ? { accessKeyId: env.AWS_ACCESS_KEY_ID } : {}),
      ...(env.AWS_SECRET_ACCESS_KEY ? { secretAccessKey: env.AWS_SECRET_ACCESS_KEY } : {}),
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
    },
  };
}
