import { isApiError } from '../api/errors.js';

/**
 * A short, safe description of why a report or a check failed, for the tick summary, logs and
 * replies: an error code, never a message that could carry a token or a response body.
 */
export function failureReason(error: unknown): string {
  if (isApiError(error)) return `api:${error.code}${error.status ? ` (${error.status})` : ''}`;
  if (typeof error === 'object' && error !== null) {
    const { code, data } = error as { code?: unknown; data?: { error?: unknown } };
    if (typeof data?.error === 'string') return `slack:${data.error}`;
    if (typeof code === 'string') return code;
  }
  return error instanceof Error ? error.name : 'unknown';
}
