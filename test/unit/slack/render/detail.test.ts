import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { defineOperation } from '../../../../lib/api/operation.js';
import { getOperation, requireOperation } from '../../../../lib/api/operations/index.js';
import { renderDetail } from '../../../../lib/slack/render/detail.js';
import { actionIdPattern } from '../../../../lib/slack-kit/interaction-ids.js';
import { ActionId, decodeActionValue, RunPayloadSchema } from '../../../../lib/slack-kit/interactions.js';
import { SLACK_LIMITS } from '../../../../lib/slack-kit/limits.js';
import {
  database,
  detachedVolume,
  node,
  nodeBackup,
  privateImage,
  publicImage,
  TOKEN_PREFIX,
  token,
  volume,
} from './fixtures.js';
import { buttonLabeled, buttons, expectSendable, type Message, visibleText } from './message-checks.js';

const labels = (message: Message) => buttons(message).map((b) => b.text?.text);
const payloadOf = (message: Message, label: string) =>
  decodeActionValue(RunPayloadSchema, buttonLabeled(message, label)?.value);

describe('renderDetail: volumes', () => {
  const view = getOperation('volumes.view');

  it('leads with a header and the volume fields', () => {
    const message = renderDetail(view, { volumeId: 12 }, volume);
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Volume: db-data' } });
    const text = visibleText(message);
    expect(text).toContain('*Status*\n:large_green_circle: active');
    expect(text).toContain('*Size*\n30 GB');
    expect(text).toContain('*Attached to*\nnode123 (12346)');
    expect(text).toContain('id `12`');
    expectSendable(message);
  });

  it('offers Detach when attached, and Attach (which asks for the node) when not', () => {
    const attached = renderDetail(view, { volumeId: 12 }, volume);
    expect(labels(attached)).toEqual(['Detach', 'Delete']);
    expect(payloadOf(attached, 'Detach')).toEqual({ operationId: 'volumes.detach', input: { volumeId: 12 } });
    const detached = renderDetail(view, { volumeId: 13 }, detachedVolume);
    expect(labels(detached)).toEqual(['Attach', 'Delete']);
    expect(payloadOf(detached, 'Attach')).toEqual({ operationId: 'volumes.attach', input: { volumeId: 13 } });
  });

  it('styles Delete as danger with a confirm dialog from the consequence, within limits', () => {
    const message = renderDetail(view, { volumeId: 12 }, { ...volume, label: 'v'.repeat(3000) });
    const remove = buttonLabeled(message, 'Delete');
    expect(remove?.style).toBe('danger');
    expect(remove?.confirm?.text.text).toContain(getOperation('volumes.delete').destructive?.consequence);
    expect(remove?.confirm?.title?.text.length).toBeLessThanOrEqual(SLACK_LIMITS.confirmTitle);
    expect(remove?.confirm?.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.confirmText);
    expect(remove?.confirm?.confirm?.text.length).toBeLessThanOrEqual(SLACK_LIMITS.confirmButton);
    expect(payloadOf(message, 'Delete')).toEqual({ operationId: 'volumes.delete', input: { volumeId: 12 } });
    expectSendable(message);
  });

  it('names the new volume, not the source, after a clone', () => {
    const message = renderDetail(
      getOperation('volumes.clone'),
      { volumeId: 12, label: 'copy' },
      { ...detachedVolume, id: 99, label: 'copy' },
    );
    expect(payloadOf(message, 'Delete')).toEqual({ operationId: 'volumes.delete', input: { volumeId: 99 } });
  });

  it('gives every button of the actions block its own action id, all matching the contract id', () => {
    const message = renderDetail(view, { volumeId: 12 }, volume);
    const ids = buttons(message).map((b) => b.action_id ?? '');
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(actionIdPattern(ActionId.run));
    expect(ids[0]).toBe(ActionId.run);
  });
});

describe('renderDetail: nodes', () => {
  const view = getOperation('nodes.view');

  it('shows specs and backups, and the natural next actions', () => {
    const message = renderDetail(view, { nodeId: 123 }, node);
    const text = visibleText(message);
    expect(text).toContain('*Specs*\n2 vCPUs · 4 GB RAM · 80 GB disk');
    expect(text).toContain('*Backups*\nenabled, last <!date^1514764861^{ago}|2018-01-01 00:01 UTC>');
    expect(labels(message)).toEqual(['Backups', 'Configs', 'Snapshot', 'Delete']);
    expect(payloadOf(message, 'Configs')).toEqual({
      operationId: 'nodes.configs-list',
      input: { nodeId: 123 },
    });
    expectSendable(message);
  });

  it('offers Boot when the node is not running and Enable backups when they are off', () => {
    const message = renderDetail(
      view,
      { nodeId: 123 },
      { ...node, status: 'offline', backups: { ...node.backups, enabled: false } },
    );
    expect(labels(message)).toEqual(['Boot', 'Backups', 'Configs', 'Snapshot', 'Enable backups', 'Delete']);
    expect(payloadOf(message, 'Enable backups')).toEqual({
      operationId: 'nodes.backups-enable',
      input: { nodeId: 123 },
    });
  });

  it('marks every destructive action danger with a confirm dialog', () => {
    const message = renderDetail(view, { nodeId: 123 }, node);
    for (const button of buttons(message)) {
      const op = requireOperation(decodeActionValue(RunPayloadSchema, button.value)?.operationId ?? '');
      expect(button.style === 'danger', op.id).toBe(op.destructive !== undefined);
      expect(button.confirm !== undefined, op.id).toBe(op.destructive !== undefined);
    }
  });

  it("lists a node's backups object as rows that open each backup", () => {
    const output = {
      automatic: [{ ...nodeBackup, id: 1, type: 'auto', label: null }],
      snapshot: { current: nodeBackup, in_progress: null },
    };
    const message = renderDetail(getOperation('nodes.backups-list'), { nodeId: 123 }, output);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Backups of node 123' } });
    const text = visibleText(message);
    expect(text).toContain('Current snapshot');
    expect(text).toContain('Automatic backups');
    expect(payloadOf(message, 'View')).toEqual({
      operationId: 'nodes.backups-view',
      input: { nodeId: 123, backupId: 123456 },
    });
    expectSendable(message);
  });

  it('offers to restore a successful backup onto its own node', () => {
    const message = renderDetail(
      getOperation('nodes.backups-view'),
      { nodeId: 123, backupId: 123456 },
      nodeBackup,
    );
    expect(payloadOf(message, 'Restore to this node')).toEqual({
      operationId: 'nodes.backups-restore',
      input: { nodeId: 123, backupId: 123456, node_id: 123 },
    });
  });
});

describe('renderDetail: other kinds', () => {
  it('databases: SSL cert and credentials; reset and delete are dangerous', () => {
    const message = renderDetail(getOperation('databases.mysql-view'), { instanceId: 5 }, database);
    expect(labels(message)).toEqual([
      'Backups',
      'SSL cert',
      'Credentials (private)',
      'Snapshot',
      'Reset credentials',
      'Delete',
    ]);
    expect(payloadOf(message, 'SSL cert')).toEqual({
      operationId: 'databases.mysql-ssl-cert',
      input: { instanceId: 5 },
    });
    expect(buttonLabeled(message, 'Reset credentials')?.style).toBe('danger');
    expect(visibleText(message)).toContain('*Engine*\nMySQL 8.0.26');
    expectSendable(message);
  });

  it('images: Delete only for private images', () => {
    const view = getOperation('images.view');
    expect(labels(renderDetail(view, { imageId: 'node/debian11' }, publicImage))).toEqual([]);
    expect(labels(renderDetail(view, { imageId: 'private/15' }, privateImage))).toEqual(['Delete']);
  });

  it('tokens: never the token prefix', () => {
    const message = renderDetail(getOperation('profile.tokens-view'), { tokenId: 123 }, token);
    expect(JSON.stringify(message)).not.toContain(TOKEN_PREFIX);
    expect(labels(message)).toEqual(['Revoke']);
  });

  it('grants: an unrestricted user gets no grants body and is told so', () => {
    const message = renderDetail(getOperation('profile.grants'), {}, {});
    expect(visibleText(message)).toContain('You are an unrestricted user');
    expectSendable(message);
  });

  it('grants: a restricted user sees global grants and entity permissions', () => {
    const grants = {
      global: { account_access: 'read_only', add_volumes: true, add_nodes: false },
      node: [{ id: 123, label: 'web-1', permissions: 'read_write' }],
      volume: [],
    };
    const text = visibleText(renderDetail(getOperation('profile.grants'), {}, grants));
    expect(text).toContain('`add_volumes`');
    expect(text).not.toContain('add_nodes');
    expect(text).toContain('web-1 (read_write)');
  });

  it('security questions: whether each is answered, never the answer', () => {
    const output = {
      security_questions: [
        { id: 1, question: 'In what city were you born?', response: 'Gotham' },
        { id: 2, question: 'What was your first car?', response: null },
      ],
    };
    const message = renderDetail(getOperation('profile.security-questions-list'), {}, output);
    const text = visibleText(message);
    expect(text).toContain(':white_check_mark: In what city were you born?');
    expect(text).toContain(':white_circle: What was your first car?');
    expect(JSON.stringify(message)).not.toContain('Gotham');
  });

  it('managed stats: now, average and peak per series', () => {
    const series = [
      { x: 1, y: 10 },
      { x: 2, y: 29.94 },
      { x: 3, y: 20 },
    ];
    const output = { data: { cpu: series, disk: series, swap: [], net_in: series, net_out: series } };
    const text = visibleText(renderDetail(getOperation('managed.stats'), {}, output));
    expect(text).toContain('*CPU*\nnow 20 · average 19.98 · peak 29.94');
    expect(text).not.toContain('Swap');
  });

  it('managed stats say the API gives no units rather than showing bare numbers as if it did', () => {
    const output = { data: { cpu: [{ x: 1, y: 10 }], disk: [], swap: [], net_in: [], net_out: [] } };
    const text = visibleText(renderDetail(getOperation('managed.stats'), {}, output));
    expect(text).toContain('The API does not say the units of managed stats');
  });

  it('"CPU 2 entries" → each node stats value with its unit: CPU in %, IO in blocks/s, network in bits/s', () => {
    const output = {
      cpu: [
        [1521483600000, 0.42],
        [1521483900000, 1.5],
      ],
      io: { io: [[1521484800000, 0.19]], swap: [[1521484800000, 0]] },
      netv4: { in: [[1521484800000, 2004.36]], out: [], private_in: [], private_out: [] },
      netv6: { in: [], out: [], private_in: [], private_out: [] },
      title: 'example.com - my-node (node123456) - day (5 min avg)',
    };
    const message = renderDetail(getOperation('nodes.stats'), { nodeId: 123 }, output);
    const text = visibleText(message);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'Stats of node 123 — last 24 hours' } });
    expect(text).toContain('*CPU*\nnow 1.5 % · average 0.96 % · peak 1.5 %');
    expect(text).toContain('*Disk IO*\nnow 0.19 blocks/s');
    expect(text).toContain('*IPv4 in*\nnow 2,004.36 bits/s');
    expect(text).not.toContain('entries');
    expectSendable(message);
  });

  it('the SSL certificate as a code block, decoded to PEM', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    const output = { ca_certificate: Buffer.from(pem).toString('base64') };
    const message = renderDetail(getOperation('databases.mysql-ssl-cert'), { instanceId: 5 }, output);
    expect(visibleText(message)).toContain(
      '```\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n```',
    );
    expectSendable(message);
  });
});

describe('renderDetail: objects of an unknown shape', () => {
  const gadget = defineOperation({
    group: 'profile',
    action: 'gadget-view',
    summary: 'Show a gadget',
    method: 'GET',
    path: '/gadgets/{gadgetId}',
    scopes: [],
    paginated: false,
    request: z.strictObject({ gadgetId: z.number() }),
    response: z.object({}).loose(),
    example: 'profile gadget-view 1',
  });

  it('shows top-level scalars as fields and summarizes nested objects, without secrets', () => {
    const output = {
      id: 1,
      label: 'gizmo',
      colour: 'red',
      created: '2020-05-06T07:08:09',
      api_token: 'secret-value',
      limits: { cpu: 2, memory: 512, nested: { deep: true } },
      parts: [{ label: 'wheel' }, { label: 'axle' }],
    };
    const message = renderDetail(gadget, { gadgetId: 1 }, output);
    const text = visibleText(message);
    expect(message.blocks[0]).toMatchObject({ text: { text: 'gizmo' } });
    expect(text).toContain('*Colour*\nred');
    expect(text).toContain('*Created*\n<!date^1588748889^{date_short_pretty} {time}|2020-05-06 07:08 UTC>');
    expect(text).toContain('*Limits*\nCPU 2 · memory 512 · nested deep yes');
    expect(text).toContain('*Parts*\n2 entries: wheel, axle');
    expect(JSON.stringify(message)).not.toContain('secret-value');
  });

  it('stays within limits with 100 fields of 3,000 characters', () => {
    const output: Record<string, unknown> = { id: 1, label: 'l'.repeat(3000) };
    for (let i = 0; i < 100; i++) output[`field_${i}`] = 'v'.repeat(3000);
    const message = renderDetail(gadget, { gadgetId: 1 }, output);
    expectSendable(message);
    expect(visibleText(message)).toContain('80 more fields — add `--json` to see everything.');
  });
});
