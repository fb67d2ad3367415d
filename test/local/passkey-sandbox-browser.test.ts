import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { type Sandbox, startSandbox } from '../../infra/local/start.js';
import { ActionId } from '../../lib/slack-kit/interaction-ids.js';
import { browserAvailability, CHROMIUM, failInCiWithoutBrowser } from '../support/browser.js';

/**
 * Step-up by passkey in the local stack (`npm start`'s `startSandbox`): the passkey page is
 * served at the bot's own local URL, and an approval there shows on the card in the sandbox page
 * as "… with a passkey". Skipped where playwright-core or chromium is missing, failing in CI.
 *
 * `UPDATE_SCREENSHOT=1` also saves the passkey page after the approval as
 * `docs/passkey-approved.png` and the card in the sandbox page as `docs/passkey-card.png`.
 */

const DOCS = new URL('../../docs/', import.meta.url).pathname;
const STEP_TIMEOUT_MS = 15_000;
const CHANNEL = 'C0OPS';
const ADA = 'U0ADMIN';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';

// The few parts of playwright-core's API used here, so the test compiles before it is installed.
interface Locator {
  click(): Promise<void>;
  waitFor(options?: { state?: 'attached' | 'visible' }): Promise<void>;
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
  filter(options: { hasText?: string | RegExp }): Locator;
  first(): Locator;
  selectOption(value: string): Promise<unknown>;
  scrollIntoViewIfNeeded(): Promise<void>;
}
interface Page {
  goto(url: string): Promise<{ status(): number } | null>;
  locator(selector: string): Locator;
  getByTestId(testId: string): Locator;
  setDefaultTimeout(timeout: number): void;
  setViewportSize(size: { width: number; height: number }): Promise<void>;
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
  newContext(options?: { viewport?: { width: number; height: number } }): Promise<BrowserContext>;
  close(): Promise<void>;
}
interface Playwright {
  chromium: {
    launch(options: { executablePath: string; headless: boolean; args: string[] }): Promise<Browser>;
  };
}

const { playwright, skipReason } = await browserAvailability<Playwright>();

failInCiWithoutBrowser('step-up by passkey in the sandbox, in chromium', skipReason);

describe.skipIf(skipReason !== undefined)(
  `step-up by passkey in the sandbox, in chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let sandbox: Sandbox;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      sandbox = await startSandbox({
        dynamoEndpoint: inject('dynamoEndpoint'),
        pagePort: 0,
        emulatorPort: 0,
      });
      browser = await (playwright as Playwright).chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
      });
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
        },
      });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await sandbox?.close();
    });

    async function screenshot(name: string): Promise<void> {
      if (process.env.UPDATE_SCREENSHOT !== '1') return;
      const path = join(DOCS, name);
      mkdirSync(dirname(path), { recursive: true });
      await page.screenshot({ path });
    }

    const workspace = () => sandbox.stack.workspace;
    const messages = () => sandbox.stack.standIn.store.messages(CHANNEL);

    async function command(user: string, text: string) {
      const delivery = await workspace().command(user, CHANNEL, text);
      await sandbox.stack.drain();
      return delivery;
    }

    /** The passkey link in the newest message only `user` sees. */
    function linkSeenBy(user: string): string {
      const message = sandbox.stack.standIn.store.messages(CHANNEL, { seenBy: user }).at(-1);
      expect(message?.visibleTo).toBe(user);
      const url = /<(http:\/\/localhost:\d+\/passkey\/[^|>]+)\|/.exec(message?.text ?? '')?.[1];
      if (!url) throw new Error(`no passkey link shown to ${user}: ${message?.text}`);
      return url;
    }

    async function usePasskeyPage(url: string): Promise<string> {
      expect((await page.goto(url))?.status()).toBe(200);
      await page.locator('#passkey-start').click();
      const done = page.locator('#passkey-result[data-state="done"], #passkey-result[data-state="refused"]');
      await done.waitFor();
      expect(await done.getAttribute('data-state'), (await done.textContent()) ?? '').toBe('done');
      return (await done.textContent()) ?? '';
    }

    it('enrolls, approves on the bot’s local passkey page, and the sandbox card says "with a passkey"', async () => {
      await command(ADA, 'policy --rule destructive --step-up passkey');
      const login = await workspace().command(ALICE, CHANNEL, 'login');
      expect(login.status).toBe(200);
      const view = sandbox.stack.standIn.store
        .views()
        .filter((v) => v.user === ALICE && !v.closed && v.view.type === 'modal')
        .at(-1);
      if (!view) throw new Error('no login modal');
      await workspace().submitView(ALICE, view, {
        profile: { profile_input: 'default' },
        token: { token_input: sandbox.emulator.demoToken },
      });
      await sandbox.stack.drain();

      await command(BOB, 'mfa enroll passkey');
      expect(await usePasskeyPage(linkSeenBy(BOB))).toContain('Passkey saved');

      const volume = sandbox.emulator.control.createVolume({ label: 'old-backups' });
      await command(ALICE, `volumes delete ${volume.id}`);
      const card = messages()
        .filter(
          (m: StoredMessage) => !m.thread_ts && !m.ephemeral && JSON.stringify(m.blocks).includes('Request '),
        )
        .at(-1);
      if (!card) throw new Error('no approval card');
      await workspace().click(BOB, card, { actionId: ActionId.approve });
      await sandbox.stack.drain();

      expect(await usePasskeyPage(linkSeenBy(BOB))).toContain('Approved');
      await sandbox.stack.drain();
      expect(sandbox.emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(1);
      await screenshot('passkey-approved.png');

      await page.goto(sandbox.pageUrl);
      await page.locator('[data-testid="message-list"][data-ready="true"]').waitFor();
      await page.getByTestId('user-picker').selectOption(BOB);
      const shown = page
        .locator(`[data-testid="message"][data-ts="${card.ts}"]`)
        .filter({ hasText: 'with a passkey' });
      await shown.waitFor();
      expect(await shown.textContent()).toMatch(/with a passkey/);
      await shown.scrollIntoViewIfNeeded();
      await screenshot('passkey-card.png');
    });
  },
);
