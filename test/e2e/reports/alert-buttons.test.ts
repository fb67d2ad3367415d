import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../../infra/local/slack/store.js';
import { getOperation } from '../../../lib/api/operations/index.js';
import type { ManagedService } from '../../../lib/api/operations/managed.js';
import { slackFixtures } from '../../support/slack-fixtures.js';
import { type ReporterHarness, startReporterHarness } from './harness.js';

/**
 * The buttons of a new-issue alert, clicked in the Slack stand-in: signed requests to the Slack
 * function, work handed to the worker, the emulator over HTTP, DynamoDB Local. A button runs its
 * operation the way the typed command would, with the clicker's own token.
 */

const MINUTE = 60_000;
const CHANNEL = 'C0ALERTBTN';

let harness: ReporterHarness;

beforeAll(async () => {
  harness = await startReporterHarness({
    stack: {
      slack: slackFixtures({
        channels: ['C0ALERTBTN'],
        people: ['U0ONCALL', 'U0OWNER', 'U0OWNER2', 'U0READER'],
      }),
    },
  });
});

afterAll(async () => {
  await harness?.close();
});

afterEach(async () => {
  await harness.clearSubscriptions();
});

/** The button labelled `label` in `message`, as the stand-in's click needs it. */
function button(message: StoredMessage, label: string): { actionId: string; value: string } {
  for (const block of message.blocks as { elements?: unknown[] }[]) {
    for (const element of (block.elements ?? []) as {
      type?: string;
      action_id?: string;
      value?: string;
      text?: { text?: string };
    }[]) {
      if (element.type === 'button' && element.text?.text === label && element.action_id && element.value) {
        return { actionId: element.action_id, value: element.value };
      }
    }
  }
  throw new Error(`no "${label}" button in ${JSON.stringify(message.blocks)}`);
}

async function click(user: string, message: StoredMessage, label: string): Promise<void> {
  const delivery = await harness.e2e.stack.workspace.click(user, message, button(message, label));
  expect(delivery.status).toBe(200);
  await harness.e2e.stack.drain();
}

async function serviceStatus(id: number): Promise<ManagedService['status']> {
  const service = (await harness
    .api()
    .call(getOperation('managed.services-view'), { serviceId: id })) as ManagedService;
  return service.status;
}

/** Subscribes the channel, opens an issue on `service`, and returns the alert the next run posts. */
async function alertFor(service: number, label: string): Promise<StoredMessage> {
  const before = harness.posted(CHANNEL).length;
  const issue = harness.e2e.emulator.control.createManagedIssue({ services: [service], label });
  harness.advance(5 * MINUTE);
  await harness.tick();
  const alert = harness
    .posted(CHANNEL)
    .slice(before)
    .find((m) => m.text.startsWith(`New managed issue ${issue.id}:`));
  if (!alert) throw new Error(`no alert for issue ${issue.id}`);
  return alert;
}

describe('new-issue alert buttons', () => {
  it('view the issue and the service, then disable and re-enable its monitoring through the worker', async () => {
    const control = harness.e2e.emulator.control;
    const service = [...control.world.services.values()].find((s) => s.status !== 'disabled');
    if (!service) throw new Error('the emulator has no monitored service');
    await harness.link('U0OWNER', 'owner');
    await harness.reports('U0OWNER', CHANNEL, 'reports add alerts --every 5m');
    harness.advance(5 * MINUTE);
    await harness.tick();
    await harness.link('U0ONCALL', 'oncall', { scopes: 'account:read_write' });

    const alert = await alertFor(service.id, 'checkout answers 502');
    const text = harness.e2e.textOf(alert);
    expect(text).toContain(`*${service.label}* · \`${service.address}\` · :red_circle: problem`);

    await click('U0ONCALL', alert, 'View issue');
    expect(harness.e2e.textOf(harness.e2e.lastSeen('U0ONCALL', CHANNEL))).toContain('checkout answers 502');

    await click('U0ONCALL', alert, `View ${service.label}`);
    expect(harness.e2e.textOf(harness.e2e.lastSeen('U0ONCALL', CHANNEL))).toContain(service.address);

    control.resetRequestCounts();
    await click('U0ONCALL', alert, 'Disable monitoring');
    expect(control.requestCount('managed.services-disable')).toBe(1);
    expect(control.requestCount('managed.services-disable', { serviceId: service.id })).toBe(1);
    expect(await serviceStatus(service.id)).toBe('disabled');

    // The next alert on the disabled service offers to turn monitoring back on.
    const next = await alertFor(service.id, 'checkout still answers 502');
    expect(harness.e2e.textOf(next)).toContain(':white_circle: disabled');
    await click('U0ONCALL', next, 'Enable monitoring');
    expect(await serviceStatus(service.id)).not.toBe('disabled');
  });

  it("run with the clicker's token: the API refuses a read-only token, and monitoring stays on", async () => {
    const control = harness.e2e.emulator.control;
    const service = [...control.world.services.values()].find((s) => s.status !== 'disabled');
    if (!service) throw new Error('the emulator has no monitored service');
    await harness.link('U0OWNER2', 'owner2');
    await harness.reports('U0OWNER2', CHANNEL, 'reports add alerts --every 5m');
    harness.advance(5 * MINUTE);
    await harness.tick();
    await harness.link('U0READER', 'reader', { scopes: 'account:read_only' });

    const alert = await alertFor(service.id, 'disk full');
    await click('U0READER', alert, 'Disable monitoring');
    expect(await serviceStatus(service.id)).not.toBe('disabled');
    expect(harness.e2e.seen('U0READER', CHANNEL).map((m) => m.text)).toContain(
      'You are not allowed to do that.',
    );
  });
});
