import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { runReports } from '../../functions/reporter/handler.js';
import type { PageState } from '../../infra/local/slack/page/state.js';
import { type Sandbox, startSandbox } from '../../infra/local/start.js';
import { createLogger } from '../../lib/observability/logger.js';
import type { ReporterDeps } from '../../lib/reports/tick.js';
import { slackReporterSurface } from '../../lib/slack/reporter-surface.js';

/**
 * The reporter as `npm start` runs it every 10 s: a run that found nothing to do prints nothing,
 * so the banner and the demo token stay on the screen; a run that did something still says what.
 * In AWS (`quietWhenIdle` unset) every run is logged as before.
 */

const OPS = 'C0OPS';
const ALICE = 'U0ALICE';
const HOUR = 3_600_000;

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({
    dynamoEndpoint: inject('dynamoEndpoint'),
    pagePort: 0,
    emulatorPort: 0,
    // The test runs the reporter itself.
    reportIntervalMs: 24 * HOUR,
  });
});

afterAll(async () => {
  await sandbox?.close();
});

/** The sandbox's reporter dependencies, with a logger whose summary lines the test counts. */
function reporter() {
  const logger = createLogger('reporter');
  const info = vi.spyOn(logger, 'info').mockImplementation(() => undefined);
  const deps: ReporterDeps = {
    store: sandbox.stack.store,
    api: { baseUrl: sandbox.emulator.url, timeoutMs: 10_000 },
    slack: sandbox.stack.worker.slack,
    slackInstall: sandbox.stack.worker.slackInstall,
    logger,
    surface: slackReporterSurface(
      {
        store: sandbox.stack.store,
        api: { baseUrl: sandbox.emulator.url, timeoutMs: 10_000 },
        slack: sandbox.stack.worker.slack,
        logger,
      },
      { followRunbooks: false },
    ),
  };
  const summaries = () => info.mock.calls.filter(([message]) => message === 'reporter run').length;
  return { deps, summaries };
}

async function post(path: string, body: unknown): Promise<void> {
  await fetch(`${sandbox.pageUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await sandbox.stack.drain();
}

describe('the local reporter loop', () => {
  it('prints nothing for a run that found nothing to do', async () => {
    const { deps, summaries } = reporter();
    await runReports(deps, new Date(), { quietWhenIdle: true });
    expect(summaries()).toBe(0);
  });

  it('still logs every run where nothing asks it to be quiet (the scheduled function)', async () => {
    const { deps, summaries } = reporter();
    await runReports(deps, new Date());
    expect(summaries()).toBe(1);
  });

  it('says what a run did when a report was due', async () => {
    await post('/api/command', { user: ALICE, channel: OPS, text: '/cloud login' });
    const state = (await (
      await fetch(`${sandbox.pageUrl}/api/state?user=${ALICE}&channel=${OPS}`)
    ).json()) as PageState;
    if (!state.view) throw new Error('no login modal');
    await post('/api/view', {
      user: ALICE,
      viewId: state.view.id,
      values: { profile: { profile_input: 'default' }, token: { token_input: sandbox.emulator.demoToken } },
    });
    await post('/api/command', { user: ALICE, channel: OPS, text: '/cloud reports add issues --every 1h' });

    const { deps, summaries } = reporter();
    const summary = await runReports(deps, new Date(Date.now() + 2 * HOUR), { quietWhenIdle: true });
    expect(summary.run).toBe(1);
    expect(summaries()).toBe(1);
  });
});
