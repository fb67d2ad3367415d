import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADA, ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/**
 * A person's Home follows their profiles and reports without being opened again: after a login,
 * a logout, a switch of profile, and a report added, paused or resumed (by its owner or by an
 * admin), end to end through signed requests, DynamoDB Local, the emulator and the Slack stand-in.
 * Nobody opens Home in these tests: every Home seen here was published because something changed.
 */

let e2e: E2E;
const team = () => e2e.stack.workspace.teamId;

beforeAll(async () => {
  e2e = await startE2E();
});

afterAll(async () => {
  await e2e?.close();
});

function homeText(user: string): string {
  return JSON.stringify(e2e.stack.standIn.store.homeView(team(), user)?.view.blocks ?? []);
}

function publishes(): number {
  return e2e.stack.standIn.store.callsTo('views.publish').length;
}

describe('profiles', () => {
  it('a login (the modal submitted) shows the new profile, active, on Home', async () => {
    expect(homeText(BOB)).not.toContain('staging');
    const delivery = await e2e.login(BOB, e2e.emulator.demoToken, 'staging');
    expect(delivery.status).toBe(200);
    expect(homeText(BOB)).toMatch(/`staging` \(active\)/);
    expect(homeText(BOB)).toContain('scopes');
    // The token itself is nowhere in the view.
    expect(homeText(BOB)).not.toContain(e2e.emulator.demoToken);
  });

  it('`use` moves the active mark, and a logout takes the profile off Home', async () => {
    await e2e.login(BOB, e2e.emulator.demoToken, 'prod');
    expect(homeText(BOB)).toMatch(/`prod` \(active\)/);

    const used = await e2e.command(BOB, 'use staging');
    expect(e2e.textOf(used.message)).toContain('now run with profile `staging`');
    expect(homeText(BOB)).toMatch(/`staging` \(active\)/);
    expect(homeText(BOB)).not.toMatch(/`prod` \(active\)/);

    const out = await e2e.command(BOB, 'logout --profile staging');
    expect(e2e.textOf(out.message)).toContain('Unlinked profile `staging`');
    expect(homeText(BOB)).not.toContain('staging');
    expect(homeText(BOB)).toContain('`prod`');
  });

  it('a token the API rejects in an ordinary command shows as rejected on Home', async () => {
    const { token } = e2e.emulator.control.createToken('demo', { scopes: '*' });
    await e2e.login(ADA, token, 'rejected-soon');
    expect(homeText(ADA)).toMatch(/`rejected-soon` \(active\)/);
    expect(homeText(ADA)).not.toContain('rejected by the API');
    e2e.emulator.control.revokeToken(token);

    const delivery = await e2e.command(ADA, 'volumes list');
    expect(e2e.textOf(delivery.message)).toMatch(/log ?in/i);
    expect(homeText(ADA)).toContain('rejected by the API');
  });

  it('so does one rejected in a change the worker runs', async () => {
    const { token } = e2e.emulator.control.createToken('demo', { scopes: '*' });
    await e2e.login(BOB, token, 'rejected-later');
    // A POST: accepted and handed to the worker; the token is revoked before the worker runs it.
    const delivery = await e2e.stack.workspace.command(
      BOB,
      CHANNEL,
      'profile sshkeys-create --label bobs-key --ssh-key "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHome bob@laptop"',
    );
    expect(delivery.status).toBe(200);
    expect(homeText(BOB)).not.toMatch(/`rejected-later`[^"]*rejected by the API/);
    e2e.emulator.control.revokeToken(token);
    await e2e.stack.drain();
    const told = e2e.stack.standIn.store.messages(CHANNEL, { seenBy: BOB }).at(-1);
    expect(e2e.textOf(told)).toMatch(/log ?in/i);
    expect(homeText(BOB)).toMatch(/`rejected-later`[^"]*rejected by the API/);
  });

  it('a command that changes nothing publishes nothing', async () => {
    const before = publishes();
    await e2e.command(BOB, 'use nosuchprofile');
    await e2e.command(BOB, 'logout --profile nosuchprofile');
    expect(publishes()).toBe(before);
  });
});

describe('reports', () => {
  it("add shows the report on its owner's Home; pause by the owner shows it paused; resume by an admin shows it running again on both Homes", async () => {
    await e2e.login(ALICE, e2e.emulator.demoToken);
    const added = await e2e.command(ALICE, 'reports add issues --daily 09:00');
    expect(added.status).toBe(200);
    const [sub] = await e2e.stack.store.reports.list(team(), { owner: ALICE });
    if (!sub) throw new Error('no subscription');
    const id = sub.id.slice(0, 8);
    expect(homeText(ALICE)).toContain(`report \`${id}\``);
    expect(homeText(ALICE)).toContain('next run');

    await e2e.command(ALICE, `reports pause ${id}`);
    expect(homeText(ALICE)).toContain(`report \`${id}\``);
    expect(homeText(ALICE)).toContain('paused (paused by');
    // Who paused it is a mention Slack draws as a name, not `&lt;@U0ALICE&gt;` shown raw.
    expect(homeText(ALICE)).toContain(`paused (paused by <@${ALICE}>)`);
    expect(homeText(ALICE)).not.toContain(`&lt;@${ALICE}&gt;`);
    expect(homeText(ALICE)).toContain('"text":"Resume"');

    // Ada is a workspace admin: her resume changes Alice's report, and both Homes follow.
    await e2e.command(ADA, `reports resume ${id}`);
    expect(homeText(ALICE)).not.toContain('paused (paused by');
    expect(homeText(ALICE)).toContain('"text":"Pause"');
    expect(homeText(ADA)).toContain('Your reports');

    await e2e.command(ALICE, `reports remove ${id}`);
    expect(homeText(ALICE)).not.toContain(`report \`${id}\``);
  });
});

describe('Slack refusing views.publish', () => {
  it("a 429 on views.publish leaves the command's answer as it is, and the Home as it was", async () => {
    const answered = await e2e.command(BOB, 'use prod');
    const homeBefore = homeText(BOB);
    e2e.stack.standIn.injectRateLimit({ methods: ['views.publish'], retryAfterSeconds: 30 });
    try {
      await e2e.login(BOB, e2e.emulator.demoToken, 'limited');
      const limited = await e2e.command(BOB, 'use prod');
      expect(limited.status).toBe(200);
      expect(e2e.textOf(limited.message)).toBe(e2e.textOf(answered.message));
      const refused = e2e.stack.standIn.store.callsTo('views.publish').at(-1);
      expect(refused?.ok).toBe(false);
      expect(homeText(BOB)).toBe(homeBefore);
    } finally {
      e2e.stack.standIn.injectRateLimit(undefined);
    }
    // The login went through all the same: the next change publishes it.
    await e2e.command(BOB, 'use limited');
    expect(homeText(BOB)).toMatch(/`limited` \(active\)/);
  });
});
