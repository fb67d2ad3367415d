import aws4, { type Credentials } from 'aws4';
import { exchange, type HttpAnswer, ownKeepAliveAgent } from '../http-exchange.js';

/**
 * Where an AWS service answers, as whom, and how long its calls may take: what the DynamoDB table
 * (`lib/store/http-table.ts`) and the Lambda hand-off (`lambda-invoke.ts`) are built with.
 */
export interface AwsClientOptions {
  /** A local stand-in's URL; absent in AWS, where the region's endpoint is used over HTTPS. */
  readonly endpoint?: string | undefined;
  readonly region: string;
  readonly credentials: Credentials;
  readonly connectTimeoutMs: number;
  /** One attempt, from sending the request to the end of the answer. */
  readonly requestTimeoutMs: number;
  /** Attempts per call, the first included. */
  readonly maxAttempts: number;
}

export interface SignedPoster {
  /**
   * One attempt: `body` POSTed to `path`, signed with SigV4, and its whole answer; failures are
   * `exchange`'s. `onSent` is called once the request is handed to the connection.
   */
  post(path: string, headers: Record<string, string>, body: string, onSent?: () => void): Promise<HttpAnswer>;
  /** Closes idle connections (tests and the local stack; Lambda just freezes). */
  destroy(): void;
}

/**
 * SigV4-signed POSTs to one AWS service over keep-alive connections of its own. `service` is the
 * name SigV4 signs for and the region's endpoint starts with (`dynamodb`, `lambda`); `label` names
 * it in timeout messages.
 */
export function signedPoster(options: AwsClientOptions, service: string, label: string): SignedPoster {
  const url = new URL(options.endpoint ?? `https://${service}.${options.region}.amazonaws.com`);
  const agent = ownKeepAliveAgent(url);
  return {
    post(path, headers, body, onSent) {
      const signed = aws4.sign(
        {
          host: url.hostname,
          ...(url.port ? { port: Number(url.port) } : {}),
          method: 'POST',
          path,
          service,
          region: options.region,
          headers,
          body,
        },
        options.credentials,
      );
      return exchange({
        url: new URL(path, url),
        method: 'POST',
        headers: signed.headers,
        body,
        agent,
        service: label,
        connectTimeoutMs: options.connectTimeoutMs,
        answerTimeoutMs: options.requestTimeoutMs,
        onSent,
      });
    },
    destroy: () => agent.destroy(),
  };
}
