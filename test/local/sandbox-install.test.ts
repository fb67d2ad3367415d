import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SECOND_TEAM } from '../../infra/local/slack/oauth.js';
import type { ActionResult } from '../../infra/local/slack/page/server.js';
import type { PageState } from '../../infra/local/slack/page/state.js';
import { type Sandbox, startSandbox } from '../../infra/local/start.js';
import { DOCUMENT_PAGE_STYLE, PAGE_BASE_STYLE } from '../../lib/slack-kit/page-style.js';

/**
 * The sandbox of `npm start` as a distributed app: the seeded workspace works as it always did
 * (installed at start through "Add to Slack"), and the second workspace is installed from the
 * page's own "Add to Slack" link, following every link and form a browser would — the bot's
 * install page, the stand-in's authorize page, the redirect back, the success page's "Open
 * Slack" — and then used from the page, where its commands run with its own bot token.
 */

const ALICE = 'U0ALICE';
const PLATFORM = 'C0PLATFORM';
const SEEDED_TEAM = 'T0LOCAL';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ dynamoEndpoint: inject('dynamoEndpoint'), pagePort: 0, emulatorPort: 0 });
});

afterAll(async () => {
  await sandbox?.close();
});

async function state(team: string, user = ALICE): Promise<PageState> {
  const response = await fetch(`${sandbox.pageUrl}/api/state?${new URLSearchParams({ team, user })}`);
  expect(response.status).toBe(200);
  return (await response.json()) as PageState;
}

async function command(team: string, channel: string, text: string): Promise<ActionResult> {
  const response = await fetch(`${sandbox.pageUrl}/api/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ team, user: ALICE, channel, text }),
  });
  const result = (await response.json()) as ActionResult;
  await sandbox.stack.drain();
  return result;
}

/** The newest call of `method` to the stand-in, with the workspace whose token made it. */
function lastCall(method: string) {
  return sandbox.stack.standIn.store.callsTo(method).at(-1);
}

function attribute(html: string, id: string): string {
  const href = new RegExp(`id="${id}" href="([^"]+)"`).exec(html)?.[1];
  if (!href) throw new Error(`no #${id} link in ${html.slice(0, 300)}`);
  return href.replaceAll('&#38;', '&');
}

describe('the sandbox as a distributed app', () => {
  it('starts with the seeded workspace installed and the second one offering "Add to Slack"', async () => {
    const seen = await state(SEEDED_TEAM);
    // Each workspace's "Add to Slack" names it, so Slack's authorize page opens on that workspace.
    expect(seen.teams).toEqual([
      { id: SEEDED_TEAM, name: 'Local workspace', installed: true },
      {
        id: SECOND_TEAM.id,
        name: SECOND_TEAM.name,
        installed: false,
        installUrl: `${sandbox.stack.installUrl}?team=${SECOND_TEAM.id}`,
      },
    ]);
    expect(seen.installUrl).toBe(sandbox.stack.installUrl);
    // The second workspace's channels are not the seeded workspace's.
    expect(seen.channels.map((c) => c.id)).not.toContain(PLATFORM);
    const page = await (await fetch(sandbox.pageUrl)).text();
    expect(page).toContain('data-testid="workspace-list"');
    // The same colours, type and buttons as the install and authorize pages.
    expect(page).toContain(PAGE_BASE_STYLE);
  });

  it('passes only a workspace id on to Slack: anything else in team is left out of the authorize link', async () => {
    const landing = await request(`${sandbox.stack.installUrl}?team=${encodeURIComponent('"><b>x')}`);
    const authorizeUrl = new URL(attribute(await landing.body.text(), 'add-to-slack'));
    expect(authorizeUrl.searchParams.has('team')).toBe(false);
  });

  it('keeps the seeded workspace working as before: its login modal opens with its own token', async () => {
    const result = await command(SEEDED_TEAM, 'C0OPS', '/cloud login');
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(lastCall('views.open')).toMatchObject({ ok: true, team: SEEDED_TEAM });
  });

  it('refuses a command in the second workspace before the app is installed there', async () => {
    const result = await command(SECOND_TEAM.id, PLATFORM, '/cloud help');
    expect(result.ok).toBe(false);
    expect(sandbox.stack.standIn.store.messages(PLATFORM, { includeEphemeral: true })).toEqual([]);
  });

  it('installs the second workspace from the page through the OAuth pages, and comes back to it', async () => {
    const installUrl = (await state(SECOND_TEAM.id)).teams.find((t) => t.id === SECOND_TEAM.id)?.installUrl;
    if (!installUrl) throw new Error('the page offers no "Add to Slack"');

    const landing = await request(installUrl);
    expect(landing.statusCode).toBe(200);
    const cookie = String(landing.headers['set-cookie']).split(';')[0] ?? '';
    const landingHtml = await landing.body.text();
    expect(landingHtml).toContain(`<style>${DOCUMENT_PAGE_STYLE}</style>`);
    const authorizeUrl = new URL(attribute(landingHtml, 'add-to-slack'));
    expect(authorizeUrl.searchParams.get('team')).toBe(SECOND_TEAM.id);

    const authorizePage = await request(authorizeUrl);
    const form = await authorizePage.body.text();
    expect(authorizePage.statusCode).toBe(200);
    // Reached from the second workspace's link, the page opens on it: Allow installs it there.
    expect(form).toContain(`value="${SECOND_TEAM.id}" checked`);
    expect(form).not.toContain('value="T0LOCAL" checked');
    expect(form).toContain(`<style>${DOCUMENT_PAGE_STYLE}</style>`);

    // The form as the browser sends it on Allow: the checked workspace, untouched.
    const fields = new URLSearchParams(authorizeUrl.searchParams);
    fields.set('team', /name="team" value="([^"]+)" checked/.exec(form)?.[1] ?? '');
    fields.set('decision', 'allow');
    const allowed = await request(new URL('/oauth/v2/authorize', authorizeUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
    await allowed.body.text();
    expect(allowed.statusCode).toBe(302);

    const done = await request(String(allowed.headers.location), { headers: { cookie } });
    const success = await done.body.text();
    expect(done.statusCode).toBe(200);
    expect(success).toContain(`is installed in ${SECOND_TEAM.name}`);
    expect(success).toContain(`<style>${DOCUMENT_PAGE_STYLE}</style>`);

    const open = await request(attribute(success, 'open-slack'));
    await open.body.text();
    expect(open.statusCode).toBe(302);
    const back = new URL(String(open.headers.location));
    expect(back.origin).toBe(new URL(sandbox.pageUrl).origin);
    expect(back.searchParams.get('team')).toBe(SECOND_TEAM.id);

    const seen = await state(SECOND_TEAM.id);
    expect(seen).toMatchObject({ teamId: SECOND_TEAM.id, team: SECOND_TEAM.name });
    expect(seen.teams.every((team) => team.installed)).toBe(true);
    expect(seen.channels.map((c) => c.id)).toEqual([PLATFORM]);
  });

  it("answers /cloud help in the second workspace and opens its login modal with that workspace's token", async () => {
    const help = await command(SECOND_TEAM.id, PLATFORM, '/cloud help');
    expect(help).toMatchObject({ ok: true, status: 200 });
    const answered = sandbox.stack.standIn.store.messages(PLATFORM, { seenBy: ALICE });
    expect(answered.map((m) => JSON.stringify(m.blocks) + m.text).join('')).toContain('/cloud');

    const login = await command(SECOND_TEAM.id, PLATFORM, '/cloud login');
    expect(login).toMatchObject({ ok: true, status: 200 });
    expect(lastCall('views.open')).toMatchObject({ ok: true, team: SECOND_TEAM.id });
    // The modal shows in the workspace whose bot opened it, not in the seeded one.
    const secondView = (await state(SECOND_TEAM.id)).view;
    expect(secondView).toBeDefined();
    expect((await state(SEEDED_TEAM)).view?.id).not.toBe(secondView?.id);
  });

  it("links Alice's token in the second workspace only, from that workspace's modal", async () => {
    const view = (await state(SECOND_TEAM.id)).view;
    if (!view) throw new Error('no login modal in the second workspace');
    const response = await fetch(`${sandbox.pageUrl}/api/view`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        team: SECOND_TEAM.id,
        user: ALICE,
        viewId: view.id,
        values: {
          profile: { profile_input: 'default' },
          token: { token_input: sandbox.emulator.demoToken },
        },
      }),
    });
    expect(((await response.json()) as ActionResult).ok).toBe(true);
    await sandbox.stack.drain();
    const links = sandbox.stack.store.tokenLinks;
    expect((await links.getToken(SECOND_TEAM.id, ALICE)).status).toBe('found');
    expect((await links.getToken(SEEDED_TEAM, ALICE)).status).toBe('missing');
  });
});
