import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DecisionOutcome, decide } from '../../../lib/changes/decisions.js';
import type {
  ApprovalEvent,
  ApprovalRun,
  ApprovalSurface,
  GroupMembers,
} from '../../../lib/changes/ports.js';
import { approvalClickKeys, createStore, type Store } from '../../../lib/store/index.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../support/store.js';

/**
 * A click on a card, decided by the workflow alone: what it returns is a typed outcome, and what
 * it shows goes through the surface it is given (here one that only records), so the rules of the
 * two-person rule read without Slack in the way.
 */

const TEAM = 'T0DEC';
const CHANNEL = 'C0OPS';
const REQUESTER = 'U0REQ';
const APPROVER = 'U0APP';

let table: TestTable;
let store: Store;
beforeAll(async () => {
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
});
afterAll(() => table.dispose());

/** A surface that shows nothing and remembers what it was asked to show. */
function recordingSurface(group: GroupMembers = { kind: 'members', users: [] }) {
  const told: ApprovalEvent[] = [];
  const surface: ApprovalSurface = {
    requestChanged: async () => undefined,
    isAdmin: async () => false,
    canPostCard: async () => ({ kind: 'open' }),
    postCard: async () => ({ kind: 'posted', ts: '1718000000.000100' }),
    markCardUnsaved: async () => undefined,
    showCard: async () => true,
    copyNotFollowed: async () => undefined,
    tell: async (_approval, event) => {
      told.push(event);
    },
    announceBreakGlass: async () => undefined,
    approverGroupMembers: async () => group,
    withinTeam: (_team, work) => work(),
  };
  return { surface, told };
}

function deps() {
  const dispatched: ApprovalRun[] = [];
  const logger = new Logger({ serviceName: 'decisions-test', logLevel: 'SILENT' });
  return {
    deps: { store, logger, handoff: { dispatch: async (job: ApprovalRun) => void dispatched.push(job) } },
    dispatched,
  };
}

async function pendingRequest() {
  const approval = await store.approvals.create({
    team: TEAM,
    requester: REQUESTER,
    operationId: 'volumes.delete',
    input: { volumeId: 12 },
    summary: 'db-data (12)',
    channel: CHANNEL,
    requiredApprovals: 1,
    expiryMinutes: 15,
  });
  await store.approvals.setMessage(TEAM, approval.id, CHANNEL, '1718000000.000100');
  return approval;
}

const click = (user: string) => ({ team: TEAM, user, correlationId: 'c0ffee00-0000-4000-8000-000000000000' });

describe('decide', () => {
  it("refuses the requester's own approval, naming why, and shows nothing", async () => {
    const { surface, told } = recordingSurface();
    const { deps: d, dispatched } = deps();
    const approval = await pendingRequest();

    const outcome = await decide(d, surface, click(REQUESTER), approval.id, 'approve');

    expect(outcome).toEqual<DecisionOutcome>({
      kind: 'refused',
      reason: 'not_eligible',
      why: { kind: 'own_request' },
    });
    expect(told).toEqual([]);
    expect(dispatched).toEqual([]);
  });

  it('approves, tells the thread who approved, audits it and hands the run to the worker', async () => {
    const { surface, told } = recordingSurface();
    const { deps: d, dispatched } = deps();
    const approval = await pendingRequest();

    const outcome = await decide(d, surface, click(APPROVER), approval.id, 'approve');

    expect(outcome).toEqual<DecisionOutcome>({ kind: 'approved' });
    expect(told).toEqual<ApprovalEvent[]>([
      { kind: 'approved', by: APPROVER, method: 'none', at: expect.any(Date) },
    ]);
    expect(dispatched).toEqual([
      { kind: 'approval', correlationId: click(APPROVER).correlationId, team: TEAM, approvalId: approval.id },
    ]);
    const { entries } = await store.audit.list(TEAM, { limit: 20 });
    expect(entries.filter((entry) => entry.approvalId === approval.id).map((entry) => entry.result)).toEqual([
      'approved',
    ]);
  });

  it('hands an approved request off only after its card is shown, and a refused vote not at all', async () => {
    const steps: string[] = [];
    const { surface } = recordingSurface();
    const watched: ApprovalSurface = {
      ...surface,
      showCard: async (shown) => {
        steps.push('card');
        return surface.showCard(shown);
      },
    };
    const handoff = {
      dispatch: async () => void steps.push('dispatch'),
    };
    const { deps: d } = deps();
    const refused = await pendingRequest();
    await decide({ ...d, handoff }, watched, click(REQUESTER), refused.id, 'approve');
    expect(steps).toEqual([]);

    const approval = await pendingRequest();
    await decide({ ...d, handoff }, watched, click(APPROVER), approval.id, 'approve');
    expect(steps).toEqual(['card', 'dispatch']);
  });

  it("tells the request's Homes once, alongside the run's hand-off, not after it", async () => {
    const steps: string[] = [];
    const { surface } = recordingSurface();
    let releaseRun: () => void = () => undefined;
    const watched: ApprovalSurface = {
      ...surface,
      requestChanged: async () => void steps.push('homes'),
    };
    // The run's hand-off stays in flight until released: the Homes are told while it is.
    const handoff = {
      dispatch: () => {
        steps.push('run handed off');
        return new Promise<void>((resolve) => {
          releaseRun = resolve;
        });
      },
    };
    const { deps: d } = deps();
    const approval = await pendingRequest();
    const decided = decide({ ...d, handoff }, watched, click(APPROVER), approval.id, 'approve');
    await vi.waitFor(() => expect(steps).toEqual(['run handed off', 'homes']));
    releaseRun();
    expect(await decided).toEqual<DecisionOutcome>({ kind: 'approved' });
    expect(steps).toEqual(['run handed off', 'homes']);
  });

  it("decides on the request and its policies read ahead with the click's claim, without reading them again", async () => {
    const { surface } = recordingSurface();
    const { deps: d, dispatched } = deps();
    const approval = await pendingRequest();
    const gets: string[] = [];
    const counting = {
      ...table.ctx,
      table: {
        ...table.ctx.table,
        get: (input: Parameters<typeof table.ctx.table.get>[0]) => {
          gets.push(String(input.Key?.sk));
          return table.ctx.table.get(input);
        },
      },
    };
    const counted = { ...d, store: createStore(counting, randomLocalCipher()) };
    const read = counted.store.readAhead(approvalClickKeys(TEAM, approval.id, CHANNEL));

    const outcome = await decide(counted, surface, click(APPROVER), approval.id, 'approve', read);
    expect(outcome).toEqual<DecisionOutcome>({ kind: 'approved' });
    expect(gets).toEqual([]);
    expect(dispatched).toHaveLength(1);

    // Without one, the request is read for the decision and again for the vote, and both policies.
    const another = await pendingRequest();
    expect(await decide(counted, surface, click(APPROVER), another.id, 'approve')).toEqual({
      kind: 'approved',
    });
    expect(gets.sort()).toEqual(
      [`APPROVAL#${another.id}`, `APPROVAL#${another.id}`, 'POLICY', `CHANNEL#${CHANNEL}#POLICY`].sort(),
    );
  });

  it('says the approver group could not be read, instead of "not an approver"', async () => {
    await store.approvalPolicy.put(
      TEAM,
      { ...(await store.approvalPolicy.get(TEAM)), approverGroup: 'S0SRE' },
      'U0ADMIN',
    );
    const { surface, told } = recordingSurface({ kind: 'rate_limited', retryAfterSeconds: 30 });
    const { deps: d } = deps();
    const approval = await pendingRequest();

    const outcome = await decide(d, surface, click(APPROVER), approval.id, 'approve');

    expect(outcome).toEqual<DecisionOutcome>({
      kind: 'refused',
      reason: 'not_eligible',
      why: {
        kind: 'group_unreadable',
        group: 'S0SRE',
        members: { kind: 'rate_limited', retryAfterSeconds: 30 },
      },
    });
    expect(told).toEqual([]);
    await store.approvalPolicy.put(
      TEAM,
      { ...(await store.approvalPolicy.get(TEAM)), approverGroup: null },
      'U0ADMIN',
    );
  });
});
