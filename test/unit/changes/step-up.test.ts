import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  askForStepUp,
  CODE_PERIOD_SECONDS,
  checkCode,
  codeAt,
  codeStep,
  LOCKOUT_WINDOW_MINUTES,
  lockoutWindow,
  MAX_WRONG_CODES,
  passkeyCounts,
  proveStepUp,
  startCodeEnrollment,
} from '../../../lib/changes/step-up.js';
import { createStore, type Store } from '../../../lib/store/index.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * Authenticator codes for step-up, on a clock the test moves: one step of skew either way, each
 * code once, and a lockout after too many wrong ones that even a right code does not get past.
 */

const TEAM = 'T0STEP';
const STEP_MS = CODE_PERIOD_SECONDS * 1000;

let table: TestTable;
let store: Store;
let userCounter = 0;
beforeAll(async () => {
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
});
afterAll(() => table.dispose());
beforeEach(() => {
  // The start of a lockout window, a few steps in: no test straddles a window by accident.
  table.clock.set(new Date(Date.UTC(2030, 0, 15, 9, 0, 5)));
});

/** A person with a confirmed authenticator app; returns them and its secret. */
async function enrolled(): Promise<{ user: string; secret: string }> {
  const user = `U0P${String(++userCounter).padStart(4, '0')}`;
  const started = await startCodeEnrollment(store, TEAM, user, user);
  if (started.kind !== 'started') throw new Error('not started');
  expect(await checkCode(store, TEAM, user, codeAt(started.secret, table.clock.now()), true)).toEqual({
    kind: 'accepted',
  });
  // The confirming code is used up; the tests start at the next step.
  table.clock.advance(STEP_MS);
  return { user, secret: started.secret };
}

describe('codeStep (RFC 6238, 6 digits, 30 s, one step of skew)', () => {
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const now = new Date(Date.UTC(2030, 0, 15, 9, 0, 15));

  it('takes the code of now, of the step before and of the step after', () => {
    const step = Math.floor(now.getTime() / STEP_MS);
    expect(codeStep(secret, codeAt(secret, now), now)).toEqual({ ok: true, step });
    expect(codeStep(secret, codeAt(secret, new Date(now.getTime() - STEP_MS)), now)).toEqual({
      ok: true,
      step: step - 1,
    });
    expect(codeStep(secret, codeAt(secret, new Date(now.getTime() + STEP_MS)), now)).toEqual({
      ok: true,
      step: step + 1,
    });
  });

  it('refuses a code two steps off, and anything that is not six digits', () => {
    expect(codeStep(secret, codeAt(secret, new Date(now.getTime() - 2 * STEP_MS)), now)).toEqual({
      ok: false,
    });
    for (const junk of ['', '12345', '1234567', 'abcdef', '12 34 5x', '{code}']) {
      expect(codeStep(secret, junk, now)).toEqual({ ok: false });
    }
  });
});

describe('checkCode', () => {
  it('accepts a current code once; the same code again is a replay', async () => {
    const { user, secret } = await enrolled();
    const code = codeAt(secret, table.clock.now());
    expect(await checkCode(store, TEAM, user, code)).toEqual({ kind: 'accepted' });
    expect(await checkCode(store, TEAM, user, code)).toEqual({
      kind: 'replayed',
      attemptsLeft: MAX_WRONG_CODES - 1,
    });
  });

  it('refuses an older code after a newer one was used (within the skew window)', async () => {
    const { user, secret } = await enrolled();
    const now = table.clock.now();
    expect(await checkCode(store, TEAM, user, codeAt(secret, new Date(now.getTime() + STEP_MS)))).toEqual({
      kind: 'accepted',
    });
    expect((await checkCode(store, TEAM, user, codeAt(secret, now))).kind).toBe('replayed');
  });

  it(`locks out after ${MAX_WRONG_CODES} wrong codes, refuses a right code until the window ends, then accepts`, async () => {
    const { user, secret } = await enrolled();
    const wrong = codeAt(secret, new Date(table.clock.now().getTime() + 10 * STEP_MS));
    for (let left = MAX_WRONG_CODES - 1; left > 0; left--) {
      expect(await checkCode(store, TEAM, user, wrong)).toEqual({ kind: 'wrong', attemptsLeft: left });
    }
    const until = lockoutWindow(table.clock.now()).end;
    expect(await checkCode(store, TEAM, user, wrong)).toEqual({ kind: 'locked_out', until });
    expect(await checkCode(store, TEAM, user, codeAt(secret, table.clock.now()))).toEqual({
      kind: 'locked_out',
      until,
    });
    expect(
      await askForStepUp(store, {
        team: TEAM,
        user,
        approval: { id: 'a1' },
        decision: 'approve',
        requirement: 'code',
      }),
    ).toEqual({ kind: 'locked_out', until });
    table.clock.set(until);
    expect(until.getTime() - lockoutWindow(new Date(until.getTime() - 1)).start.getTime()).toBe(
      LOCKOUT_WINDOW_MINUTES * 60_000,
    );
    expect(await checkCode(store, TEAM, user, codeAt(secret, table.clock.now()))).toEqual({
      kind: 'accepted',
    });
  });

  it(`judges no more than ${MAX_WRONG_CODES} of 20 wrong codes sent at once, and locks out the rest`, async () => {
    const { user, secret } = await enrolled();
    const wrong = codeAt(secret, new Date(table.clock.now().getTime() + 10 * STEP_MS));
    // Judging a code needs its secret: each read of it is one code judged.
    let judged = 0;
    const stepUp = new Proxy(store.stepUp, {
      get(target, name) {
        const value = Reflect.get(target, name, target) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (name === 'secret') judged++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const counting = { stepUp, now: () => store.now() };
    const checks = await Promise.all(
      Array.from({ length: 20 }, () => checkCode(counting, TEAM, user, wrong)),
    );
    expect(judged).toBe(MAX_WRONG_CODES);
    expect(checks.filter((check) => check.kind === 'wrong')).toHaveLength(MAX_WRONG_CODES - 1);
    expect(checks.filter((check) => check.kind === 'locked_out')).toHaveLength(20 - (MAX_WRONG_CODES - 1));
    expect(await store.stepUp.failures(TEAM, user, lockoutWindow(table.clock.now()).start)).toBe(
      MAX_WRONG_CODES,
    );
  });

  it('a right code does not count towards the lockout', async () => {
    const { user, secret } = await enrolled();
    for (let i = 0; i < MAX_WRONG_CODES + 1; i++) {
      expect(await checkCode(store, TEAM, user, codeAt(secret, table.clock.now()))).toEqual({
        kind: 'accepted',
      });
      table.clock.advance(STEP_MS);
    }
    expect(await store.stepUp.failures(TEAM, user, lockoutWindow(table.clock.now()).start)).toBe(0);
  });

  it('a pending enrollment takes no code but its confirmation; none at all is not enrolled', async () => {
    const user = 'U0PENDING';
    const started = await startCodeEnrollment(store, TEAM, user, user);
    if (started.kind !== 'started') throw new Error('not started');
    const code = codeAt(started.secret, table.clock.now());
    expect(await checkCode(store, TEAM, user, code)).toEqual({ kind: 'not_enrolled' });
    expect(await checkCode(store, TEAM, 'U0NOBODY', code)).toEqual({ kind: 'not_enrolled' });
  });

  it('keeps the secret sealed at rest: the stored item does not hold it', async () => {
    const user = 'U0SEALED';
    const started = await startCodeEnrollment(store, TEAM, user, user);
    if (started.kind !== 'started') throw new Error('not started');
    const raw = await table.ctx.table.get({
      TableName: table.ctx.tableName,
      Key: { pk: `TEAM#${TEAM}`, sk: `STEPUP#CODE#${user}` },
    });
    expect(raw.Item).toBeDefined();
    expect(JSON.stringify(raw.Item)).not.toContain(started.secret);
  });
});

describe('removing a workspace', () => {
  it('deletes every enrollment (and its sealed secret) of the team, and no other team’s', async () => {
    const team = 'T0GONE';
    for (const user of ['U0GONE1', 'U0GONE2']) await startCodeEnrollment(store, team, user, user);
    await startCodeEnrollment(store, 'T0KEPT', 'U0KEPT', 'U0KEPT');
    expect(await store.stepUp.deleteTeam(team)).toBe(2);
    expect(await store.stepUp.enrollment(team, 'U0GONE1')).toBeUndefined();
    expect(await store.stepUp.enrollment('T0KEPT', 'U0KEPT')).toBeDefined();
  });
});

describe('proveStepUp', () => {
  async function challenge(user: string, methods: 'code' | 'passkey' | 'any' = 'code') {
    const need = await askForStepUp(store, {
      team: TEAM,
      user,
      approval: { id: 'req-1' },
      decision: 'approve',
      requirement: methods,
    });
    if (need.kind !== 'code' && need.kind !== 'passkey') throw new Error(need.kind);
    return need.challenge;
  }

  it('uses a challenge once, only for its person, only before it expires', async () => {
    const { user, secret } = await enrolled();
    const other = await enrolled();
    const first = await challenge(user);
    expect(
      await proveStepUp(store, TEAM, other.user, first.id, {
        method: 'code',
        code: codeAt(other.secret, table.clock.now()),
      }),
    ).toEqual({ kind: 'challenge_unusable' });
    const proved = await proveStepUp(store, TEAM, user, first.id, {
      method: 'code',
      code: codeAt(secret, table.clock.now()),
    });
    expect(proved).toMatchObject({ kind: 'proved', challenge: { id: first.id, approvalId: 'req-1' } });
    table.clock.advance(STEP_MS);
    expect(
      await proveStepUp(store, TEAM, user, first.id, {
        method: 'code',
        code: codeAt(secret, table.clock.now()),
      }),
    ).toEqual({ kind: 'challenge_unusable' });

    const late = await challenge(user);
    table.clock.advance(10 * 60_000);
    expect(
      await proveStepUp(store, TEAM, user, late.id, {
        method: 'code',
        code: codeAt(secret, table.clock.now()),
      }),
    ).toEqual({ kind: 'challenge_unusable' });
  });

  async function withPasskey(user: string) {
    await store.passkeys.save(TEAM, user, {
      id: Buffer.from(`key-of-${user}`).toString('base64url'),
      publicKey: new Uint8Array(77).fill(7),
      counter: 0,
      transports: ['internal'],
    });
  }

  it('a code does not complete a passkey challenge; a verified passkey does', async () => {
    const { user, secret } = await enrolled();
    await withPasskey(user);
    const passkeyOnly = await challenge(user, 'passkey');
    expect(
      await proveStepUp(store, TEAM, user, passkeyOnly.id, {
        method: 'code',
        code: codeAt(secret, table.clock.now()),
      }),
    ).toEqual({ kind: 'wrong_method' });
    expect(
      await proveStepUp(store, TEAM, user, passkeyOnly.id, { method: 'passkey', credentialId: 'cred-1' }),
    ).toMatchObject({ kind: 'proved' });
  });

  it('asks for a passkey only of someone who has one; with `any`, a code when enrolled, else a passkey', async () => {
    const ask = (user: string, requirement: 'passkey' | 'any') =>
      askForStepUp(store, { team: TEAM, user, approval: { id: 'req-2' }, decision: 'approve', requirement });
    const nobody = `U0NONE${Math.random().toString(36).slice(2, 6)}`;
    expect(await ask(nobody, 'passkey')).toEqual({ kind: 'not_enrolled', requirement: 'passkey' });
    expect(await ask(nobody, 'any')).toEqual({ kind: 'not_enrolled', requirement: 'any' });

    const { user: codeOnly } = await enrolled();
    expect(await ask(codeOnly, 'passkey')).toEqual({ kind: 'not_enrolled', requirement: 'passkey' });
    expect(await ask(codeOnly, 'any')).toMatchObject({ kind: 'code', challenge: { methods: 'any' } });

    const passkeyOnly = `U0PK${Math.random().toString(36).slice(2, 6)}`;
    await withPasskey(passkeyOnly);
    expect(await ask(passkeyOnly, 'any')).toMatchObject({ kind: 'passkey', challenge: { methods: 'any' } });
    expect(await ask(passkeyOnly, 'passkey')).toMatchObject({
      kind: 'passkey',
      challenge: { methods: 'passkey', user: passkeyOnly },
    });
  });

  it('under a code rule, never offers a passkey: it could not count there', async () => {
    const ask = (user: string) =>
      askForStepUp(store, {
        team: TEAM,
        user,
        approval: { id: 'req-3' },
        decision: 'approve',
        requirement: 'code',
      });
    const passkeyOnly = `U0PK${Math.random().toString(36).slice(2, 6)}`;
    await withPasskey(passkeyOnly);
    expect(await ask(passkeyOnly)).toEqual({ kind: 'not_enrolled', requirement: 'code' });

    // Locked out of codes, someone with a passkey too is told so, not sent a passkey link.
    const { user } = await enrolled();
    await withPasskey(user);
    for (let i = 0; i < MAX_WRONG_CODES; i++) await checkCode(store, TEAM, user, '000000');
    expect(await ask(user)).toMatchObject({ kind: 'locked_out' });
  });

  it('a passkey counts only where both the challenge and the rule in force now take one', () => {
    expect(passkeyCounts({ methods: 'passkey' }, 'passkey')).toBe(true);
    expect(passkeyCounts({ methods: 'any' }, 'any')).toBe(true);
    expect(passkeyCounts({ methods: 'passkey' }, 'none')).toBe(true);
    expect(passkeyCounts({ methods: 'passkey' }, 'code')).toBe(false);
    expect(passkeyCounts({ methods: 'code' }, 'passkey')).toBe(false);
  });
});
