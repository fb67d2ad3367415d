import { describe, expect, it } from 'vitest';
import type { FieldShape } from '../../../lib/api/field-shape.js';
import { getOperation } from '../../../lib/api/operations/index.js';
import { auditLine } from '../../../lib/slack/render/audit.js';
import { renderDetail } from '../../../lib/slack/render/detail.js';
import { renderList } from '../../../lib/slack/render/list.js';
import {
  bytesWords,
  factLabel,
  fieldLabel,
  fieldValue,
  filterWords,
  formHint,
  formLabel,
  issueTitle,
  labelBeside,
  maintenanceWindowWords,
  resourceHeading,
  serviceName,
} from '../../../lib/slack-kit/field-words.js';
import type { AuditEntry } from '../../../lib/store/audit-log.js';
import { database, listOf, managedIssue } from '../slack/render/fixtures.js';
import { expectSendable, visibleText } from '../slack/render/message-checks.js';

/**
 * How fields read, each case with the text people saw before (in the test's name) and what they
 * see now: one module decides, and the detail, list, form and audit renderers go through it.
 */

describe('field labels', () => {
  it('"Total disk size gb" → "Total disk size (GB)", with the value in GB', () => {
    expect(fieldLabel('total_disk_size_gb')).toBe('Total disk size (GB)');
    expect(fieldValue(15, 'total_disk_size_gb')).toBe('15 GB');
    const text = visibleText(renderDetail(getOperation('databases.mysql-view'), { instanceId: 5 }, database));
    expect(text).not.toMatch(/size gb/i);
  });

  it('"Total disk size (GB) 80 GB" → "Total disk size 80 GB": a value shows its unit once', () => {
    const text = visibleText(renderDetail(getOperation('databases.mysql-view'), { instanceId: 5 }, database));
    expect(text).toContain('*Total disk size*\n15 GB');
    expect(text).toContain('*Used disk size*\n2 GB');
    expect(text).not.toContain('(GB)');
    // Where the value does not carry the unit, the label still does.
    expect(labelBeside('total_disk_size_gb', null)).toBe('Total disk size (GB)');
    expect(labelBeside('size', 50, 'volume')).toBe('Size');
  });

  it('"Node id" → "Node ID"; a volume\'s size is labelled with its unit', () => {
    expect(fieldLabel('node_id')).toBe('Node ID');
    expect(fieldLabel('lastDecrypted')).toBe('Last decrypted');
    expect(fieldLabel('size', 'volume')).toBe('Size (GB)');
    expect(fieldLabel('size', 'image')).toBe('Size (MB)');
    expect(factLabel('node_id')).toBe('node ID');
    expect(factLabel('CPU')).toBe('CPU');
    expect([fieldLabel('vcpus'), fieldLabel('gpus'), fieldLabel('kvm'), fieldLabel('pvops')]).toEqual([
      'vCPUs',
      'GPUs',
      'KVM',
      'Paravirt ops',
    ]);
  });
});

describe('field values', () => {
  it('"size 50" → "50 GB" for a volume', () => {
    expect(fieldValue(50, 'size', 'volume')).toBe('50 GB');
    expect(fieldValue(10240, 'size', 'volume')).toBe('10,240 GB');
  });

  it('groups the digits of quantities', () => {
    expect(fieldValue(81920, 'disk')).toBe('81,920');
    expect(fieldValue(81920, 'disk', 'node')).toBe('81,920 MB');
  });

  it('"Used 1,683,000,000" → "1.68 GB": a node\'s month of transfer is counted in bytes, its quota in GB', () => {
    expect(fieldValue(1_683_000_000, 'used', 'node-transfer')).toBe('1.68 GB');
    expect(fieldValue(512, 'used', 'node-transfer')).toBe('512 bytes');
    expect(fieldValue(1, 'used', 'node-transfer')).toBe('1 byte');
    expect(fieldValue(1000, 'quota', 'node-transfer')).toBe('1,000 GB');
    expect(bytesWords(2_500_000_000_000)).toBe('2.5 TB');
  });

  it('"Size 25,088", "Network out 1,000", "Memory limit 1,024" → each with the unit the API counts it in', () => {
    expect(fieldValue(25_088, 'size', 'disk')).toBe('25,088 MB');
    expect(fieldValue(1000, 'network_out', 'node-type')).toBe('1,000 Mbit/s');
    expect(fieldValue(1024, 'memory_limit', 'config')).toBe('1,024 MB');
    expect(fieldValue(25_600, 'disk', 'database-type')).toBe('25,600 MB');
  });

  it('regression: ids are never formatted as numbers ("Services 9,941" → "9941")', () => {
    expect(fieldValue(3306, 'port')).toBe('3306');
    expect(fieldValue(12345, 'node_id')).toBe('12345');
    expect(fieldValue(12345, 'instanceId')).toBe('12345');
    expect(fieldValue([9941, 12000], 'services')).toBe('9941, 12000');
    expect(fieldValue([9941], 'config_ids')).toBe('9941');
  });
});

describe('maintenance windows (the spec: day_of_week 1..7 from Monday, hour_of_day 0..23 UTC, duration 1..3 hours)', () => {
  it('"Updates: frequency weekly · duration 3 · hour of day 2 · day of week 7" → "Sundays 02:00–05:00 UTC, weekly"', () => {
    expect(
      maintenanceWindowWords({
        frequency: 'weekly',
        duration: 3,
        hour_of_day: 2,
        day_of_week: 7,
        week_of_month: null,
      }),
    ).toBe('Sundays 02:00–05:00 UTC, weekly');
  });

  it('reads Monday as day 1, a window past midnight, and monthly windows by their week', () => {
    expect(maintenanceWindowWords({ frequency: 'weekly', duration: 1, hour_of_day: 0, day_of_week: 1 })).toBe(
      'Mondays 00:00–01:00 UTC, weekly',
    );
    expect(maintenanceWindowWords({ duration: 2, hour_of_day: 23, day_of_week: 5 })).toBe(
      'Fridays 23:00–01:00 UTC, weekly',
    );
    expect(
      maintenanceWindowWords({
        frequency: 'monthly',
        duration: 3,
        hour_of_day: 2,
        day_of_week: 7,
        week_of_month: 2,
      }),
    ).toBe('2nd Sunday of the month, 02:00–05:00 UTC');
  });

  it('leaves values outside the documented ranges to be shown field by field', () => {
    expect(
      maintenanceWindowWords({ frequency: 'weekly', duration: 3, hour_of_day: 24, day_of_week: 7 }),
    ).toBe(undefined);
    expect(maintenanceWindowWords({ frequency: 'weekly', duration: 3, hour_of_day: 2, day_of_week: 0 })).toBe(
      undefined,
    );
    expect(maintenanceWindowWords({ frequency: 'daily', duration: 3, hour_of_day: 2, day_of_week: 7 })).toBe(
      undefined,
    );
    expect(maintenanceWindowWords('weekly')).toBe(undefined);
  });

  it('a database detail says its window as a sentence', () => {
    const text = visibleText(renderDetail(getOperation('databases.mysql-view'), { instanceId: 5 }, database));
    expect(text).toContain('*Maintenance window*\nMondays 00:00–03:00 UTC, weekly');
    expect(text).not.toContain('hour of day');
  });
});

describe('managed issues', () => {
  const unlabelled = { id: 825, created: '2018-01-01T00:01:01', services: [9941], entity: null };

  it('"Issue 823 `823`" → the ticket\'s subject with the id once, or "Issue 823" alone', () => {
    expect(issueTitle(managedIssue)).toBe('Managed Issue opened!');
    expect(issueTitle(unlabelled)).toBe('Issue 825');
    const labelled = visibleText(renderList(getOperation('managed.issues-list'), {}, listOf([managedIssue])));
    expect(labelled).toContain('*Managed Issue opened!*  `823`');
    const bare = visibleText(renderList(getOperation('managed.issues-list'), {}, listOf([unlabelled])));
    expect(bare).toContain('*Issue 825*\n');
    expect(bare).not.toContain('`825`');
  });

  it('"Issue: Issue 825" → "Issue 825"', () => {
    expect(resourceHeading('issue', 'Issue 825')).toBe('Issue 825');
    expect(resourceHeading('volume', 'db-data')).toBe('Volume: db-data');
    const message = renderDetail(getOperation('managed.issues-view'), { issueId: 825 }, unlabelled);
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Issue 825' } });
    expectSendable(message);
  });

  it('"services 9942" → "affects service 9942"; "Services 9,941" → "Service: service 9941"', () => {
    expect(serviceName(9942)).toBe('service 9942');
    expect(serviceName(9942, 'shop')).toBe('shop');
    const row = visibleText(
      renderList(getOperation('managed.issues-list'), {}, listOf([{ ...managedIssue, services: [9942] }])),
    );
    expect(row).toContain('affects service 9942');
    expect(row).not.toContain('services 9942');
    const detail = visibleText(
      renderDetail(getOperation('managed.issues-view'), { issueId: 825 }, unlabelled),
    );
    expect(detail).toContain('*Service*\nservice 9941');
    expect(detail).not.toContain('ticket');
    expect(detail).not.toContain('9,941');
  });
});

describe('form fields', () => {
  const text: FieldShape = { kinds: new Set(['string']), minLength: 1, maxLength: 32 };
  const size: FieldShape = { kinds: new Set(['integer']), minimum: 1, maximum: 10240 };
  const tags: FieldShape = { kinds: new Set(['array']), items: { kinds: new Set(['string']) } };
  const id: FieldShape = { kinds: new Set(['integer']), minimum: 1 };

  it('"--label (must be text)" → "Label", with "1 to 32 characters" below', () => {
    expect(formLabel('label', text)).toBe('Label');
    expect(formHint('label', text)).toBe('1 to 32 characters');
  });

  it('says nothing of a minimum of one character alone ("at least 1 characters")', () => {
    expect(formHint('region', { kinds: new Set(['string']), minLength: 1 })).toBe(undefined);
  });

  it('"from 1 to …" → "at least 1"; a size "1 to 10,240 GB"', () => {
    expect(formLabel('node_id', id)).toBe('Node ID');
    expect(formHint('node_id', id)).toBe('at least 1');
    expect(formLabel('size', size, 'volume')).toBe('Size (GB)');
    expect(formHint('size', size, 'volume')).toBe('1 to 10,240 GB');
  });

  it('"--tags (must be a JSON list)" → "Tags", one or more separated by commas', () => {
    expect(formLabel('tags', tags)).toBe('Tags');
    expect(formHint('tags', tags)).toBe('one or more, separated by commas (or a JSON list)');
  });

  it("uses the field's description when the schema has one", () => {
    expect(formLabel('x', { kinds: new Set(['string']), description: 'The node to attach to. More.' })).toBe(
      'The node to attach to',
    );
  });
});

describe('audit lines', () => {
  const at = new Date('2026-11-26T20:50:18.641Z');
  const entry = (over: Partial<AuditEntry>): AuditEntry => ({
    id: 'e1',
    team: 'T1',
    at,
    actor: 'U0BOB',
    action: 'volumes.delete',
    target: 'volumeId=12',
    approvalId: '1a2b3c4d-0000',
    result: 'succeeded',
    detail: null,
    ...over,
  });

  it('"2026-11-26T20:50:18.641Z `volumes.delete` volumeId=12" → words', () => {
    expect(auditLine(entry({}))).toBe(
      '• <!date^1795726218^{date_short} {time}|2026-11-26 20:50 UTC> <@U0BOB> ran `volumes delete` on volume 12 — *succeeded* (request 1a2b3c4d)',
    );
  });

  it('"`policy.channel` channel C123" → "changed the policy of #channel"', () => {
    expect(
      auditLine(
        entry({ action: 'policy.channel', target: 'channel C0123', approvalId: null, detail: 'allow read' }),
      ),
    ).toBe(
      '• <!date^1795726218^{date_short} {time}|2026-11-26 20:50 UTC> <@U0BOB> changed the policy of <#C0123>: allow read',
    );
  });

  it('an admin\'s reviewed reset reads as the operation it is, naming the person, never "did `mfa reset` on user U0DAVE"', () => {
    const line = (result: AuditEntry['result']) =>
      auditLine(entry({ action: 'mfa.reset', target: 'user U0DAVE', actor: 'U0ADA', result }));
    expect(line('requested')).toContain('<@U0ADA> asked to run `mfa reset` on <@U0DAVE> (request 1a2b3c4d)');
    expect(line('approved')).toContain('<@U0ADA> approved `mfa reset` on <@U0DAVE>');
    expect(line('succeeded')).toContain('<@U0ADA> ran `mfa reset` on <@U0DAVE> — *succeeded*');
    expect(line('succeeded')).not.toContain('user U0DAVE');
  });

  // The details below are as `lib/core/policies.ts` writes them (test/unit/core/policies.test.ts pins them).
  it('a channel policy change reads as words, not `destructive={"requiredApprovals":2,…}`', () => {
    const detail =
      'allow=read,destructive destructive={"requiredApprovals":2,"approverGroup":"S0ONCALL","stepUp":"passkey"} volumes.delete={"approverUsers":["U0ALICE"]} break-glass=on';
    const line = auditLine(
      entry({ action: 'policy.channel', target: 'channel C0123', approvalId: null, detail }),
    );
    expect(line).toContain(
      'changed the policy of <#C0123>: allowed: read and destructive operations; destructive: 2 approvals, from <!subteam^S0ONCALL>, step-up: a passkey; `volumes.delete`: from <@U0ALICE>; break-glass: on',
    );
    expect(line).not.toContain('{"');
  });

  it('a workspace approval policy change reads as words, not `approvers=U0ALICE,U0ADMIN required=2 …`', () => {
    const detail =
      'approvers=U0ALICE,U0ADMIN approver-group=S0ONCALL required=2 self-approval=off expiry=15 step-up=code require-reason=on';
    const line = auditLine(
      entry({ action: 'approvals.policy', target: 'approval policy', approvalId: null, detail }),
    );
    expect(line).toContain(
      'changed the approval policy: approvals: 2 of <@U0ALICE>, <@U0ADMIN> and <!subteam^S0ONCALL>; no self-approval; requests expire after 15 min; step-up: an authenticator code; reason required',
    );
    expect(line).not.toContain('=');
  });

  it('a policy detail the words do not recognise is shown as written, escaped', () => {
    const detail =
      'allow=read destructive={"requiredApprovals":2,"approverUsers":["<!here>"]} break-glass=off';
    const line = auditLine(entry({ action: 'policy.channel', target: 'channel C0123', detail }));
    expect(line).toContain('&lt;!here&gt;');
  });

  it('names each outcome in words and spaced commands', () => {
    expect(auditLine(entry({ result: 'requested', approvalId: null }))).toContain(
      '<@U0BOB> asked to run `volumes delete` on volume 12',
    );
    expect(auditLine(entry({ result: 'in_doubt' }))).toContain('— *outcome not known yet; checking*');
    expect(
      auditLine(entry({ action: 'databases.mysql-backup-restore', target: 'instanceId=5 backupId=9' })),
    ).toContain('ran `databases mysql backup restore` on instance 5 backup 9');
    expect(auditLine(entry({ action: 'app.uninstalled', actor: 'slack', target: null }))).toContain(
      'slack uninstalled the app',
    );
    expect(auditLine(entry({ action: 'something.new', target: null, result: 'failed' }))).toContain(
      'did `something new` — *failed*',
    );
  });

  it('keeps text from users inert', () => {
    const line = auditLine(
      entry({ action: 'policy.channel', target: 'channel <!here>', detail: '<@U1> & co' }),
    );
    expect(line).not.toContain('<!here>');
    expect(line).not.toContain('<@U1>');
  });
});

describe("filterWords with the person's own keys", () => {
  it.each(['toString', 'hasOwnProperty', 'valueOf', '__proto__', 'constructor'])(
    'words a filter naming %s as text, never finding a function of the object prototype',
    (key) => {
      const asField = filterWords(JSON.parse(`{"${key}":{"polluted":1}}`), 'volume');
      const asOperator = filterWords(JSON.parse(`{"size":{"${key}":1}}`), 'volume');
      expect(asField).toContain('polluted 1');
      expect(asOperator).toBe(`size ${key} 1 GB`);
      expect(`${asField} ${asOperator}`).not.toMatch(/function|native code|undefined/);
    },
  );
});
