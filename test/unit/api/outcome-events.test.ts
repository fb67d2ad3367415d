import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { filterProblems } from '../../../lib/api/filter.js';
import type { AnyOperation } from '../../../lib/api/operation.js';
import { getOperation, operations } from '../../../lib/api/operations/index.js';
import {
  checkCommandFor,
  EVENT_CLOCK_SKEW_MS,
  eventFilterOf,
  noEventReadBackReason,
  type OutcomePlan,
  outcomePlanFor,
} from '../../../lib/api/outcome.js';
import { targetOf } from '../../../lib/changes/audit.js';

/**
 * The events read-back of node actions and disk changes (API-FACTS-MORE.md §2, §4, §8): every row
 * of those groups either names the events it writes, all of them in the published action enum,
 * and gets a plan; or says why it cannot.
 */

const SPEC = JSON.parse(
  readFileSync(new URL('../../../../shared/reference/cloud-api-more.openapi.json', import.meta.url), 'utf8'),
) as unknown;

/** Every `action` enum value of the published Event schema. */
function publishedEventActions(): Set<string> {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown>;
    const action = (record.properties as Record<string, { enum?: unknown }> | undefined)?.action;
    if (Array.isArray(action?.enum) && (record.properties as Record<string, unknown>).entity !== undefined) {
      for (const value of action.enum) if (typeof value === 'string') found.add(value);
    }
    for (const child of Object.values(record)) visit(child);
  };
  visit(SPEC);
  return found;
}

/** The changes on a node that act through its own path: lifecycle actions and disk changes. */
const nodeChanges = operations.filter(
  (op) => op.method !== 'GET' && op.path.startsWith('/node/instances/{nodeId}/') && op.events !== undefined,
);

const INPUT = { nodeId: 123, diskId: 25674 };
const SENT = new Date('2025-06-02T09:00:10.500Z');

function eventPlan(op: AnyOperation, since: Date | undefined = SENT) {
  const plan = outcomePlanFor(op, INPUT, { since });
  return plan?.strategy === 'event' ? (plan as Extract<OutcomePlan, { strategy: 'event' }>) : undefined;
}

describe('event actions beside the operation rows', () => {
  it('every node action the brief lists has event data on its row', () => {
    const ids = nodeChanges.map((op) => op.id);
    for (const action of [
      'reboot',
      'shutdown',
      'boot',
      'resize',
      'rebuild',
      'rescue',
      'migrate',
      'mutate',
      'password',
    ]) {
      expect(ids).toContain(`nodes.${action}`);
    }
  });

  it('names only actions of the published enum (no guessed names)', () => {
    const published = publishedEventActions();
    expect(published.size).toBeGreaterThan(0);
    for (const op of operations) {
      if (!op.events || 'none' in op.events) continue;
      for (const action of op.events.actions) expect(published, `${op.id}: ${action}`).toContain(action);
      expect(op.events.source).toMatch(/API-FACTS-MORE\.md §\d/);
    }
  });

  it.each(nodeChanges.map((op) => [op.id, op] as const))(
    '%s: a read-back plan, or a stated reason why there is none',
    (_id, op) => {
      const plan = outcomePlanFor(op, INPUT, { since: SENT });
      const reason = noEventReadBackReason(op);
      if (reason === undefined) {
        // A state read-back (gone, matches, appears) wins where the row has one; else the events.
        expect(plan).toBeDefined();
        if (plan?.strategy === 'event') {
          expect(plan.entityId).toBe(123);
          expect(plan.since).toEqual(SENT);
        }
      } else {
        expect(reason.length).toBeGreaterThan(10);
        expect(plan?.strategy).not.toBe('event');
      }
    },
  );
});

describe('the events plan', () => {
  it('a reboot reads node_reboot on the node, and nothing else: its status is no proof', () => {
    const plan = eventPlan(getOperation('nodes.reboot'));
    expect(plan?.actions).toEqual(['node_reboot']);
    expect(plan?.entityId).toBe(123);
    // Another person's reboot, the host's (`host_reboot`) or the watchdog's (`lassie_reboot`, §8)
    // leaves the node `rebooting` too: only an event by the sender's own API user tells.
    expect(Object.keys(plan ?? {}).sort()).toEqual(['actions', 'entityId', 'list', 'since', 'strategy']);
  });

  it('a resize reads both of the events it writes', () => {
    const plan = eventPlan(getOperation('nodes.resize'));
    expect(plan?.actions).toEqual(['node_resize_create', 'node_resize']);
  });

  it('rescue has no events plan: its reason cites the documents', () => {
    expect(noEventReadBackReason(getOperation('nodes.rescue'))).toContain('§2.5');
    expect(outcomePlanFor(getOperation('nodes.rescue'), INPUT, { since: SENT })).toBeUndefined();
  });

  it('disk changes keep their state read-back; their events are read where none exists', () => {
    expect(outcomePlanFor(getOperation('nodes.disks-delete'), INPUT)?.strategy).toBe('gone');
    expect(outcomePlanFor(getOperation('nodes.disks-update'), { ...INPUT, label: 'x' })?.strategy).toBe(
      'matches',
    );
    expect(eventPlan(getOperation('nodes.disks-resize'))?.actions).toEqual(['disk_resize']);
  });

  it('the filter is valid for the events list: actions, the node, and created from the send time less the skew', () => {
    for (const op of nodeChanges) {
      const plan = eventPlan(op);
      if (!plan) continue;
      const filter = eventFilterOf(plan, SENT);
      expect(filterProblems(plan.list, filter), op.id).toEqual([]);
      const text = JSON.stringify(filter);
      for (const action of plan.actions) expect(text).toContain(`"action":"${action}"`);
      expect(text).toContain('"entity.id":123');
    }
    const filter = eventFilterOf(eventPlan(getOperation('nodes.reboot')) as never, SENT);
    const from = new Date(SENT.getTime() - EVENT_CLOCK_SKEW_MS).toISOString().slice(0, 19);
    // The API's own date-time form: UTC to the second, no zone letter.
    expect(JSON.stringify(filter)).toContain(`"created":{"+gte":"${from}"}`);
    expect(from).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
  });

  it('without the send time the plan still exists (for wording), and carries no since', () => {
    const plan = outcomePlanFor(getOperation('nodes.reboot'), INPUT);
    expect(plan?.strategy).toBe('event');
    expect(plan?.strategy === 'event' && plan.since).toBeUndefined();
  });

  it('a create whose event names what it creates has no events plan: the new id is in the lost answer', () => {
    const op = getOperation('profile.sshkeys-create');
    expect(op.events).toEqual({ actions: ['user_ssh_key_add'], source: 'API-FACTS-MORE.md §8' });
    expect(noEventReadBackReason(op)).toBeUndefined();
    expect(outcomePlanFor(op, { ssh_key: 'ssh-ed25519 AAAA me@x' }, { since: SENT })).toBeUndefined();
  });

  it('a create records the new id in its audit target, which the events report matches on', () => {
    expect(targetOf(getOperation('volumes.create'), { label: 'v' }, { id: 77, label: 'v' })).toBe(
      '/volumes id=77',
    );
    // Rows whose events name an input field keep the target as it was.
    expect(targetOf(getOperation('volumes.update'), { volumeId: 5, label: 'x' }, { id: 5 })).toBe(
      'volumeId=5',
    );
    expect(targetOf(getOperation('volumes.create'), { label: 'v' }, { id: 'has space' })).toBe('/volumes');
  });

  it('the command to check with lists the events of that node', () => {
    expect(checkCommandFor(getOperation('nodes.reboot'), INPUT)).toBe(
      '/cloud events list --action node_reboot --entity.id 123',
    );
  });
});
