import { describe, expect, it } from 'vitest';
import {
  compareDecided,
  DECIDED_FIELDS,
  type DecidedKind,
  decidedFingerprint,
  fieldsInWords,
  isDecidedKind,
  judgeUnansweredDelete,
} from '../../../lib/api/decided-fields.js';
import { operations } from '../../../lib/api/operations/index.js';
import { viewOperationFor } from '../../../lib/api/outcome.js';
import { targetKindOf } from '../../../lib/changes/preview.js';
import { factLabel } from '../../../lib/slack-kit/field-words.js';

const IMAGE_CREATING = {
  id: 'private/7',
  label: 'golden',
  size: 2500,
  type: 'manual',
  is_public: false,
  status: 'creating',
  updated: '2026-11-26T20:50:00',
  expiry: null,
};

const fingerprint = (kind: string, resource: Record<string, unknown>) => decidedFingerprint(kind, resource);

function changedFields(kind: string, before: Record<string, unknown>, after: Record<string, unknown>) {
  const comparison = compareDecided(kind, fingerprint(kind, before), fingerprint(kind, after));
  return comparison.changed ? comparison.fields.map((f) => f.words ?? factLabel(f.path)) : [];
}

describe('the decided-fields table', () => {
  it('names every kind a change can target (a change operation whose target kind has no row fails here)', () => {
    const unlisted = operations
      .filter((op) => op.method !== 'GET')
      .filter((op) => viewOperationFor(op) !== undefined)
      .map((op) => ({ op: op.id, kind: targetKindOf(op) }))
      .filter(({ kind }) => !isDecidedKind(kind));
    expect(unlisted).toEqual([]);
  });

  it('lists only statuses the documents name for each kind (API-FACTS §2, the spec documents)', () => {
    const documented: Partial<Record<DecidedKind, readonly string[]>> = {
      node: [
        'running',
        'offline',
        'booting',
        'rebooting',
        'shutting_down',
        'provisioning',
        'deleting',
        'migrating',
        'rebuilding',
        'cloning',
        'restoring',
        'stopped',
        'billing_suspension',
      ],
      'node-backup': [
        'paused',
        'pending',
        'running',
        'needsPostProcessing',
        'successful',
        'failed',
        'userAborted',
      ],
      volume: ['creating', 'active', 'resizing'],
      image: ['creating', 'pending_upload', 'available'],
      database: [
        'provisioning',
        'active',
        'suspending',
        'suspended',
        'resuming',
        'restoring',
        'failed',
        'degraded',
        'updating',
        'backing_up',
      ],
      service: ['disabled', 'pending', 'ok', 'problem'],
      // API-FACTS-MORE.md §6 (`Disk`).
      disk: ['ready', 'not ready', 'deleting'],
    };
    for (const [kind, rules] of Object.entries(DECIDED_FIELDS) as [
      DecidedKind,
      (typeof DECIDED_FIELDS)[DecidedKind],
    ][]) {
      const named = [
        ...Object.keys(rules.settles ?? {}),
        ...Object.values(rules.settles ?? {}).flat(),
        ...(rules.deleting ?? []),
      ];
      if (named.length === 0) continue;
      expect(documented[kind], kind).toBeDefined();
      for (const status of named) expect(documented[kind], `${kind}: ${status}`).toContain(status);
    }
  });

  it('never counts a time the provider moves by itself', () => {
    for (const rules of Object.values(DECIDED_FIELDS)) {
      const paths = rules.fields.map((f) => f.path);
      expect(paths).not.toContain('updated');
      expect(paths).not.toContain('last_decrypted');
      expect(paths).not.toContain('last_authenticated');
    }
  });
});

describe('whether a target changed since the card', () => {
  it('regression: an image that finished creating, with its updated time bumped, was "changed: status" — now it is the same image', () => {
    const available = { ...IMAGE_CREATING, status: 'available', updated: '2026-11-26T20:52:00' };
    expect(
      compareDecided('image', fingerprint('image', IMAGE_CREATING), fingerprint('image', available)),
    ).toEqual({ changed: false });
  });

  it('a relabelled image changed, named as people say it', () => {
    expect(changedFields('image', IMAGE_CREATING, { ...IMAGE_CREATING, label: 'golden-2' })).toEqual([
      'label',
    ]);
    expect(
      changedFields('image', IMAGE_CREATING, { ...IMAGE_CREATING, is_public: true, size: 3000 }),
    ).toEqual(['size', 'visibility (public or private)']);
  });

  it('a status leaving its own path is a change: an available image is not going back to creating', () => {
    const available = { ...IMAGE_CREATING, status: 'available' };
    expect(changedFields('image', available, IMAGE_CREATING)).toEqual(['status']);
  });

  it('a node that finished provisioning or booting is the same node; a running node now offline changed', () => {
    const node = { id: 1, label: 'web-1', region: 'us-east', type: 'g6-standard-1', image: 'node/debian12' };
    expect(
      changedFields('node', { ...node, status: 'provisioning' }, { ...node, status: 'running' }),
    ).toEqual([]);
    expect(changedFields('node', { ...node, status: 'booting' }, { ...node, status: 'running' })).toEqual([]);
    expect(changedFields('node', { ...node, status: 'running' }, { ...node, status: 'offline' })).toEqual([
      'status',
    ]);
    expect(changedFields('node', { ...node, status: 'running' }, { ...node, status: 'migrating' })).toEqual([
      'status',
    ]);
  });

  it('a volume: creating → active is its own way; attached to a node since, or resized, is a change', () => {
    const volume = {
      id: 12,
      label: 'db-data',
      size: 50,
      region: 'us-east',
      node_id: null,
      status: 'creating',
    };
    expect(changedFields('volume', volume, { ...volume, status: 'active' })).toEqual([]);
    expect(
      changedFields('volume', { ...volume, status: 'active' }, { ...volume, status: 'resizing' }),
    ).toEqual(['status']);
    expect(changedFields('volume', volume, { ...volume, status: 'active', node_id: 34 })).toEqual([
      'attached node',
    ]);
  });

  it('a database that finished provisioning is the same; one that failed is not', () => {
    const db = {
      id: 41,
      label: 'orders',
      engine: 'mysql',
      version: '8.0.30',
      region: 'us-east',
      status: 'provisioning',
    };
    expect(changedFields('database', db, { ...db, status: 'active' })).toEqual([]);
    expect(changedFields('database', db, { ...db, status: 'failed' })).toEqual(['status']);
  });

  it("a node's current snapshot replaced since the card is a change (the card named the one it replaces)", () => {
    const list = { automatic: [], snapshot: { current: { id: 9, label: 'before' }, in_progress: null } };
    const none = { automatic: [], snapshot: { current: null, in_progress: null } };
    expect(changedFields('node-backup', list, { ...list, snapshot: { current: { id: 10 } } })).toEqual([
      'current snapshot',
    ]);
    expect(changedFields('node-backup', none, list)).toEqual(['current snapshot']);
  });

  it('a trusted device signing in again is the same device', () => {
    const device = {
      id: 3,
      user_agent: 'Firefox',
      last_authenticated: '2026-11-26T10:00:00',
      last_remote_addr: '1.2.3.4',
    };
    expect(
      changedFields('device', device, {
        ...device,
        last_authenticated: '2026-11-26T11:00:00',
        last_remote_addr: '5.6.7.8',
      }),
    ).toEqual([]);
  });

  it('compares only what was recorded: a request made before a field joined its row keeps its own comparison', () => {
    const legacy = JSON.stringify({
      label: 'golden',
      updated: '2026-11-26T20:50:00',
      status: 'creating',
      size: 2500,
    });
    const now = fingerprint('image', { ...IMAGE_CREATING, status: 'available', is_public: true });
    expect(compareDecided('image', legacy, now)).toEqual({ changed: false });
  });

  it('a recorded fingerprint that cannot be read counts as changed, naming nothing', () => {
    expect(compareDecided('image', 'not json', fingerprint('image', IMAGE_CREATING))).toEqual({
      changed: true,
      fields: [],
    });
  });

  it('a kind without a row is judged by its label and status, strictly', () => {
    expect(changedFields('generic', { label: 'a', status: 'pending' }, { label: 'a', status: 'ok' })).toEqual(
      ['status'],
    );
  });

  it('names several fields in a sentence', () => {
    expect(fieldsInWords(['label'])).toBe('label');
    expect(fieldsInWords(['label', 'size'])).toBe('label and size');
    expect(fieldsInWords(['label', 'size', 'status'])).toBe('label, size and status');
  });
});

describe('a delete whose every attempt got a server error, read back once', () => {
  const volume = { id: 12, label: 'db-data', size: 50, region: 'us-east', node_id: null, status: 'active' };
  const recorded = fingerprint('volume', volume);

  it('gone: deleted', () => {
    expect(judgeUnansweredDelete('volume', recorded, 'not_found')).toBe('deleted');
  });

  it('there as the approvers saw it: not deleted', () => {
    expect(judgeUnansweredDelete('volume', recorded, fingerprint('volume', volume))).toBe('not_deleted');
  });

  it('there, having only gone its own way (creating → active): not deleted', () => {
    const creating = fingerprint('volume', { ...volume, status: 'creating' });
    expect(judgeUnansweredDelete('volume', creating, recorded)).toBe('not_deleted');
  });

  it('being deleted: still in doubt', () => {
    const node = { id: 1, label: 'web-1', region: 'us-east', type: 'g6-standard-1', image: null };
    const running = fingerprint('node', { ...node, status: 'running' });
    const deleting = fingerprint('node', { ...node, status: 'deleting' });
    expect(judgeUnansweredDelete('node', running, deleting)).toBe('in_doubt');
    expect(judgeUnansweredDelete('node', deleting, deleting)).toBe('in_doubt');
  });

  it('changed, unreadable, or with nothing recorded to compare: still in doubt', () => {
    expect(judgeUnansweredDelete('volume', recorded, fingerprint('volume', { ...volume, size: 60 }))).toBe(
      'in_doubt',
    );
    expect(judgeUnansweredDelete('volume', recorded, null)).toBe('in_doubt');
    expect(judgeUnansweredDelete('volume', null, recorded)).toBe('in_doubt');
  });
});
