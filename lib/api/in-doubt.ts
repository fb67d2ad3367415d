import { ApiError } from './errors.js';
import type { AnyOperation } from './operation.js';
import { requestNeverSent } from './retry.js';

/**
 * Whether a change's outcome is known from its call alone. Apart from reading a doubtful change
 * back (`outcome.ts`, which plans that read from the whole operations table), so a read, which is
 * never in doubt, loads none of that.
 */

/**
 * Whether `error`, thrown by a call of `op`, leaves its outcome unknown. Reads never are (they
 * change nothing); a 4xx is the API saying no, and a connection that never opened never carried
 * the request.
 */
export function isOutcomeInDoubt(op: AnyOperation, error: unknown): error is ApiError {
  if (op.method === 'GET' || !(error instanceof ApiError)) return false;
  switch (error.code) {
    case 'timeout':
    case 'aborted':
    case 'server_error':
    // A 2xx whose body did not match the published shape: the API did act.
    case 'invalid_response':
      return true;
    case 'network':
      return !requestNeverSent(error);
    default:
      return false;
  }
}
