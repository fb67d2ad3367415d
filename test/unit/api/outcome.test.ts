import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/api/errors.js';
import { isOutcomeInDoubt } from '../../../lib/api/in-doubt.js';
import { getOperation, operations } from '../../../lib/api/operations/index.js';
import { checkCommandFor, outcomePlanFor } from '../../../lib/api/outcome.js';

/** Which failed changes are "in doubt", and how each kind of change is read back. */

const del = getOperation('volumes.delete');
const create = getOperation('volumes.create');

function networkError(code: string): ApiError {
  const cause = Object.assign(new Error(code), { code });
  return new ApiError('network', 'network', { cause });
}

describe('isOutcomeInDoubt', () => {
  it.each([
    ['a timeout', new ApiError('timeout', 't')],
    ['a 503', new ApiError('server_error', 's', { status: 503 })],
    ['a connection reset after sending', networkError('ECONNRESET')],
    ['a 2xx whose body could not be read', new ApiError('invalid_response', 'r', { status: 200 })],
  ])('%s on a change: in doubt', (_name, error) => {
    expect(isOutcomeInDoubt(del, error)).toBe(true);
    expect(isOutcomeInDoubt(create, error)).toBe(true);
  });

  it.each([
    ['a 400', new ApiError('bad_request', 'b', { status: 400 })],
    ['a 404', new ApiError('not_found', 'n', { status: 404 })],
    ['a 429', new ApiError('rate_limited', 'r', { status: 429 })],
    ['a refused connection (never sent)', networkError('ECONNREFUSED')],
  ])('%s: not in doubt, the API did not act', (_name, error) => {
    expect(isOutcomeInDoubt(del, error)).toBe(false);
  });

  it('a read is never in doubt', () => {
    expect(isOutcomeInDoubt(getOperation('volumes.list'), new ApiError('timeout', 't'))).toBe(false);
  });
});

describe('outcomePlanFor', () => {
  it('a delete is read back as gone through its view', () => {
    expect(outcomePlanFor(del, { volumeId: 12 })).toMatchObject({
      strategy: 'gone',
      view: { id: 'volumes.view' },
      viewInput: { volumeId: 12 },
    });
  });

  it('an update is read back as its requested values', () => {
    expect(outcomePlanFor(getOperation('volumes.update'), { volumeId: 12, label: 'x' })).toMatchObject({
      strategy: 'matches',
      expected: { label: 'x' },
    });
  });

  it('a create is read back as a new item with its label, filtered when the list can filter', () => {
    expect(outcomePlanFor(create, { label: 'data', region: 'us-east', size: 20 })).toMatchObject({
      strategy: 'appears',
      list: { id: 'volumes.list' },
      filter: { label: 'data' },
    });
    expect(
      outcomePlanFor(getOperation('profile.sshkeys-create'), { label: 'k', ssh_key: 'ssh-ed25519 A' }),
    ).toMatchObject({ strategy: 'appears', filter: undefined });
  });

  it('a resize is read back as the new size', () => {
    expect(outcomePlanFor(getOperation('volumes.resize'), { volumeId: 3, size: 40 })).toMatchObject({
      strategy: 'matches',
      expected: { size: 40 },
    });
  });

  it('every delete of the table has a plan, and every change a command to check with', () => {
    const deletes = operations.filter((op) => op.method === 'DELETE');
    const withoutPlan = deletes.filter((op) => {
      const input = Object.fromEntries(op.pathParams.map((p) => [p, 1]));
      return outcomePlanFor(op, input) === undefined;
    });
    // The phone number has no id and no view of its own.
    expect(withoutPlan.map((op) => op.id)).toEqual(['profile.phone-number-delete']);
    for (const op of operations.filter((o) => o.method !== 'GET')) {
      expect(checkCommandFor(op, {})).toMatch(/^\/cloud [a-z]+ [a-z-]+/);
    }
  });
});
