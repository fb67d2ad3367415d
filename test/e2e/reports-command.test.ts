import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, type E2E, startE2E } from '../support/e2e.js';

/** `/cloud reports …` typed in Slack, through the whole stack. */

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E();
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

async function subscriptions() {
  return e2e.stack.store.reports.list(e2e.stack.workspace.teamId);
}

describe('/cloud reports', () => {
  it('add subscribes the channel with the caller as owner', async () => {
    const delivery = await e2e.command(ALICE, 'reports add issues --daily 09:00 --tz Europe/Berlin');
    expect(delivery.status).toBe(200);
    const [sub] = await subscriptions();
    expect(sub).toMatchObject({ kind: 'issues', owner: ALICE, paused: false });
    // Messages name subscriptions by the first 8 characters of their id, which commands accept.
    expect(e2e.textOf(delivery.message)).toContain(sub?.id.slice(0, 8) ?? 'missing');
  });

  it('list shows it; pause, resume and remove change it', async () => {
    const [sub] = await subscriptions();
    if (!sub) throw new Error('no subscription');
    const id = sub.id.slice(0, 8);
    expect(e2e.textOf((await e2e.command(BOB, 'reports list')).message)).toContain(id);
    await e2e.command(ALICE, `reports pause ${id}`);
    expect((await subscriptions())[0]?.paused).toBe(true);
    await e2e.command(ALICE, `reports resume ${id}`);
    expect((await subscriptions())[0]?.paused).toBe(false);
    await e2e.command(ALICE, `reports remove ${id}`);
    expect(await subscriptions()).toEqual([]);
  });

  it('refuses a schedule it cannot keep, with the reason', async () => {
    const delivery = await e2e.command(ALICE, 'reports add issues --every 1m');
    expect(e2e.textOf(delivery.message)).toMatch(/5 minutes|at least/);
    expect(await subscriptions()).toEqual([]);
  });

  it('needs a linked token', async () => {
    const delivery = await e2e.command(BOB, 'reports add alerts');
    expect(e2e.textOf(delivery.message)).toContain('/cloud login');
  });
});
