import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ClientMonitoring } from '../../infra/local/slack/page/client-api.js';
import type { ActionResult } from '../../infra/local/slack/page/server.js';
import type { PageState } from '../../infra/local/slack/page/state.js';
import { type Sandbox, startSandbox } from '../../infra/local/start.js';

/**
 * The README's alert picture from the page alone: the page's "Cloud monitoring" control raises a
 * managed issue in the emulator (a service stops answering) and resolves it, and a channel
 * subscribed with `/cloud reports add alerts` gets the alert, with no call to `/__control`.
 */

const OPS = 'C0OPS';
const ALICE = 'U0ALICE';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ dynamoEndpoint: inject('dynamoEndpoint'), pagePort: 0, emulatorPort: 0 });
});

afterAll(async () => {
  await sandbox?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${sandbox.pageUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await sandbox.stack.drain();
  return { status: response.status, result: (await response.json()) as ActionResult };
}

async function monitoring(): Promise<ClientMonitoring> {
  const response = await fetch(`${sandbox.pageUrl}/api/monitoring`);
  expect(response.status).toBe(200);
  return (await response.json()) as ClientMonitoring;
}

async function state(): Promise<PageState> {
  const response = await fetch(`${sandbox.pageUrl}/api/state?user=${ALICE}&channel=${OPS}`);
  return (await response.json()) as PageState;
}

/** What the cloud API itself answers, with the demo user's token. */
async function api<T>(path: string): Promise<T> {
  const response = await fetch(`${sandbox.emulator.url}${path}`, {
    headers: { authorization: `Bearer ${sandbox.emulator.demoToken}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

async function serviceId(label: string): Promise<number> {
  const service = (await monitoring()).services.find((s) => s.label === label);
  if (!service) throw new Error(`no managed service ${label}`);
  return service.id;
}

describe('cloud monitoring from the sandbox page', () => {
  it('lists the managed services with their status, and the issues with whether each is over', async () => {
    const seen = await monitoring();
    expect(seen.services.map((s) => [s.label, s.status])).toEqual([
      ['shop-frontend', 'ok'],
      ['api-gateway', 'problem'],
      ['internal-db', 'ok'],
    ]);
    expect(seen.issues.map((issue) => [issue.label, issue.resolved])).toEqual([
      ['api-gateway is not responding', false],
      ['shop-frontend returned unexpected content', true],
    ]);
  });

  it('raises an issue on the service picked: the API lists it and the service reports a problem', async () => {
    const shop = await serviceId('shop-frontend');
    const raised = await post('/api/monitoring/issue', { service: shop, summary: 'checkout answers 502' });
    expect(raised).toEqual({ status: 200, result: { ok: true } });

    const issues = await api<{ data: { id: number; services: number[]; entity: { label: string } }[] }>(
      '/managed/issues',
    );
    expect(issues.data[0]).toMatchObject({ services: [shop], entity: { label: 'checkout answers 502' } });
    expect((await api<{ status: string }>(`/managed/services/${shop}`)).status).toBe('problem');
    expect((await monitoring()).issues[0]).toMatchObject({ label: 'checkout answers 502', resolved: false });
  });

  it('resolves it: the service is ok again and the issue stays among the recent ones', async () => {
    const shop = await serviceId('shop-frontend');
    const open = (await monitoring()).issues.find(
      (issue) => !issue.resolved && issue.services.includes(shop),
    );
    if (!open) throw new Error('no open issue on shop-frontend');
    expect(await post('/api/monitoring/resolve', { issue: open.id })).toEqual({
      status: 200,
      result: { ok: true },
    });
    expect((await api<{ status: string }>(`/managed/services/${shop}`)).status).toBe('ok');
    expect((await api<{ id: number }>(`/managed/issues/${open.id}`)).id).toBe(open.id);
    expect((await monitoring()).issues.find((issue) => issue.id === open.id)?.resolved).toBe(true);
  });

  it('raises a new issue beside one that is over: the one over stays over', async () => {
    const shop = await serviceId('shop-frontend');
    const over = (await monitoring()).issues.filter((issue) => issue.resolved).map((issue) => issue.id);
    expect(over.length).toBeGreaterThan(0);
    await post('/api/monitoring/issue', { service: shop, summary: 'cart page times out' });
    const after = await monitoring();
    expect(after.issues.filter((issue) => over.includes(issue.id)).every((issue) => issue.resolved)).toBe(
      true,
    );
    const raised = after.issues.find((issue) => issue.label === 'cart page times out');
    if (!raised) throw new Error('the new issue is not listed');
    expect(raised.resolved).toBe(false);
    await post('/api/monitoring/resolve', { issue: raised.id });
  });

  it('keeps a service reporting a problem until every open issue on it is resolved', async () => {
    const db = await serviceId('internal-db');
    await post('/api/monitoring/issue', { service: db, summary: 'disk nearly full' });
    await post('/api/monitoring/issue', { service: db, summary: 'slow queries' });
    const [second, first] = (await monitoring()).issues;
    if (!first || !second) throw new Error('the two issues are not listed');

    await post('/api/monitoring/resolve', { issue: first.id });
    expect((await api<{ status: string }>(`/managed/services/${db}`)).status).toBe('problem');
    expect((await monitoring()).issues.find((issue) => issue.id === second.id)?.resolved).toBe(false);

    await post('/api/monitoring/resolve', { issue: second.id });
    expect((await api<{ status: string }>(`/managed/services/${db}`)).status).toBe('ok');
  });

  it('refuses a service or issue that does not exist, a malformed request and another site', async () => {
    expect((await post('/api/monitoring/issue', { service: 1 })).status).toBe(404);
    expect((await post('/api/monitoring/resolve', { issue: 1 })).status).toBe(404);
    expect((await post('/api/monitoring/issue', { service: 'shop' })).status).toBe(400);
    expect((await post('/api/monitoring/issue', { service: 9941, summary: 'x'.repeat(201) })).status).toBe(
      400,
    );
    const shop = await serviceId('shop-frontend');
    const crossSite = await post(
      '/api/monitoring/issue',
      { service: shop },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
  });

  it('gets the new issue to a channel subscribed to alerts, as the README shows it', async () => {
    await post('/api/command', { user: ALICE, channel: OPS, text: '/cloud login' });
    const view = (await state()).view;
    if (!view) throw new Error('no login modal');
    await post('/api/view', {
      user: ALICE,
      viewId: view.id,
      values: {
        profile: { profile_input: 'default' },
        token: { token_input: sandbox.emulator.demoToken },
      },
    });
    await post('/api/command', { user: ALICE, channel: OPS, text: '/cloud reports add alerts --every 1h' });
    const subscribed = JSON.stringify((await state()).messages.at(-1));
    const id = /reports pause\|resume\|run\|remove ([0-9a-f]{8})/.exec(subscribed)?.[1];
    if (!id) throw new Error(`the subscription reply names no ID: ${subscribed}`);

    const db = await serviceId('internal-db');
    await post('/api/monitoring/issue', { service: db, summary: 'replica lag over 10 minutes' });
    const issue = (await monitoring()).issues[0];
    await post('/api/command', { user: ALICE, channel: OPS, text: `/cloud reports run ${id}` });

    const alert = (await state()).messages.find((message) =>
      JSON.stringify(message).includes(`New managed issue ${issue?.id}`),
    );
    expect(JSON.stringify(alert)).toContain('replica lag over 10 minutes');
  });
});
