import { type ApiCallEvent, ApiClient, type RequestDispatcher } from './client.js';

/**
 * The one place production code builds an `ApiClient`, so every caller (commands, approvals,
 * reports, watches, login, probes) carries the same transport settings and the per-operation
 * metrics hook. Tests may still build clients by hand.
 */

export interface ApiSettings {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly dispatcher?: RequestDispatcher | undefined;
  /** Every attempt of every call, for metrics. */
  readonly onCall?: ((event: ApiCallEvent) => void) | undefined;
}

/** What a caller may narrow for its own use; the metrics hook is not among them. */
export interface ApiClientTuning {
  /** A shorter budget than the settings' (a probe inside Slack's inline budget). */
  readonly timeoutMs?: number | undefined;
  readonly maxRetries?: number | undefined;
  /** Sees every attempt after the metrics hook (scopes of a token, per-account counts). */
  readonly observe?: ((event: ApiCallEvent) => void) | undefined;
}

export function createApiClient(
  api: ApiSettings,
  token: string | undefined,
  tuning: ApiClientTuning = {},
): ApiClient {
  const hooks = [api.onCall, tuning.observe].filter((hook) => hook !== undefined);
  return new ApiClient({
    baseUrl: api.baseUrl,
    token,
    timeoutMs: tuning.timeoutMs ?? api.timeoutMs,
    ...(tuning.maxRetries !== undefined ? { maxRetries: tuning.maxRetries } : {}),
    ...(api.dispatcher ? { dispatcher: api.dispatcher } : {}),
    ...(hooks.length > 0 ? { onResponse: (event: ApiCallEvent) => notifyEach(hooks, event) } : {}),
  });
}

// One failing hook must not keep the others from seeing the call (metrics must not hide scopes).
function notifyEach(hooks: readonly ((event: ApiCallEvent) => void)[], event: ApiCallEvent): void {
  for (const hook of hooks) {
    try {
      hook(event);
    } catch {
      // Observability never changes the outcome of a call.
    }
  }
}
