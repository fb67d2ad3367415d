import type { IncomingHttpHeaders } from 'node:http';
import { ConnectTimeoutError } from '../http-exchange.js';
import { sdkBackoffMs } from './backoff.js';
import { environmentTarget } from './environment.js';
import { type AwsClientOptions, signedPoster } from './signed-post.js';

/**
 * Lambda's `Invoke` with `InvocationType: 'Event'` (docs.aws.amazon.com/lambda/latest/api/
 * API_Invoke.html): one SigV4-signed `POST /2015-03-31/functions/{FunctionName}/invocations` over
 * `node:http(s)`, header `X-Amz-Invocation-Type: Event`, the payload as the body; 202 means Lambda
 * queued the event.
 *
 * Why not `@aws-sdk/client-lambda`: the Slack function hands an approved change to the worker
 * with this one call, and loading the SDK's client cost that answer 55–63 ms of CPU on a cold
 * start, the largest avoidable part of it. The DynamoDB table made the same choice
 * (`lib/store/http-table.ts`).
 *
 * Kept of the SDK's behaviour: errors are shaped as its service exceptions (`name` the error type
 * from `x-amzn-ErrorType`, `$metadata.httpStatusCode` the status); its standard retry strategy
 * for throttling (429, `TooManyRequestsException`, backoff base 500 ms, `Retry-After` honoured up
 * to 5 s past the backoff) and for 5xx (`ServiceException` and the like, base 100 ms), random ×
 * 2^retry × base capped at 20 s, three attempts in all.
 *
 * One deliberate difference, for truthfulness: an attempt whose request was sent in full and
 * that then got no answer (timeout, connection reset) may have been queued, so it is not sent
 * again (that could run the job twice) and fails with `InvokeUnconfirmedError`. The SDK had no
 * timeout at all, so a hung invoke held the Slack answer until the function timed out.
 */

/** `endpoint` is the local stand-in's URL where one runs; `maxAttempts` counts per invoke. */
export type LambdaInvokerOptions = AwsClientOptions;

export interface LambdaInvoker {
  /** Resolves once Lambda accepted the event (2xx); throws otherwise. */
  invokeEvent(functionName: string, payload: string): Promise<void>;
  /** Closes idle connections (tests; Lambda just freezes). */
  destroy(): void;
}

/** The Slack function's limits: an Event invoke answers in tens of milliseconds. */
export const INVOKE_DEFAULTS = { connectTimeoutMs: 500, requestTimeoutMs: 1500, maxAttempts: 3 } as const;

/** An error Lambda answered with, shaped as the SDK's service exceptions are. */
export class LambdaServiceError extends Error {
  readonly $metadata: { readonly httpStatusCode: number };

  constructor(type: string, status: number, message: string | undefined) {
    super(message ?? `Lambda answered ${status} ${type}`);
    this.name = type;
    this.$metadata = { httpStatusCode: status };
  }
}

/** The request reached Lambda in full and no answer came: the event may or may not be queued. */
export class InvokeUnconfirmedError extends Error {
  override readonly name = 'InvokeUnconfirmedError';
}

/** The SDK's throttling error types (`@smithy/core` retry, THROTTLING_ERROR_CODES) Lambda uses. */
const THROTTLING_TYPES = new Set(['TooManyRequestsException', 'ThrottlingException', 'RequestLimitExceeded']);
/** Failures before any byte of the request could have reached Lambda. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** How far past its own backoff the SDK follows a `Retry-After` hint. */
const RETRY_AFTER_EXTRA_MS = 5_000;

type Attempt =
  | {
      readonly kind: 'answered';
      readonly status: number;
      readonly headers: IncomingHttpHeaders;
      readonly text: string;
    }
  | { readonly kind: 'not_sent'; readonly error: unknown }
  | { readonly kind: 'unconfirmed'; readonly error: unknown };

export function createLambdaInvoker(
  options: LambdaInvokerOptions,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => number = Math.random,
): LambdaInvoker {
  const lambda = signedPoster(options, 'lambda', 'Lambda');

  const attempt = async (functionName: string, body: string): Promise<Attempt> => {
    let sent = false;
    try {
      const answer = await lambda.post(
        `/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`,
        { 'content-type': 'application/json', 'x-amz-invocation-type': 'Event' },
        body,
        // Once the whole request is handed to the connection, Lambda may act on it.
        () => {
          sent = true;
        },
      );
      return {
        kind: 'answered',
        status: answer.status,
        headers: answer.headers,
        text: answer.body.toString('utf8'),
      };
    } catch (error) {
      return sent && !(error instanceof ConnectTimeoutError) && !NOT_SENT_CODES.has(codeOf(error))
        ? { kind: 'unconfirmed', error }
        : { kind: 'not_sent', error };
    }
  };

  return {
    async invokeEvent(functionName, payload) {
      for (let retries = 0; ; retries++) {
        const result = await attempt(functionName, payload);
        let error: unknown;
        let throttled = false;
        let retryAfterMs: number | undefined;
        if (result.kind === 'unconfirmed') {
          throw new InvokeUnconfirmedError(
            `Lambda: the event for ${functionName} was sent but not confirmed; it may have been queued`,
            { cause: result.error },
          );
        }
        if (result.kind === 'not_sent') {
          error = result.error;
        } else {
          if (result.status >= 200 && result.status < 300) return;
          const type = errorType(result.headers, result.text, result.status);
          error = new LambdaServiceError(type, result.status, messageOf(result.text));
          throttled = result.status === 429 || THROTTLING_TYPES.has(type);
          if (!throttled && result.status < 500) throw error;
          retryAfterMs = retryAfterOf(result.headers['retry-after']);
        }
        if (retries + 1 >= options.maxAttempts) throw error;
        const backoff = sdkBackoffMs(retries, throttled, random);
        await wait(
          retryAfterMs === undefined
            ? backoff
            : Math.max(backoff, Math.min(retryAfterMs, backoff + RETRY_AFTER_EXTRA_MS)),
        );
      }
    },
    destroy() {
      lambda.destroy();
    },
  };
}

/**
 * Where Lambda is and as whom, as the SDK would decide: the function's region and the role
 * credentials Lambda puts in its environment, at the endpoint the environment names, if any.
 */
export function lambdaTarget(
  env: Record<string, string | undefined>,
): Pick<LambdaInvokerOptions, 'endpoint' | 'region' | 'credentials'> {
  return environmentTarget(env, { envId: 'LAMBDA', label: 'Lambda' });
}

/**
 * REST-JSON errors: the type in `x-amzn-ErrorType` (`TooManyRequestsException:http://…` at
 * times), else the body's `__type` or `code`.
 */
function errorType(headers: IncomingHttpHeaders, text: string, status: number): string {
  const header = headers['x-amzn-errortype'];
  const fromHeader = typeof header === 'string' ? header.split(':')[0]?.trim() : undefined;
  if (fromHeader) return fromHeader;
  const body = parseBody(text);
  for (const field of ['__type', 'code']) {
    const value = body[field];
    if (typeof value === 'string' && value !== '') return value.slice(value.lastIndexOf('#') + 1);
  }
  return status >= 500 ? 'ServiceException' : 'UnknownError';
}

function messageOf(text: string): string | undefined {
  const body = parseBody(text);
  const message = body.message ?? body.Message;
  return typeof message === 'string' ? message : undefined;
}

/** `Retry-After` in seconds or as an HTTP date, as the SDK reads it. */
function retryAfterOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function parseBody(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}
