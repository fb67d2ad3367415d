import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardAccess, GroupMembers } from '../../../lib/changes/ports.js';
import {
  applyChannelPolicyChange,
  changeApprovalPolicy,
  changeChannelPolicy,
  type PolicyChecks,
  type PolicyDeps,
} from '../../../lib/core/policies.js';
import { DEFAULT_APPROVAL_POLICY } from '../../../lib/store/approval-policy.js';
import { createStore, type Store } from '../../../lib/store/index.js';
import { testCaller } from '../../support/caller.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * The rules of the workspace's approval policy and a channel's policy, called as any surface
 * calls them: only the policy admins change them, what a change sets is checked before it is
 * stored, and every change is audited. No Slack: the caller says whether the workspace makes them
 * an admin, and the checks that only a surface can make answer as each test says.
 */

const CHANNEL = 'C0OPS';
const ALICE = 'U0ALICE';
const ADMIN = 'U0ADMIN';

let table: TestTable;
let store: Store;
let deps: PolicyDeps;
beforeAll(async () => {
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
  deps = {
    store,
    logger: new Logger({ serviceName: 'policies-test', logLevel: 'SILENT' }),
    approvalAdmins: [],
  };
});
afterAll(() => table.dispose());

let teams = 0;
/** A team of its own for each test, so no test sees another's policies. */
function newTeam(): string {
  teams += 1;
  return `T0POLICY${teams}`;
}

/** A caller in `team`'s ops channel; `admin` is what the workspace says when asked. */
function callerIn(team: string, user: string, admin = false) {
  const caller = testCaller({ team, channel: CHANNEL }, user, admin);
  return { caller, asked: caller.asked };
}

/** Every group readable with members, every channel open, unless a test says otherwise. */
function checks(
  group: GroupMembers = { kind: 'members', users: [ADMIN] },
  access: CardAccess = { kind: 'open' },
): PolicyChecks {
  return { approverGroupMembers: async () => group, announcementAccess: async () => access };
}

describe('changing the approval policy', () => {
  it('refuses someone who is no admin, and leaves the policy and the audit as they were', async () => {
    const team = newTeam();
    const outcome = await changeApprovalPolicy(deps, checks(), callerIn(team, ALICE).caller, {
      requiredApprovals: 2,
    });
    expect(outcome).toEqual({ kind: 'refused', reason: 'not_policy_admin' });
    expect(await store.approvalPolicy.get(team)).toEqual(DEFAULT_APPROVAL_POLICY);
    expect((await store.audit.list(team)).entries).toEqual([]);
  });

  it('stores a workspace admin’s change and audits what the policy now is', async () => {
    const team = newTeam();
    const outcome = await changeApprovalPolicy(deps, checks(), callerIn(team, ADMIN, true).caller, {
      approverUsers: [ALICE, ADMIN],
      requiredApprovals: 2,
      stepUp: 'Code',
    });
    expect(outcome).toMatchObject({ kind: 'updated', policy: { requiredApprovals: 2, stepUp: 'code' } });
    expect(await store.approvalPolicy.get(team)).toMatchObject({
      approverUsers: [ALICE, ADMIN],
      requiredApprovals: 2,
      stepUp: 'code',
    });
    expect((await store.audit.list(team)).entries).toMatchObject([
      {
        actor: ADMIN,
        action: 'approvals.policy',
        target: 'approval policy',
        result: 'succeeded',
        detail:
          'approvers=U0ALICE,U0ADMIN approver-group=none required=2 self-approval=off expiry=15 step-up=code require-reason=off',
      },
    ]);
  });

  it('takes a change from an admin the policy itself names, without asking the workspace', async () => {
    const team = newTeam();
    await store.approvalPolicy.put(team, { admins: [ALICE] }, ADMIN);
    const alice = callerIn(team, ALICE);
    const outcome = await changeApprovalPolicy(deps, checks(), alice.caller, { expiryMinutes: 30 });
    expect(outcome).toMatchObject({ kind: 'updated', policy: { expiryMinutes: 30, admins: [ALICE] } });
    expect(alice.asked()).toBe(0);
  });

  it('refuses a step-up word that is no requirement before asking whether the caller is an admin', async () => {
    const alice = callerIn(newTeam(), ALICE);
    const outcome = await changeApprovalPolicy(deps, checks(), alice.caller, { stepUp: 'fingerprint' });
    expect(outcome).toEqual({ kind: 'invalid', problem: { kind: 'unknown_step_up' } });
    expect(alice.asked()).toBe(0);
  });

  it('refuses fewer named approvers than the approvals it needs', async () => {
    const team = newTeam();
    const outcome = await changeApprovalPolicy(deps, checks(), callerIn(team, ADMIN, true).caller, {
      approverUsers: [ALICE],
      requiredApprovals: 2,
    });
    expect(outcome).toEqual({
      kind: 'invalid',
      problem: { kind: 'too_few_approvers', required: 2, named: 1 },
    });
    expect(await store.approvalPolicy.get(team)).toEqual(DEFAULT_APPROVAL_POLICY);
  });

  it('refuses an approver group the surface knows no such group for', async () => {
    const outcome = await changeApprovalPolicy(
      deps,
      checks({ kind: 'no_such_group' }),
      callerIn(newTeam(), ADMIN, true).caller,
      { approverGroup: 'S0NOPE' },
    );
    expect(outcome).toEqual({
      kind: 'invalid',
      problem: { kind: 'unusable_approver_group', group: 'S0NOPE', members: { kind: 'no_such_group' } },
    });
  });
});

describe("changing a channel's policy", () => {
  it('refuses someone who is no admin, and stores nothing', async () => {
    const team = newTeam();
    const outcome = await changeChannelPolicy(deps, checks(), callerIn(team, ALICE).caller, {
      kind: 'set',
      allow: ['read'],
      ruleSettings: {},
    });
    expect(outcome).toEqual({ kind: 'refused', reason: 'not_policy_admin' });
    expect(await store.channelPolicy.get(team, CHANNEL)).toBeUndefined();
  });

  it('stores an admin’s change for the caller’s channel and audits what it set', async () => {
    const team = newTeam();
    const outcome = await changeChannelPolicy(deps, checks(), callerIn(team, ADMIN, true).caller, {
      kind: 'set',
      allow: ['READ', ' change'],
      ruleSettings: {},
    });
    expect(outcome).toMatchObject({ kind: 'updated', policy: { allowedClasses: ['read', 'change'] } });
    expect(await store.channelPolicy.get(team, CHANNEL)).toMatchObject({
      allowedClasses: ['read', 'change'],
      updatedBy: ADMIN,
    });
    expect((await store.audit.list(team)).entries).toMatchObject([
      {
        actor: ADMIN,
        action: 'policy.channel',
        target: `channel ${CHANNEL}`,
        result: 'succeeded',
        detail: 'allow=read,change  break-glass=off',
      },
    ]);
  });

  it('clears the channel’s own policy, so the workspace’s applies, and audits the reset', async () => {
    const team = newTeam();
    await store.channelPolicy.put(team, CHANNEL, { allowedClasses: ['read'] }, ADMIN);
    const outcome = await changeChannelPolicy(deps, checks(), callerIn(team, ADMIN, true).caller, {
      kind: 'reset',
    });
    expect(outcome).toEqual({ kind: 'cleared' });
    expect(await store.channelPolicy.get(team, CHANNEL)).toBeUndefined();
    expect((await store.audit.list(team)).entries).toMatchObject([
      { action: 'policy.channel', detail: 'reset: the workspace policy applies' },
    ]);
  });

  it('refuses to clear the policy for someone who is no admin', async () => {
    const team = newTeam();
    await store.channelPolicy.put(team, CHANNEL, { allowedClasses: ['read'] }, ADMIN);
    const outcome = await changeChannelPolicy(deps, checks(), callerIn(team, ALICE).caller, {
      kind: 'reset',
    });
    expect(outcome).toEqual({ kind: 'refused', reason: 'not_policy_admin' });
    expect(await store.channelPolicy.get(team, CHANNEL)).toBeDefined();
  });

  it('refuses an audit channel the bot cannot post in, and stores nothing', async () => {
    const team = newTeam();
    const outcome = await changeChannelPolicy(
      deps,
      checks(undefined, { kind: 'refused', refusal: 'private' }),
      callerIn(team, ADMIN, true).caller,
      { kind: 'set', ruleSettings: {}, auditChannel: 'C0AUDIT' },
    );
    expect(outcome).toEqual({
      kind: 'invalid',
      problem: { kind: 'audit_channel_refused', channel: 'C0AUDIT', refusal: 'private' },
    });
    expect(await store.channelPolicy.get(team, CHANNEL)).toBeUndefined();
  });
});

describe('what a channel policy change makes of the current policy', () => {
  it('keys a rule by the operation id in any case', () => {
    const applied = applyChannelPolicyChange(undefined, {
      kind: 'set',
      rule: ' Volumes.Delete',
      ruleSettings: { requiredApprovals: 2 },
    });
    expect(applied).toMatchObject({
      ok: true,
      value: { rules: { 'volumes.delete': { requiredApprovals: 2 } } },
    });
  });

  it('refuses a rule named by a word that is neither a class nor an operation, such as a prototype key', () => {
    const applied = applyChannelPolicyChange(undefined, {
      kind: 'set',
      rule: 'constructor',
      ruleSettings: { requiredApprovals: 2 },
    });
    expect(applied).toEqual({ ok: false, problem: { kind: 'unknown_rule_key', text: 'constructor' } });
  });

  it('refuses rule settings without the rule they are for', () => {
    const applied = applyChannelPolicyChange(undefined, {
      kind: 'set',
      ruleSettings: { requiredApprovals: 2 },
    });
    expect(applied).toEqual({ ok: false, problem: { kind: 'settings_without_rule' } });
  });

  it('refuses break-glass without the people who may use it', () => {
    const applied = applyChannelPolicyChange(undefined, {
      kind: 'set',
      ruleSettings: {},
      allowBreakGlass: true,
    });
    expect(applied).toEqual({ ok: false, problem: { kind: 'break_glass_without_users' } });
  });

  it('refuses to allow a class that does not exist', () => {
    const applied = applyChannelPolicyChange(undefined, {
      kind: 'set',
      ruleSettings: {},
      allow: ['read', 'write'],
    });
    expect(applied).toEqual({ ok: false, problem: { kind: 'unknown_classes' } });
  });
});
