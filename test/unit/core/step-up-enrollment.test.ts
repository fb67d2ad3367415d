import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalSurface } from '../../../lib/changes/ports.js';
import { CODE_PERIOD_SECONDS, codeAt, MAX_WRONG_CODES } from '../../../lib/changes/step-up.js';
import type { Caller } from '../../../lib/core/caller.js';
import {
  applyApprovedReset,
  completeFactorChange,
  confirmAuthenticatorApp,
  type FactorNotice,
  pendingAppKey,
  type ResetRequestDeps,
  resetStepUp,
  startEnrollment,
  stepUpStatus,
} from '../../../lib/core/step-up-enrollment.js';
import { type Approval, createStore, type Store } from '../../../lib/store/index.js';
import { testCaller } from '../../support/caller.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * Enrolling step-up methods, as any surface asks for it: the core decides whose enrollment the
 * caller may touch and writes it, on DynamoDB Local, with no Slack.
 */

const TEAM = 'T0ENROLL';
const STEP_MS = CODE_PERIOD_SECONDS * 1000;

let table: TestTable;
let store: Store;
let deps: ResetRequestDeps;
/** Cards the admins' reset requests posted (none is shown: the surface only counts them). */
const cards: Approval[] = [];
const surface: ApprovalSurface = {
  requestChanged: async () => undefined,
  isAdmin: async () => false,
  canPostCard: async () => ({ kind: 'open' }),
  postCard: async (approval) => {
    cards.push(approval);
    return { kind: 'posted', ts: '1718000000.000100' };
  },
  markCardUnsaved: async () => undefined,
  showCard: async () => true,
  tell: async () => undefined,
  announceBreakGlass: async () => undefined,
  copyNotFollowed: async () => undefined,
  approverGroupMembers: async () => ({ kind: 'members', users: [] }),
  withinTeam: (_team, work) => work(),
};
let userCounter = 0;
/** What the people were told of changes to their methods. */
const notices: FactorNotice[] = [];
beforeAll(async () => {
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
  deps = {
    store,
    approvalAdmins: ['U0DEPLOYADMIN'],
    api: { baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 } as ResetRequestDeps['api'],
    logger: new Logger({ serviceName: 'step-up-enrollment-test', logLevel: 'SILENT' }),
    factorNotices: { factorChanged: async (notice) => void notices.push(notice) },
  };
});
afterAll(() => table.dispose());
beforeEach(() => {
  // The start of a lockout window, a few steps in: no test straddles a window by accident.
  table.clock.set(new Date(Date.UTC(2030, 0, 15, 9, 0, 5)));
});

function newUser(): string {
  return `U0E${String(++userCounter).padStart(4, '0')}`;
}

/** A person asking; whether the workspace makes them an admin is `workspaceAdmin`, or a failure if asked. */
function callerFor(user: string, workspaceAdmin?: boolean): Caller {
  return testCaller({ team: TEAM, channel: 'C0ENROLL' }, user, workspaceAdmin);
}

/** A person with a confirmed authenticator app; returns its secret. */
async function withApp(user: string): Promise<string> {
  const started = await startEnrollment(deps, callerFor(user), { method: 'code' });
  if (started.kind !== 'app_started') throw new Error(`not started: ${started.kind}`);
  const code = codeAt(started.secret, table.clock.now());
  expect(await confirmAuthenticatorApp(deps, callerFor(user), { code })).toEqual({ kind: 'confirmed' });
  return started.secret;
}

async function givePasskey(user: string, name: string): Promise<void> {
  await store.passkeys.save(TEAM, user, {
    id: Buffer.from(`${name}-of-${user}`).toString('base64url'),
    publicKey: new Uint8Array(77).fill(7),
    counter: 0,
    transports: ['internal'],
  });
}

describe('startEnrollment', () => {
  it('gives the caller a new authenticator secret, pending until a code confirms it', async () => {
    const user = newUser();
    const started = await startEnrollment(deps, callerFor(user), { method: 'code' });
    expect(started).toMatchObject({ kind: 'app_started', uri: expect.stringContaining('otpauth://totp/') });
    expect((await stepUpStatus(deps, callerFor(user))).app).toEqual({ kind: 'pending' });
  });

  it('refuses a second app while one is confirmed', async () => {
    const user = newUser();
    await withApp(user);
    expect(await startEnrollment(deps, callerFor(user), { method: 'code' })).toEqual({
      kind: 'app_enrolled_already',
    });
  });

  it('answers a passkey enrollment with the caller it binds the link to, writing nothing', async () => {
    const user = newUser();
    expect(await startEnrollment(deps, callerFor(user), { method: 'passkey' })).toEqual({
      kind: 'passkey_link',
      team: TEAM,
      user,
    });
    expect(await stepUpStatus(deps, callerFor(user))).toEqual({ app: { kind: 'none' }, passkeysAddedAt: [] });
  });
});

describe('pendingAppKey (the QR page reads it)', () => {
  it('gives exactly the otpauth URI the pending enrollment was started with, for the person it names', async () => {
    const [ada, bob] = [newUser(), newUser()];
    const adas = await startEnrollment(deps, callerFor(ada), { method: 'code' });
    const bobs = await startEnrollment(deps, callerFor(bob), { method: 'code' });
    if (adas.kind !== 'app_started' || bobs.kind !== 'app_started') throw new Error('not started');
    expect(await pendingAppKey(deps, { team: TEAM, user: ada })).toEqual({ kind: 'pending', uri: adas.uri });
    expect(await pendingAppKey(deps, { team: TEAM, user: bob })).toEqual({ kind: 'pending', uri: bobs.uri });
  });

  it('gives no key once the app is confirmed, nor to someone who started none', async () => {
    const user = newUser();
    expect(await pendingAppKey(deps, { team: TEAM, user })).toEqual({ kind: 'none' });
    await withApp(user);
    expect(await pendingAppKey(deps, { team: TEAM, user })).toEqual({ kind: 'confirmed' });
  });
});

describe('confirmAuthenticatorApp', () => {
  it('refuses a wrong code, counts it towards the lockout and leaves the app unconfirmed', async () => {
    const user = newUser();
    await startEnrollment(deps, callerFor(user), { method: 'code' });
    expect(await confirmAuthenticatorApp(deps, callerFor(user), { code: '000000' })).toEqual({
      kind: 'wrong',
      attemptsLeft: MAX_WRONG_CODES - 1,
    });
    expect((await stepUpStatus(deps, callerFor(user))).app).toEqual({ kind: 'pending' });
  });

  it('says there is nothing to confirm when no enrollment was started', async () => {
    expect(await confirmAuthenticatorApp(deps, callerFor(newUser()), { code: '123456' })).toEqual({
      kind: 'nothing_to_confirm',
    });
  });

  it('says an app confirmed already is confirmed already', async () => {
    const user = newUser();
    await withApp(user);
    table.clock.advance(STEP_MS);
    expect(await confirmAuthenticatorApp(deps, callerFor(user), { code: '123456' })).toEqual({
      kind: 'confirmed_already',
    });
  });

  it('audits the confirmation without the secret', async () => {
    const user = newUser();
    const started = await startEnrollment(deps, callerFor(user), { method: 'code' });
    if (started.kind !== 'app_started') throw new Error('not started');
    await confirmAuthenticatorApp(deps, callerFor(user), { code: codeAt(started.secret, table.clock.now()) });
    const entries = (await store.audit.list(TEAM, { limit: 200 })).entries.filter(
      (entry) => entry.target === `user ${user}`,
    );
    expect(entries).toMatchObject([
      { action: 'mfa.enroll', actor: user, detail: 'authenticator app confirmed' },
    ]);
    expect(JSON.stringify(entries)).not.toContain(started.secret);
  });
});

describe('stepUpStatus', () => {
  it('says when the app was confirmed, and when each passkey was added, oldest first', async () => {
    const user = newUser();
    const confirmedAt = table.clock.now();
    await withApp(user);
    table.clock.advance(60_000);
    const first = table.clock.now();
    await givePasskey(user, 'laptop');
    table.clock.advance(60_000);
    const second = table.clock.now();
    await givePasskey(user, 'phone');
    expect(await stepUpStatus(deps, callerFor(user))).toEqual({
      app: { kind: 'active', confirmedAt },
      passkeysAddedAt: [first, second],
    });
  });

  it('says a person with nothing enrolled has nothing', async () => {
    expect(await stepUpStatus(deps, callerFor(newUser()))).toEqual({
      app: { kind: 'none' },
      passkeysAddedAt: [],
    });
  });
});

describe('resetStepUp', () => {
  it("refuses to reset another person's step-up for someone who is no admin, and removes nothing", async () => {
    const owner = newUser();
    await withApp(owner);
    await givePasskey(owner, 'key');
    expect(await resetStepUp(deps, surface, callerFor(newUser(), false), { user: owner })).toEqual({
      kind: 'not_allowed',
    });
    const status = await stepUpStatus(deps, callerFor(owner));
    expect(status.app.kind).toBe('active');
    expect(status.passkeysAddedAt).toHaveLength(1);
  });

  it("asks for an admin's reset of another person's app and passkeys as a change: nothing is removed until it is approved", async () => {
    const owner = newUser();
    const admin = newUser();
    await withApp(owner);
    await givePasskey(owner, 'laptop');
    await givePasskey(owner, 'phone');
    await store.approvalPolicy.put(TEAM, { admins: [admin] }, admin);
    const asked = await resetStepUp(deps, surface, callerFor(admin), { user: owner });
    if (asked.kind !== 'requested' || asked.request.kind !== 'requested') throw new Error(asked.kind);
    expect(asked.request.approval).toMatchObject({
      operationId: 'mfa.reset',
      requester: admin,
      summary: `user ${owner}`,
      status: 'pending',
    });
    expect(cards.at(-1)?.id).toBe(asked.request.approval.id);
    const status = await stepUpStatus(deps, callerFor(owner));
    expect(status.app.kind).toBe('active');
    expect(status.passkeysAddedAt).toHaveLength(2);
  });

  it("an approved reset removes another person's app and passkeys, audited as the admin who asked; again, nothing more", async () => {
    const owner = newUser();
    const admin = newUser();
    await withApp(owner);
    await givePasskey(owner, 'laptop');
    await givePasskey(owner, 'phone');
    expect(await applyApprovedReset(deps, { team: TEAM, requester: admin }, owner)).toEqual({
      kind: 'reset',
      user: owner,
      appRemoved: true,
      passkeysRemoved: 2,
    });
    expect(await stepUpStatus(deps, callerFor(owner))).toEqual({
      app: { kind: 'none' },
      passkeysAddedAt: [],
    });
    const entries = (await store.audit.list(TEAM, { limit: 200 })).entries;
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: 'mfa.reset',
        actor: admin,
        target: `user ${owner}`,
        detail: 'authenticator app and 2 passkeys removed',
      }),
    );
    expect(await applyApprovedReset(deps, { team: TEAM, requester: admin }, owner)).toEqual({
      kind: 'nothing_enrolled',
      user: owner,
    });
  });

  it("lets a workspace admin ask to reset another person's step-up", async () => {
    const owner = newUser();
    await givePasskey(owner, 'key');
    expect(await resetStepUp(deps, surface, callerFor(newUser(), true), { user: owner })).toMatchObject({
      kind: 'requested',
      request: { kind: 'requested' },
    });
    expect(await store.passkeys.list(TEAM, owner)).toHaveLength(1);
  });

  it('asks for nothing when the other person has nothing to reset', async () => {
    const owner = newUser();
    expect(await resetStepUp(deps, surface, callerFor(newUser(), true), { user: owner })).toEqual({
      kind: 'nothing_enrolled',
      user: owner,
    });
  });

  it('resets the caller’s own once a code of their app proves it is them, without asking whether they are an admin', async () => {
    const user = newUser();
    const secret = await withApp(user);
    table.clock.advance(STEP_MS);
    const asked = await resetStepUp(deps, surface, callerFor(user), {});
    if (asked.kind !== 'proof_needed' || asked.need.kind !== 'code') throw new Error(asked.kind);
    expect((await stepUpStatus(deps, callerFor(user))).app.kind).toBe('active');
    const code = codeAt(secret, table.clock.now());
    expect(
      await completeFactorChange(deps, callerFor(user), asked.need.challenge.id, { method: 'code', code }),
    ).toEqual({
      kind: 'reset',
      outcome: { kind: 'reset', user, appRemoved: true, passkeysRemoved: 0 },
    });
  });

  it('says so when there is nothing to reset', async () => {
    const user = newUser();
    expect(await resetStepUp(deps, surface, callerFor(user), {})).toEqual({ kind: 'nothing_enrolled', user });
  });
});

describe('binding another method, or removing one’s own (NIST SP 800-63B §6.1.2.3)', () => {
  it('binds nothing to someone with a passkey on their Slack session alone: adding a passkey waits for a proof from the one they have', async () => {
    const user = newUser();
    await givePasskey(user, 'laptop');
    const asked = await startEnrollment(deps, callerFor(user), { method: 'passkey' });
    expect(asked).toMatchObject({
      kind: 'proof_needed',
      need: { kind: 'passkey', challenge: { user, change: 'add_passkey', methods: 'any' } },
    });
    expect(await startEnrollment(deps, callerFor(user), { method: 'code' })).toMatchObject({
      kind: 'proof_needed',
      need: { kind: 'passkey', challenge: { change: 'add_app' } },
    });
    expect((await stepUpStatus(deps, callerFor(user))).app).toEqual({ kind: 'none' });
  });

  it('gives the passkey link once a verified passkey of the person proves it, and only once', async () => {
    const user = newUser();
    await givePasskey(user, 'laptop');
    const asked = await startEnrollment(deps, callerFor(user), { method: 'passkey' });
    if (asked.kind !== 'proof_needed' || asked.need.kind !== 'passkey') throw new Error(asked.kind);
    const proof = { method: 'passkey', credentialId: 'laptop' } as const;
    expect(await completeFactorChange(deps, callerFor(newUser()), asked.need.challenge.id, proof)).toEqual({
      kind: 'not_proved',
      check: { kind: 'challenge_unusable' },
    });
    expect(await completeFactorChange(deps, callerFor(user), asked.need.challenge.id, proof)).toEqual({
      kind: 'enrollment',
      outcome: { kind: 'passkey_link', team: TEAM, user },
    });
    expect(await completeFactorChange(deps, callerFor(user), asked.need.challenge.id, proof)).toEqual({
      kind: 'not_proved',
      check: { kind: 'challenge_unusable' },
    });
  });

  it('asks someone with an app for its code; a wrong code adds nothing and counts towards the lockout', async () => {
    const user = newUser();
    const secret = await withApp(user);
    table.clock.advance(STEP_MS);
    const asked = await startEnrollment(deps, callerFor(user), { method: 'passkey' });
    if (asked.kind !== 'proof_needed' || asked.need.kind !== 'code') throw new Error(asked.kind);
    const wrong = codeAt(secret, new Date(table.clock.now().getTime() + 10 * STEP_MS));
    expect(
      await completeFactorChange(deps, callerFor(user), asked.need.challenge.id, {
        method: 'code',
        code: wrong,
      }),
    ).toEqual({ kind: 'not_proved', check: { kind: 'wrong', attemptsLeft: MAX_WRONG_CODES - 1 } });
    const code = codeAt(secret, table.clock.now());
    expect(
      await completeFactorChange(deps, callerFor(user), asked.need.challenge.id, { method: 'code', code }),
    ).toMatchObject({ kind: 'enrollment', outcome: { kind: 'passkey_link', user } });
  });

  it('does not take a vote’s challenge as a proof for a change to one’s methods', async () => {
    const user = newUser();
    await givePasskey(user, 'laptop');
    const vote = await store.stepUp.createChallenge({
      team: TEAM,
      user,
      approvalId: 'req-1',
      decision: 'approve',
      methods: 'any',
      expiresAt: new Date(table.clock.now().getTime() + 60_000),
    });
    expect(
      await completeFactorChange(deps, callerFor(user), vote.id, {
        method: 'passkey',
        credentialId: 'laptop',
      }),
    ).toEqual({ kind: 'not_proved', check: { kind: 'challenge_unusable' } });
    expect(await store.stepUp.useChallenge(TEAM, vote.id, user)).toMatchObject({ kind: 'used' });
  });

  it('tells the person whenever a method of theirs is added or removed, and by whom', async () => {
    const owner = newUser();
    const admin = newUser();
    notices.length = 0;
    await withApp(owner);
    await store.approvalPolicy.put(TEAM, { admins: [admin] }, admin);
    await applyApprovedReset(deps, { team: TEAM, requester: admin }, owner);
    expect(notices).toEqual([
      { team: TEAM, user: owner, by: owner, change: 'added', app: true, passkeys: 0, at: table.clock.now() },
      {
        team: TEAM,
        user: owner,
        by: admin,
        change: 'removed',
        app: true,
        passkeys: 0,
        at: table.clock.now(),
      },
    ]);
  });
});
