import {
  type EmulatorOptions,
  type RunningEmulator,
  startEmulator,
} from '../../infra/local/emulator/server.js';
import { ApiClient, type ApiClientOptions } from '../../lib/api/client.js';
import { ApiError } from '../../lib/api/errors.js';
import type { AnyOperation } from '../../lib/api/operation.js';
import { getOperation, operations } from '../../lib/api/operations/index.js';

/**
 * Shared pieces of the emulator's tests: start one, find operations by the documents' names
 * (`METHOD /path`), call the client against it, and send raw HTTP when a test must get past the
 * client's own validation to show that the emulator enforces a rule too.
 */

export async function startTestEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ rateLimit: false, ...options });
}

/** The row of an operation named as the documents name it, e.g. `POST /volumes/{volumeId}/attach`. */
export function op(signature: string): AnyOperation {
  const found = operations.find((o) => `${o.method} ${o.path}` === signature);
  if (!found) throw new Error(`No operation ${signature} in the table`);
  return found;
}

export { getOperation };

export function clientFor(
  emulator: RunningEmulator,
  token: string | undefined,
  options: ApiClientOptions = {},
) {
  return new ApiClient({
    baseUrl: emulator.url,
    token,
    maxRetries: 0,
    ...options,
  });
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** One request without the client: path parameters are filled into the template as given. */
export async function raw(
  emulator: RunningEmulator,
  signature: string,
  options: {
    token?: string | undefined;
    params?: Record<string, string | number>;
    query?: Record<string, string | number>;
    body?: unknown;
    headers?: Record<string, string>;
  } = {},
): Promise<RawResponse> {
  const [method, template] = signature.split(' ') as [string, string];
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = options.params?.[name];
    if (value === undefined) throw new Error(`${signature}: no value for ${name}`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams(
    Object.entries(options.query ?? {}).map(([k, v]) => [k, String(v)] as [string, string]),
  ).toString();
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${emulator.url}${path}${query ? `?${query}` : ''}`, {
    method,
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** The `ApiError` a promise rejects with (fails the test when it resolves or throws something else). */
export async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** The reasons of an error body, for readable assertions. */
export function reasonsOf(body: unknown): string[] {
  const errors = (body as { errors?: { field?: string; reason: string }[] } | undefined)?.errors ?? [];
  return errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason));
}

export function reasonText(error: ApiError): string {
  return error.errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason)).join('; ');
}

/** A password that meets the strength requirement. */
export const STRONG_PASSWORD = 'c0rrect-Horse-battery';

/** One request without the client, from an operation's flat input split the way the row says. */
export async function rawFlat(
  emulator: RunningEmulator,
  signature: string,
  input: Record<string, unknown> = {},
  options: { token?: string | undefined; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const row = op(signature);
  const params: Record<string, string | number> = {};
  const query: Record<string, string | number> = {};
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if (row.pathParams.includes(name)) params[name] = value as string | number;
    else if (row.queryParams.includes(name)) query[name] = value as string | number;
    else body[name] = value;
  }
  const sendsBody = row.method === 'POST' || row.method === 'PUT';
  return raw(emulator, signature, {
    token: options.token,
    params,
    query,
    ...(sendsBody && { body }),
    ...(options.headers && { headers: options.headers }),
  });
}
