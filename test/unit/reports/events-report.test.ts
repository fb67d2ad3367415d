import { describe, expect, it } from 'vitest';
import type { AccountEvent } from '../../../lib/api/operations/events.js';
import {
  accountEventLine,
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
  it('names what happened to which node in words, its status, the time and an outside maker', () => {
    const message = renderAccountEvent(event, undefined);
    expect(message.text).toBe('Node web-1 rebooted (done), by `ops-script` outside the bot');
    const section = JSON.stringify(message.blocks[0]);
    expect(section).toContain('Node *web-1* rebooted · done · by `ops-script` outside the bot');
    expect(section).toContain('<!date^');
    expect(section).not.toContain('node_reboot');
  });

  it('says how long a finished event took, with a unit', () => {
    expect(accountEventLine({ ...event, duration: 125 }, undefined)).toContain('took 2 min 5 s');
  });

  it('names the Slack user of a change made through the bot', () => {
    const message = renderAccountEvent(event, entry());
    expect(message.text).toContain('by <@U0ADA> through the bot');
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

  it('credits both events of one resize through the bot to its audit entry (node_resize_create and node_resize)', async () => {
    const queued = { ...event, id: 500130, action: 'node_resize_create' };
    const resized = { ...event, id: 500131, action: 'node_resize', status: 'started' };
    const audit = { list: async () => ({ entries: [entry({ action: 'nodes.resize' })] }) };
    const madeBy = await botChangesFor(audit, 'T1', [queued, resized]);
    expect(madeBy(queued)?.actor).toBe('U0ADA');
    expect(madeBy(resized)?.actor).toBe('U0ADA');
  });

  it('gives one audit entry to one event of an action only', async () => {
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
