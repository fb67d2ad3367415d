import { describe, expect, it } from 'vitest';
import { getOperation, operations, requireOperation } from '../../../../lib/api/operations/index.js';
import { describeCompletion, renderOperationResult } from '../../../../lib/slack/render/result.js';
import { decodeActionValue, RunPayloadSchema } from '../../../../lib/slack-kit/interactions.js';
import { many, node, page, TOKEN_PREFIX, token, volume } from './fixtures.js';
import { buttons, expectSendable, visibleText } from './message-checks.js';

describe('renderOperationResult: dispatch', () => {
  it('renders a page of a paginated operation as a list, saying when the list holds more', () => {
    const message = renderOperationResult(getOperation('nodes.list'), {}, page(many(node, 3), 1, 7, 160));
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Nodes (160)' } });
    expect(JSON.stringify(message.blocks)).toContain('Only the first 3 can be read');
    expectSendable(message);
  });

  it('renders a single resource as a detail view', () => {
    const message = renderOperationResult(getOperation('volumes.view'), { volumeId: 12 }, volume);
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Volume: db-data' } });
  });

  it('renders the resource an action returns (attach returns the volume)', () => {
    const message = renderOperationResult(
      getOperation('volumes.attach'),
      { volumeId: 12, node_id: 12346 },
      volume,
    );
    expect(visibleText(message)).toContain('*Attached to*\nnode123 (12346)');
  });

  it('renders an empty result as a confirmation sentence', () => {
    const message = renderOperationResult(getOperation('volumes.delete'), { volumeId: 12 }, {});
    expect(message.text).toBe('Volume 12 deleted.');
    expect(visibleText(message)).toBe(':white_check_mark: Volume 12 deleted.');
    expectSendable(message);
  });

  it('offers to view the resource after an action that keeps it', () => {
    const message = renderOperationResult(getOperation('volumes.detach'), { volumeId: 12 }, {});
    const [view] = buttons(message);
    expect(view?.text?.text).toBe('View volume');
    expect(decodeActionValue(RunPayloadSchema, view?.value)).toEqual({
      operationId: 'volumes.view',
      input: { volumeId: 12 },
    });
  });

  it('marks nothing ephemeral-only unless the operation is sensitive', () => {
    const message = renderOperationResult(getOperation('volumes.view'), { volumeId: 12 }, volume);
    expect('ephemeralOnly' in message).toBe(false);
  });
});

describe('describeCompletion', () => {
  const sentence = (id: string, input: Record<string, unknown>) =>
    describeCompletion(requireOperation(id), input);

  it('says what happened, with the ids of the input', () => {
    expect(sentence('volumes.delete', { volumeId: 12 })).toBe('Volume 12 deleted.');
    expect(sentence('volumes.detach', { volumeId: 12 })).toBe('Volume 12 detached.');
    expect(sentence('nodes.backups-enable', { nodeId: 34 })).toBe('Backup service enabled on node 34.');
    expect(sentence('nodes.boot', { nodeId: 34, config_id: 7 })).toBe('Node 34 is booting with config 7.');
    expect(sentence('nodes.configs-delete', { nodeId: 34, configId: 7 })).toBe(
      'Config 7 of node 34 deleted.',
    );
    expect(sentence('profile.tokens-delete', { tokenId: 3 })).toBe('Token 3 revoked.');
    expect(sentence('databases.mysql-backup-delete', { instanceId: 5, backupId: 9 })).toBe(
      'Backup 9 of database 5 deleted.',
    );
    expect(sentence('profile.tfa-disable', {})).toBe('Two-factor authentication disabled.');
  });

  it('has a sentence for every operation that can return an empty result', () => {
    for (const op of operations.filter((o) => o.method !== 'GET')) {
      const input = Object.fromEntries(op.pathParams.map((p, i) => [p, i + 1]));
      const text = describeCompletion(op, input);
      expect(text, op.id).toMatch(/\.$/);
      expect(text, op.id).not.toContain('undefined');
    }
  });
});

describe('renderOperationResult: --json', () => {
  it('shows the result as a JSON code block', () => {
    const message = renderOperationResult(getOperation('volumes.view'), { volumeId: 12 }, volume, {
      json: true,
    });
    expect(visibleText(message)).toContain('"label": "db-data"');
    expect(visibleText(message)).toContain('```');
    expectSendable(message);
  });

  it('cuts 70,000 characters of JSON visibly, split over sections within the limits', () => {
    const output = page(many(volume, 250, 200), 1, 1, 250);
    const json = JSON.stringify(output, null, 2);
    expect(json.length).toBeGreaterThan(70_000);
    const message = renderOperationResult(getOperation('volumes.list'), {}, output, { json: true });
    expectSendable(message);
    const sections = message.blocks.filter((b) => b.type === 'section');
    expect(sections.length).toBeGreaterThan(1);
    expect(visibleText(message)).toContain(
      `Cut short: the JSON is ${json.length.toLocaleString('en-US')} characters`,
    );
  });

  it('suggests a smaller --page-size only when the bot would accept one', () => {
    const op = getOperation('volumes.list');
    const big = renderOperationResult(op, {}, page(many(volume, 250, 200), 1, 1, 250), { json: true });
    expect(visibleText(big)).toContain('a smaller `--page-size` (25 at least)');
    const least = renderOperationResult(op, {}, page(many(volume, 25, 3000), 1, 10, 250), { json: true });
    expect(visibleText(least)).toContain('Cut short');
    expect(visibleText(least)).not.toContain('--page-size');
  });

  it('keeps a code fence inside a value from ending the block', () => {
    const message = renderOperationResult(
      getOperation('volumes.view'),
      { volumeId: 12 },
      { ...volume, label: 'a```b' },
      { json: true },
    );
    const fences = visibleText(message).match(/```/g) ?? [];
    expect(fences).toHaveLength(2);
  });

  it('hides secret fields of results that are not sensitive', () => {
    const message = renderOperationResult(getOperation('profile.tokens-list'), {}, page([token]), {
      json: true,
    });
    expect(JSON.stringify(message)).not.toContain(TOKEN_PREFIX);
    expect(visibleText(message)).toContain('"token": "[hidden]"');
  });
});

describe('renderOperationResult: every operation of the table', () => {
  it('renders a plausible result of each within the limits', () => {
    for (const op of operations) {
      const input = Object.fromEntries(op.pathParams.map((p, i) => [p, i + 1]));
      const item = { id: 7, label: 'l'.repeat(3000), status: 'active', created: '2018-01-01T00:01:01' };
      const output = op.paginated ? page(many(item, 120, 3000), 2, 3, 300) : op.method === 'GET' ? item : {};
      const message = renderOperationResult(op, input, output, { pageSize: 120 });
      expectSendable(message);
      for (const button of buttons(message)) {
        const payload = decodeActionValue(RunPayloadSchema, button.value);
        if (payload)
          expect(
            operations.some((o) => o.id === payload.operationId),
            `${op.id} → ${payload.operationId}`,
          ).toBe(true);
      }
    }
  });
});
