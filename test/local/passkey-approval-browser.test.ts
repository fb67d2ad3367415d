import { createHash } from 'node:crypto';
import { renderSVG } from 'uqr';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { codeAt } from '../../lib/changes/step-up.js';
import { APP_QR_LINK_SECONDS, APPROVAL_LINK_SECONDS } from '../../lib/passkeys/links.js';
import { timeIn } from '../../lib/passkeys/page.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { browserAvailability, CHROMIUM, failInCiWithoutBrowser } from '../support/browser.js';
import { ADA, ALICE, BOB, CHANNEL, type E2E, startE2E } from '../support/e2e.js';
import { testClock } from '../support/store.js';

/**
 * Step-up by passkey through the whole bot, as people use it: Bob enrolls with a signed
 * `/cloud mfa enroll passkey` and the link in his ephemeral reply, registering a passkey in
 * Debian's chromium with Chromium's virtual authenticator (DevTools' WebAuthn domain); Alice asks
 * to delete a volume in a channel whose rule asks for a passkey; Bob's Approve click answers him
 * alone with a one-time link, and the page's assertion records his vote: the emulator sees one
 * DELETE and the card says "with a passkey". A link used again, expired, or opened by someone
 * without Bob's passkey records nothing and calls no API; no link is in any channel message, log
 * or audit entry. Dan, with nothing enrolled, asks for an authenticator app: his reply's one-time
 * link shows him the QR code of exactly the key it names, once, within its minutes, and only while
 * the app waits for its first code. Skipped where playwright-core or chromium is missing, failing
 * in CI.
 */

const STEP_TIMEOUT_MS = 15_000;
const CAROL = 'U0CAROL';
const DAN = 'U0DAN';
const ERIN = 'U0ERIN';

// The few parts of playwright-core's API used here, so the test compiles before it is installed.
interface Locator {
  click(): Promise<void>;
  count(): Promise<number>;
  waitFor(options?: { state?: 'attached' | 'visible' }): Promise<void>;
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
}
interface Page {
  goto(url: string): Promise<{ status(): number } | null>;
  locator(selector: string): Locator;
  on(event: 'pageerror', listener: (error: Error) => void): void;
  setDefaultTimeout(timeout: number): void;
  screenshot(options: { path: string }): Promise<unknown>;
}
interface CdpSession {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
}
interface BrowserContext {
  newPage(): Promise<Page>;
  newCDPSession(page: Page): Promise<CdpSession>;
}
interface Browser {
  newContext(): Promise<BrowserContext>;
  close(): Promise<void>;
}
interface Playwright {
  chromium: {
    launch(options: { executablePath: string; headless: boolean; args: string[] }): Promise<Browser>;
  };
}

const { playwright, skipReason } = await browserAvailability<Playwright>();

failInCiWithoutBrowser('passkey approval through the bot in chromium', skipReason);

describe.skipIf(skipReason !== undefined)(
  `passkey approval through the bot in chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    const clock = testClock(new Date(Date.UTC(2030, 0, 15, 9, 0, 5)));
    const logged: string[] = [];
    const pageErrors: string[] = [];
    /** Every link the bot gave out, to look for where it must not be. */
    const links: string[] = [];
    let e2e: E2E;
    let browser: Browser;

    beforeAll(async () => {
      for (const stream of [process.stdout, process.stderr]) {
        const write = stream.write.bind(stream);
        vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: never[]) => {
          logged.push(String(chunk));
          return write(chunk as string, ...rest);
        }) as typeof stream.write);
      }
      e2e = await startE2E({ stack: { now: clock.now, approvalAdmins: [ADA] } });
      await e2e.login(ALICE, e2e.emulator.demoToken);
      browser = await (playwright as Playwright).chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
      });
    });

    afterAll(async () => {
      vi.restoreAllMocks();
      await browser?.close();
      await e2e?.close();
    });

    /** A person's own browser, with a platform authenticator that holds only their passkeys. */
    async function browserOf(): Promise<{ page: Page; cdp: CdpSession; authenticatorId: string }> {
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const added = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
        },
      });
      return { page, cdp, authenticatorId: String(added.authenticatorId) };
    }

    /** Clicks the page's button; what the page then says, and in which state. */
    async function useOnPage(page: Page): Promise<{ state: string; text: string }> {
      await page.locator('#passkey-start').click();
      const result = page.locator(
        '#passkey-result[data-state="done"], #passkey-result[data-state="refused"]',
      );
      await result.waitFor();
      return {
        state: (await result.getAttribute('data-state')) ?? '',
        text: (await result.textContent()) ?? '',
      };
    }

    /** The passkey link in the newest message only `user` sees. */
    function linkSeenBy(user: string): string {
      const message = e2e.lastSeen(user);
      expect(message.ephemeral).toBe(true);
      expect(message.visibleTo).toBe(user);
      const url = /<(http:\/\/localhost:\d+\/passkey\/[^|>]+)\|/.exec(e2e.textOf(message))?.[1];
      if (!url) throw new Error(`no passkey link shown to ${user}: ${e2e.textOf(message)}`);
      links.push(url);
      return url;
    }

    function lastCard(): StoredMessage {
      const card = e2e.stack.standIn.store
        .messages(CHANNEL)
        .filter((m) => !m.thread_ts && !m.ephemeral && JSON.stringify(m.blocks).includes('Request '))
        .at(-1);
      if (!card) throw new Error('no approval card');
      return card;
    }

    const cardNow = (card: StoredMessage) => e2e.stack.standIn.store.findMessage(CHANNEL, card.ts) ?? card;

    let requests = 0;
    async function requestDeletion(
      reason?: string,
    ): Promise<{ volumeId: number; label: string; card: StoredMessage; approvalId: string }> {
      requests += 1;
      const volume = e2e.emulator.control.createVolume({ label: `doomed-${requests}` });
      const asked = await e2e.command(
        ALICE,
        `volumes delete ${volume.id}${reason ? ` --reason "${reason}"` : ''}`,
      );
      expect(e2e.textOf(asked.message)).toContain('needs 1 approval');
      const card = lastCard();
      const approvalId = /Request ([0-9a-f-]{36})/.exec(e2e.textOf(card))?.[1];
      if (!approvalId) throw new Error('the card names no request');
      return { volumeId: volume.id, label: volume.label, card, approvalId };
    }

    /** What the page says it confirms, row by row. */
    async function subjectOn(page: Page): Promise<string> {
      const decision = (await page.locator('#passkey-decision').textContent()) ?? '';
      return `${decision}\n${(await page.locator('#passkey-subject').textContent()) ?? ''}`;
    }

    async function clickApprove(user: string, card: StoredMessage): Promise<void> {
      const delivery = await e2e.stack.workspace.click(user, cardNow(card), { actionId: ActionId.approve });
      expect(delivery.status).toBe(200);
      await e2e.stack.drain();
    }

    const deletesOf = (volumeId: number) => e2e.emulator.control.requestCount('volumes.delete', { volumeId });

    let bob: Awaited<ReturnType<typeof browserOf>>;

    it('Bob enrolls a passkey from the link in his own reply to /cloud mfa enroll passkey', async () => {
      const policy = await e2e.command(ADA, 'policy --rule destructive --step-up passkey');
      expect(e2e.textOf(policy.message)).toContain('passkey');

      await e2e.command(BOB, 'mfa enroll passkey');
      const url = linkSeenBy(BOB);
      bob = await browserOf();
      expect((await bob.page.goto(url))?.status()).toBe(200);
      expect(await useOnPage(bob.page)).toEqual({
        state: 'done',
        text: 'Passkey saved. You may close this page.',
      });
      const status = await e2e.command(BOB, 'mfa status');
      expect(e2e.textOf(status.message)).toContain('1 passkey enrolled (added');
    });

    it('holding Bob’s Slack session, another browser cannot add a passkey: the link asks for the one Bob has', async () => {
      await e2e.command(BOB, 'mfa enroll passkey');
      const url = linkSeenBy(BOB);
      const attacker = await browserOf();
      expect((await attacker.page.goto(url))?.status()).toBe(200);
      expect(await attacker.page.locator('h1').textContent()).toBe('Confirm it is you: add a passkey');
      const outcome = await useOnPage(attacker.page);
      expect(outcome.state).toBe('refused');
      expect(await attacker.page.locator('#passkey-next').count()).toBe(0);
      expect(await e2e.stack.store.passkeys.list(e2e.stack.workspace.teamId, BOB)).toHaveLength(1);
    });

    it('with his passkey, Bob adds a second one from the page, and his DM hears of it', async () => {
      await e2e.command(BOB, 'mfa enroll passkey');
      await bob.page.goto(linkSeenBy(BOB));
      const proved = await useOnPage(bob.page);
      expect(proved).toEqual({
        state: 'done',
        text: 'It is you. Now set up the new passkey (on the device or security key that will keep it).',
      });
      const next = await bob.page.locator('#passkey-next').getAttribute('href');
      if (!next) throw new Error('no link to set up the new passkey');
      links.push(next);
      // The new passkey lives on another device (his authenticator holds the first one already).
      const phone = await browserOf();
      await phone.page.goto(next);
      expect(await useOnPage(phone.page)).toEqual({
        state: 'done',
        text: 'Passkey saved. You may close this page.',
      });
      expect(await e2e.stack.store.passkeys.list(e2e.stack.workspace.teamId, BOB)).toHaveLength(2);
      const told = e2e.stack.standIn.store
        .messages(`D${BOB}`)
        .map((message) => message.text)
        .join('\n');
      expect(told).toContain('A step-up method was added to your account:* a passkey, by you');
      expect(told).toContain('If this was not you');
    });

    it('Carol, not enrolled, is told how to enroll and her click counts nothing', async () => {
      const { volumeId, card } = await requestDeletion();
      const calls = e2e.emulator.control.requestCount();
      await clickApprove(CAROL, card);
      const told = e2e.textOf(e2e.lastSeen(CAROL));
      expect(told).toContain('/cloud mfa enroll passkey');
      expect(told).toContain('counted for nothing');
      expect(told).not.toContain('/passkey/');
      expect(e2e.emulator.control.requestCount()).toBe(calls);
      expect(deletesOf(volumeId)).toBe(0);
    });

    it('Bob approves with his passkey: one DELETE, and the card says "with a passkey"', async () => {
      const { volumeId, card } = await requestDeletion();
      const calls = e2e.emulator.control.requestCount();
      await clickApprove(BOB, card);
      const url = linkSeenBy(BOB);
      // The click alone: nothing counted, nothing called, and Alice sees no link.
      expect(e2e.emulator.control.requestCount()).toBe(calls);
      expect(JSON.stringify(e2e.seen(ALICE))).not.toContain(url);

      await bob.page.goto(url);
      const approved = await useOnPage(bob.page);
      expect(approved.state).toBe('done');
      expect(approved.text).toContain('Approved');
      await e2e.stack.drain();
      expect(deletesOf(volumeId)).toBe(1);
      expect(e2e.emulator.control.volumeExists(volumeId)).toBe(false);
      const shown = e2e.textOf(cardNow(card));
      expect(shown).toMatch(/<@U0BOB> with a passkey/);
      const thread = e2e.stack.standIn.store
        .thread(CHANNEL, card.ts)
        .map((m) => m.text)
        .join('\n');
      expect(thread).toContain('with a passkey');

      // The same link again: refused, and nothing more happens.
      const callsAfter = e2e.emulator.control.requestCount();
      expect((await bob.page.goto(url))?.status()).toBe(410);
      expect(await bob.page.locator('#passkey-result').textContent()).toContain('already used');
      expect(e2e.emulator.control.requestCount()).toBe(callsAfter);
      expect(deletesOf(volumeId)).toBe(1);
    });

    it('a second link for a request decided meanwhile: the page says nothing was recorded', async () => {
      const { volumeId, card } = await requestDeletion();
      await clickApprove(BOB, card);
      const first = linkSeenBy(BOB);
      await clickApprove(BOB, card);
      const second = linkSeenBy(BOB);
      await bob.page.goto(first);
      expect((await useOnPage(bob.page)).state).toBe('done');
      await e2e.stack.drain();
      const calls = e2e.emulator.control.requestCount();
      await bob.page.goto(second);
      expect(await useOnPage(bob.page)).toEqual({
        state: 'refused',
        text: 'That request was decided already. Nothing was recorded.',
      });
      await e2e.stack.drain();
      expect(e2e.emulator.control.requestCount()).toBe(calls);
      expect(deletesOf(volumeId)).toBe(1);
    });

    it("Alice, without Bob's passkey, opening his link records nothing", async () => {
      const { volumeId, card } = await requestDeletion();
      await clickApprove(BOB, card);
      const url = linkSeenBy(BOB);
      const alice = await browserOf();
      const calls = e2e.emulator.control.requestCount();
      await alice.page.goto(url);
      const outcome = await useOnPage(alice.page);
      expect(outcome.state).toBe('refused');
      await e2e.stack.drain();
      expect(e2e.emulator.control.requestCount()).toBe(calls);
      expect(deletesOf(volumeId)).toBe(0);
      expect(e2e.textOf(cardNow(card))).not.toContain('with a passkey');
    });

    it('an expired link records nothing', async () => {
      const { volumeId, card } = await requestDeletion();
      await clickApprove(BOB, card);
      const url = linkSeenBy(BOB);
      await bob.page.goto(url);
      clock.advance(APPROVAL_LINK_SECONDS * 1000 + 1);
      const calls = e2e.emulator.control.requestCount();
      const outcome = await useOnPage(bob.page);
      expect(outcome.state).toBe('refused');
      expect(outcome.text).toContain('expired');
      await e2e.stack.drain();
      expect(e2e.emulator.control.requestCount()).toBe(calls);
      expect(deletesOf(volumeId)).toBe(0);
    });

    it('break-glass under the passkey rule runs once Alice confirms with her own passkey', async () => {
      await e2e.command(ADA, `policy --allow-break-glass on --break-glass-users ${ALICE}`);
      await e2e.command(ALICE, 'mfa enroll passkey');
      const alice = await browserOf();
      await alice.page.goto(linkSeenBy(ALICE));
      expect((await useOnPage(alice.page)).state).toBe('done');

      const volume = e2e.emulator.control.createVolume({ label: 'glass-passkey' });
      await e2e.command(ALICE, `volumes delete ${volume.id} --break-glass "restore from backup failed"`);
      const url = linkSeenBy(ALICE);
      expect(deletesOf(volume.id)).toBe(0);
      await alice.page.goto(url);
      const outcome = await useOnPage(alice.page);
      expect(outcome.state).toBe('done');
      expect(outcome.text).toContain('Break-glass');
      await e2e.stack.drain();
      expect(deletesOf(volume.id)).toBe(1);
      const audit = await e2e.stack.store.audit.list(e2e.stack.workspace.teamId, { limit: 100 });
      expect(JSON.stringify(audit.entries.filter((entry) => entry.actor === ALICE))).toContain('passkey');
    });

    it('the card says, before anyone clicks, that Approve and Deny ask whoever clicks for a passkey', async () => {
      const { card } = await requestDeletion();
      expect(e2e.textOf(card)).toContain(
        'Step-up: whoever clicks Approve or Deny is asked right after for their passkey; the click counts only once it checks out.',
      );
    });

    it('the page says what the passkey confirms: request, target, approve, who asked, why, and expiry in Bob’s own time zone', async () => {
      const { volumeId, label, card, approvalId } = await requestDeletion('rollback after the 2.3 deploy');
      await clickApprove(BOB, card);
      const url = linkSeenBy(BOB);
      expect((await bob.page.goto(url))?.status()).toBe(200);
      const shown = await subjectOn(bob.page);
      expect(shown).toContain(`You are approving: delete volume ${label} (${volumeId})`);
      expect(shown).toContain(`Target${label} (${volumeId})`);
      expect(shown).toContain('Your decisionApprove');
      expect(shown).toContain('Asked byAlice Operator');
      expect(shown).toContain('Reasonrollback after the 2.3 deploy');
      const approval = await e2e.stack.store.approvals.get(e2e.stack.workspace.teamId, approvalId);
      if (!approval) throw new Error('no request stored');
      // Bob's clock is in Asia/Kolkata (Slack's users.info `tz`), five and a half hours past UTC.
      expect(shown).toContain(`Request expires${timeIn(approval.decideBy, 'Asia/Kolkata')}`);
      expect(shown).toContain('(Asia/Kolkata)');
      expect(shown).toContain(`Request ID${approvalId}`);
      expect(await bob.page.locator('#passkey-start').textContent()).toBe('Approve with passkey');
    });

    it('a link for request A never shows or proves request B, whatever its address says', async () => {
      const a = await requestDeletion();
      const b = await requestDeletion();
      await clickApprove(BOB, a.card);
      const linkA = linkSeenBy(BOB);
      await clickApprove(BOB, b.card);
      linkSeenBy(BOB);
      const forged = `${linkA}?request=${b.approvalId}&approvalId=${b.approvalId}&target=${b.label}`;
      expect((await bob.page.goto(forged))?.status()).toBe(200);
      const shown = await subjectOn(bob.page);
      expect(shown).toContain(`${a.label} (${a.volumeId})`);
      expect(shown).toContain(a.approvalId);
      expect(shown).not.toContain(b.label);
      expect(shown).not.toContain(b.approvalId);
      expect((await useOnPage(bob.page)).state).toBe('done');
      await e2e.stack.drain();
      expect(deletesOf(a.volumeId)).toBe(1);
      expect(deletesOf(b.volumeId)).toBe(0);
      expect(e2e.textOf(cardNow(b.card))).not.toContain('with a passkey');
    });

    it('under a code rule, Bob (passkeys only) is offered no passkey link, since none could count', async () => {
      await e2e.command(ADA, 'policy --rule destructive --step-up code');
      try {
        const { volumeId, card } = await requestDeletion();
        await clickApprove(BOB, card);
        const told = e2e.textOf(e2e.lastSeen(BOB));
        expect(told).not.toContain('/passkey/');
        expect(told).toContain('/cloud mfa enroll');
        expect(told).toContain('counted for nothing');
        expect(deletesOf(volumeId)).toBe(0);
      } finally {
        await e2e.command(ADA, 'policy --rule destructive --step-up passkey');
      }
    });

    it('a link whose rule changed to a code since it was made: the page says so, offers no button, and nothing counts', async () => {
      const { volumeId, card } = await requestDeletion();
      await clickApprove(BOB, card);
      const url = linkSeenBy(BOB);
      await e2e.command(ADA, 'policy --rule destructive --step-up code');
      try {
        expect((await bob.page.goto(url))?.status()).toBe(200);
        const result = bob.page.locator('#passkey-result[data-state="refused"]');
        expect(await result.textContent()).toBe(
          'The rule for this request changed after this link was made: it now asks for a code from your ' +
            'authenticator app, not a passkey. Nothing was recorded; click Approve in Slack again to be asked for a code.',
        );
        expect(await bob.page.locator('#passkey-start').count()).toBe(0);
        // Asked directly, the page's own steps refuse too: no ceremony starts.
        const options = await fetch(`${url}/options`, { method: 'POST', body: '{}' });
        expect(options.status).toBe(409);
        await e2e.stack.drain();
        expect(deletesOf(volumeId)).toBe(0);
      } finally {
        await e2e.command(ADA, 'policy --rule destructive --step-up passkey');
      }
    });

    /** Keys of authenticator apps shown to people here, to look for where they must not be. */
    const appKeys: string[] = [];

    /** The key, its otpauth URI and the QR page link of the newest enrollment reply only `user` sees. */
    async function enrollApp(user: string): Promise<{ secret: string; uri: string; qr: string }> {
      await e2e.command(user, 'mfa enroll');
      const message = e2e.lastSeen(user);
      expect(message.ephemeral).toBe(true);
      expect(message.visibleTo).toBe(user);
      const text = e2e.textOf(message);
      // As Slack shows it: mrkdwn's escapes undone (the URI's query joins its fields with &).
      const uri = /`(otpauth:\/\/[^`]+)`/
        .exec(text)?.[1]
        ?.replaceAll('&lt;', '<')
        .replaceAll('&gt;', '>')
        .replaceAll('&amp;', '&');
      const secret = /Secret: `([A-Z2-7]+)`/.exec(text)?.[1];
      const qr = /<(http:\/\/localhost:\d+\/authenticator\/[^|>]+)\|show the QR code>/.exec(text)?.[1];
      if (!uri || !secret || !qr) throw new Error(`no key or QR link shown to ${user}: ${text}`);
      links.push(qr);
      appKeys.push(secret);
      return { secret, uri, qr };
    }

    /** The drawing of the QR code on the page (its one path's data), as a digest: it is long. */
    async function drawnQr(page: Page): Promise<string | null> {
      const path = page.locator('#app-qr svg path');
      return (await path.count()) === 0 ? null : digest((await path.getAttribute('d')) ?? '');
    }

    /** The path data uqr draws for `uri`, as the page is asked to, as a digest. */
    const qrOf = (uri: string) =>
      digest(/<path[^>]* d="([^"]+)"/.exec(renderSVG(uri, { ecc: 'M', border: 4 }))?.[1] ?? 'none');
    const digest = (text: string) => createHash('sha256').update(text).digest('hex');

    it('Dan’s reply to /cloud mfa enroll links to the QR code of exactly the key it shows; the page shows it once', async () => {
      const { uri, qr } = await enrollApp(DAN);
      const { page } = await browserOf();
      // Opening the link shows what it is for and uses nothing: no code is drawn before the click.
      expect((await page.goto(qr))?.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toBe('Add the bot to your authenticator app');
      expect(await drawnQr(page)).toBeNull();
      await page.locator('#app-qr-show').click();
      await page.locator('#app-qr svg').waitFor();
      expect(await drawnQr(page)).toBe(qrOf(uri));

      // Opened again: used, and nothing drawn.
      expect((await page.goto(qr))?.status()).toBe(410);
      expect(await page.locator('#passkey-result').textContent()).toContain('already used');
      expect(await drawnQr(page)).toBeNull();
      const posted = await fetch(qr, { method: 'POST' });
      expect(posted.status).toBe(410);
      expect(await posted.text()).not.toContain('<svg');
    });

    it('a QR link draws the key of the person it was given to, never another’s', async () => {
      const erin = await enrollApp(ERIN);
      const dan = await enrollApp(DAN);
      expect(erin.uri).not.toBe(dan.uri);
      const { page } = await browserOf();
      await page.goto(erin.qr);
      await page.locator('#app-qr-show').click();
      await page.locator('#app-qr svg').waitFor();
      expect(await drawnQr(page)).toBe(qrOf(erin.uri));
    });

    it('a QR link expires after five minutes: the page says so and draws nothing', async () => {
      const { qr } = await enrollApp(DAN);
      const { page } = await browserOf();
      await page.goto(qr);
      clock.advance(APP_QR_LINK_SECONDS * 1000);
      await page.locator('#app-qr-show').click();
      await page.locator('#passkey-result').waitFor();
      expect(await page.locator('#passkey-result').textContent()).toContain('expired');
      expect(await drawnQr(page)).toBeNull();
    });

    it('once Dan’s app is confirmed, a QR link still unused shows no key', async () => {
      const { secret, qr } = await enrollApp(DAN);
      const confirmed = await e2e.command(DAN, `mfa confirm ${codeAt(secret, clock.now())}`);
      expect(e2e.textOf(confirmed.message)).toContain('Your authenticator app is enrolled');
      const { page } = await browserOf();
      await page.goto(qr);
      await page.locator('#app-qr-show').click();
      await page.locator('#passkey-result').waitFor();
      expect(await page.locator('#passkey-result').textContent()).toContain('confirmed already');
      expect(await drawnQr(page)).toBeNull();
    });

    it('no link or app key is in any channel message, log line or audit entry, and no page threw', async () => {
      expect(links.length).toBeGreaterThanOrEqual(8);
      const tokens = links.map((url) => url.split('/').pop() ?? url);
      const inChannel = JSON.stringify(
        e2e.stack.standIn.store.messages(CHANNEL).filter((message) => !message.ephemeral),
      );
      const audit = JSON.stringify(
        await e2e.stack.store.audit.list(e2e.stack.workspace.teamId, { limit: 100 }),
      );
      const everything = logged.join('');
      expect(audit).toContain('passkey');
      expect(appKeys.length).toBeGreaterThanOrEqual(4);
      for (const token of [...tokens, ...appKeys]) {
        expect(inChannel).not.toContain(token);
        expect(everything).not.toContain(token);
        expect(audit).not.toContain(token);
      }
      expect(pageErrors).toEqual([]);
    });
  },
);
