import { describe, expect, it } from 'vitest';
import type { AccountEvent } from '../../../lib/api/operations/events.js';
import {
  auditEntryMatches,
  botChangesFor,
  eventPassesFilter,
  renderAccountEvent,
} from '../../../lib/reports/events-report.js';
import type { AuditEntry } from '../../../lib/store/audit-log.js';

const event: AccountEvent = {
  id: 500123,
  action: 'node_reboot',
  created: '2026-03-01T10:00:00',
  status: 'finished',
  read: false,
  seen: false,
  username: 'ops-script',
  entity: { id: 12, label: 'web-1', type: 'node', url: '/v4/linode/instances/12' },
};

const entry = (over: Partial<AuditEntry> = {}): AuditEntry => ({
  id: 'a1',
  team: 'T1',
  at: new Date('2026-03-01T10:00:20Z'),
  actor: 'U0ADA',
  action: 'nodes.reboot',
  target: 'nodeId=12',
  approvalId: null,
  result: 'succeeded',
  detail: null,
  ...over,
});

describe('renderAccountEvent', () => {
  it('names the action, the entity by label and id, the status, the time and an outside maker', () => {
    const message = renderAccountEvent(event, undefined);
    expect(message.text).toBe(
      'Event 500123: node_reboot on node web-1 (12), finished, outside the bot (`ops-script`)',
    );
    const section = JSON.stringify(message.blocks[0]);
    expect(section).toContain('*node_reboot* on node *web-1* (`12`)');
    expect(section).toContain('<!date^');
  });

  it('names the Slack user of a change made through the bot', () => {
    const message = renderAccountEvent(event, entry());
    expect(message.text).toContain('through the bot by <@U0ADA>');
    expect(message.text).not.toContain('ops-script');
  });

  it('escapes what the API wrote', () => {
    const hostile = { ...event, entity: { ...event.entity, type: 'node', label: '<!channel> *x*' } };
    const message = renderAccountEvent(hostile, undefined);
    expect(JSON.stringify(message)).not.toContain('<!channel>');
  });
});

describe('which audit entry made an event', () => {
  it('matches the same entity id and action word within five minutes', () => {
    expect(auditEntryMatches(event, entry())).toBe(true);
    expect(auditEntryMatches(event, entry({ target: 'nodeId=13' }))).toBe(false);
    expect(auditEntryMatches(event, entry({ action: 'nodes.shutdown' }))).toBe(false);
    expect(auditEntryMatches(event, entry({ at: new Date('2026-03-01T10:06:00Z') }))).toBe(false);
    expect(auditEntryMatches(event, entry({ result: 'failed' }))).toBe(false);
  });

  it('gives one audit entry to one event only', async () => {
    const second = { ...event, id: 500124, created: '2026-03-01T10:01:00' };
    const audit = { list: async () => ({ entries: [entry()] }) };
    const madeBy = await botChangesFor(audit, 'T1', [event, second]);
    expect(madeBy(event)?.actor).toBe('U0ADA');
    expect(madeBy(second)).toBeUndefined();
  });
});

describe('eventPassesFilter', () => {
  it('keeps what every list names, and everything without lists', () => {
    expect(eventPassesFilter(event, {})).toBe(true);
    expect(eventPassesFilter(event, { action: ['node_reboot'], entity: ['node'] })).toBe(true);
    expect(eventPassesFilter(event, { action: ['volume_delete'] })).toBe(false);
    expect(eventPassesFilter(event, { entity: ['volume'] })).toBe(false);
  });
});
