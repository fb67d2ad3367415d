import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/local/start.js';
import { browserAvailability, CHROMIUM, failInCiWithoutBrowser } from '../support/browser.js';

/**
 * The sandbox page's Slackbot panel in a real browser (Debian's chromium driven by
 * playwright-core): Alice lets her Slackbot act for her from #ops, asks it to delete a volume, the
 * answer shows its text and blocks, and the approval card it asked for shows in #ops naming Slackbot. Skipped where playwright-core
 * or chromium is missing, failing in CI; `page-slackbot.test.ts` drives the same routes over HTTP.
 */

const STEP_TIMEOUT_MS = 15_000;
const OPS = 'C0OPS';
const ALICE = 'U0ALICE';

// The few parts of playwright-core's API used here, so the test compiles before it is installed.
interface Locator {
  click(): Promise<void>;
  fill(value: string): Promise<void>;
  press(key: string): Promise<void>;
  waitFor(options?: { state?: 'attached' | 'visible' }): Promise<void>;
  textContent(): Promise<string | null>;
  filter(options: { hasText?: string | RegExp }): Locator;
  locator(selector: string): Locator;
  getByTestId(testId: string): Locator;
  selectOption(value: string): Promise<unknown>;
  count(): Promise<number>;
}
interface Page {
  goto(url: string): Promise<unknown>;
  locator(selector: string): Locator;
  getByTestId(testId: string): Locator;
  on(event: 'pageerror', listener: (error: Error) => void): void;
  setDefaultTimeout(timeout: number): void;
}
interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface Playwright {
  chromium: {
    launch(options: { executablePath: string; headless: boolean; args: string[] }): Promise<Browser>;
  };
}

const { playwright, skipReason } = await browserAvailability<Playwright>();

failInCiWithoutBrowser("the sandbox page's Slackbot panel in chromium", skipReason);

describe.skipIf(skipReason !== undefined)(
  `the sandbox page's Slackbot panel in chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let sandbox: Sandbox;
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      sandbox = await startSandbox({
        dynamoEndpoint: inject('dynamoEndpoint'),
        pagePort: 0,
        emulatorPort: 0,
      });
      const { workspace, standIn } = sandbox.stack;
      expect((await workspace.command(ALICE, OPS, 'login')).status).toBe(200);
      const view = standIn.store
        .views()
        .filter((v) => v.user === ALICE && !v.closed && v.view.type === 'modal')
        .at(-1);
      if (!view) throw new Error('no login modal for Alice');
      await workspace.submitView(ALICE, view, {
        profile: { profile_input: 'default' },
        token: { token_input: sandbox.emulator.demoToken },
      });
      await sandbox.stack.drain();
      browser = await (playwright as Playwright).chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
      });
      page = await browser.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      page.on('pageerror', (error) => pageErrors.push(error.message));
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await sandbox?.close();
    });

    it('Alice asks Slackbot to delete a volume, and its card shows in #ops naming Slackbot', async () => {
      const volume = sandbox.emulator.control.createVolume({ label: 'slackbot-browser-doomed' });
      await page.goto(`${sandbox.pageUrl}/?user=${ALICE}&channel=${OPS}`);
      await page.locator('[data-testid="message-list"][data-ready="true"]').waitFor();
      // Alice lets her Slackbot act for her from #ops, where its cards then go.
      const command = page.getByTestId('command-input');
      await command.fill('/cloud agents slackbot change');
      await command.press('Enter');
      await page
        .locator('[data-testid="status"][data-state="ok"]')
        .filter({ hasText: 'Sent /cloud agents slackbot change' })
        .waitFor();
      await page.getByTestId('slackbot-link').click();
      // The click returns once it is dispatched; the page renders the Slackbot panel after it.
      await page.getByTestId('channel-name').filter({ hasText: 'Slackbot' }).waitFor();
      expect(await page.getByTestId('channel-name').textContent()).toBe('Slackbot');
      const picker = page.getByTestId('slackbot-tool');
      await picker.locator('option[value="request_destructive_change"]').waitFor({ state: 'attached' });
      await picker.selectOption('request_destructive_change');
      expect(await page.getByTestId('slackbot-description').textContent()).toContain('C0OPS');

      // Bad JSON is refused before anything is sent.
      const typed = page.getByTestId('slackbot-arguments');
      await typed.fill('{"operation": volumes.delete}');
      await page.getByTestId('slackbot-send').click();
      await page
        .locator('[data-testid="status"][data-state="error"]')
        .filter({ hasText: 'Not sent: The arguments are not valid JSON' })
        .waitFor();
      expect(await page.locator('[data-testid="slackbot-turn"]').count()).toBe(0);

      await typed.fill(JSON.stringify({ operation: 'volumes.delete', arguments: { volumeId: volume.id } }));
      await page.getByTestId('slackbot-send').click();
      const answer = page.locator('[data-testid="slackbot-turn"][data-from="slackbot"]');
      await answer.waitFor();
      expect(await answer.getByTestId('slackbot-text').textContent()).toContain('Requested: it needs');
      expect(await answer.locator('[data-testid="block-section"]').count()).toBe(1);

      await page.locator(`[data-testid="channel-link"][data-channel="${OPS}"]`).click();
      const card = page.getByTestId('message').filter({ hasText: 'through agent Slackbot' });
      await card.waitFor();
      expect(await card.textContent()).toContain(String(volume.id));
      expect(sandbox.emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(0);
      expect(pageErrors).toEqual([]);
    }, 60_000);
  },
);
