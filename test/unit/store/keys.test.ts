import { describe, expect, it } from 'vitest';
import { keys, parseMemberKey, parseUserPartition } from '../../../lib/store/keys.js';

/** The member backfill reads teams and users back from keys; it must read only what keys.ts writes. */
describe('reading a user partition key', () => {
  it('gives back the team and user keys.user was built from', () => {
    expect(parseUserPartition(keys.user('T0ABC', 'U0XYZ'))).toEqual({ team: 'T0ABC', user: 'U0XYZ' });
  });

  it.each([
    keys.team('T0ABC'),
    `${keys.user('T0ABC', 'U0XYZ')}#MORE`,
    'TEAM##USER#U0XYZ',
    'CLAIM#TEAM#T0ABC#USER#U0XYZ',
    'IDEMPOTENCY#worker',
    keys.enterprise('E0ORG'),
  ])('is not fooled by %s', (pk) => {
    expect(parseUserPartition(pk)).toBeUndefined();
  });
});

describe('reading a member key', () => {
  it('gives back the team and user of a member item', () => {
    expect(parseMemberKey(keys.team('T0ABC'), keys.member('U0XYZ'))).toEqual({
      team: 'T0ABC',
      user: 'U0XYZ',
    });
  });

  it.each([
    [keys.team('T0ABC'), keys.policy],
    [keys.team('T0ABC'), 'MEMBER#'],
    [keys.team('T0ABC'), 'MEMBER#U0X#Y'],
    [keys.user('T0ABC', 'U0XYZ'), keys.member('U0XYZ')],
  ])('is not fooled by %s / %s', (pk, sk) => {
    expect(parseMemberKey(pk, sk)).toBeUndefined();
  });
});
