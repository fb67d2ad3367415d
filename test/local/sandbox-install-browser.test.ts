import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SECOND_TEAM } from '../../infra/local/slack/oauth.js';
import { type Sandbox, startSandbox } from '../../infra/local/start.js';
import { browserAvailability, CHROMIUM, failInCiWithoutBrowser } from '../support/browser.js';

/**
 * "Add to Slack" from the sandbox page in a real browser (Debian's chromium driven by
 * playwright-core), as a newcomer after `npm start` goes through it: the page's link for the
 * second workspace, the bot's install page, the stand-in's authorize page, the success page's
 * "Open Slack" back to the page in that workspace, and commands there. Skipped where
 * playwright-core or chromium is missing (failing in CI, as `page-browser.test.ts` does);
 * `sandbox-install.test.ts` follows the same links over HTTP.
 */

const STEP_TIMEOUT_MS = 15_000;

// The few parts of playwright-core's API used here, so the test compiles before it is installed.
interface Locator {
  click(): Promise<void>;
  fill(value: string): Promise<void>;
  press(key: string): Promise<void>;
  waitFor(options?: { state?: 'attached' | 'detached' | 'visible' | 'hidden' }): Promise<void>;
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
  filter(options: { hasText?: string | RegExp }): Locator;
  last(): Locator;
  nth(index: number): Locator;
  count(): Promise<number>;
}

interface Page {
  goto(url: string): Promise<unknown>;
  url(): string;
  locator(selector: string): Locator;
  getByTestId(testId: string): Locator;
  getByRole(role: string, options?: { name?: string | RegExp; exact?: boolean }): Locator;
  on(event: 'pageerror', listener: (error: Error) => void): void;
  setDefaultTimeout(timeout: number): void;
}

interface BrowserContext {
  pages(): Page[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

interface Playwright {
  chromium: {
    launchPersistentContext(
      userDataDir: string,
      options: { executablePath: string; headless: boolean; args: string[] },
    ): Promise<BrowserContext>;
  };
}

const { playwright, skipReason } = await browserAvailability<Playwright>();

failInCiWithoutBrowser('"Add to Slack" from the sandbox page in chromium', skipReason);

describe.skipIf(skipReason !== undefined)(
  `"Add to Slack" from the sandbox page in chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let sandbox: Sandbox;
    let context: BrowserContext;
    let page: Page;
    let userDataDir: string;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      sandbox = await startSandbox({
        dynamoEndpoint: inject('dynamoEndpoint'),
        pagePort: 0,
        emulatorPort: 0,
      });
      userDataDir = mkdtempSync(join(tmpdir(), 'sandbox-install-chromium-'));
      context = await (playwright as Playwright).chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
      });
      page = context.pages()[0] ?? (await context.newPage());
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      page.on('pageerror', (error) => pageErrors.push(error.message));
    });

    afterAll(async () => {
      await context?.close();
      await sandbox?.close();
      if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    });

    const messages = () => page.getByTestId('message');

    /** Types a command and waits until the page says the bot took it. */
    async function type(text: string): Promise<void> {
      const input = page.getByTestId('command-input');
      await input.fill(text);
      await input.press('Enter');
      const status = page
        .locator('[data-testid="status"][data-state="ok"], [data-testid="status"][data-state="error"]')
        .filter({ hasText: text });
      await status.waitFor();
      expect(await status.getAttribute('data-state'), (await status.textContent()) ?? '').toBe('ok');
    }

    async function openPage(): Promise<void> {
      await page.locator('[data-testid="message-list"][data-ready="true"]').waitFor();
      await page.getByTestId('connection').filter({ hasText: 'live' }).waitFor();
    }

    it('installs the second workspace from the page and runs commands there with its own bot token', async () => {
      await page.goto(sandbox.pageUrl);
      await openPage();
      expect(await page.getByTestId('workspace-name').textContent()).toBe('Local workspace');
      // The seeded workspace is installed already; only the second one offers "Add to Slack".
      expect(await page.getByTestId('add-to-slack').count()).toBe(1);

      await page.locator(`[data-testid="add-to-slack"][data-team="${SECOND_TEAM.id}"]`).click();
      await page.getByRole('link', { name: 'Add to Slack' }).click();
      // Reached from the second workspace's link, Slack's page opens on it: Allow as it comes.
      expect(await page.locator('input[name="team"]:checked').getAttribute('value')).toBe(SECOND_TEAM.id);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'Installed' }).waitFor();
      await page.getByRole('link', { name: 'Open Slack' }).click();

      await openPage();
      expect(new URL(page.url()).searchParams.get('team')).toBe(SECOND_TEAM.id);
      expect(await page.getByTestId('workspace-name').textContent()).toBe(SECOND_TEAM.name);
      expect(await page.getByTestId('channel-name').textContent()).toBe('#platform');
      expect(await page.getByTestId('add-to-slack').count()).toBe(0);

      // Help answers in the channel the page shows: the second workspace's own.
      const answers = messages().filter({ hasText: '/cloud' });
      const before = await answers.count();
      await type('/cloud help');
      await answers.nth(before).waitFor();

      await type('/cloud login');
      await page.getByTestId('modal').waitFor();
      expect(sandbox.stack.standIn.store.callsTo('views.open').at(-1)).toMatchObject({
        ok: true,
        team: SECOND_TEAM.id,
      });
      await page.getByTestId('modal-input-token').fill(sandbox.emulator.demoToken);
      await page.getByTestId('modal-submit').click();
      await page.getByTestId('modal').waitFor({ state: 'detached' });
      await messages().filter({ hasText: 'Linked as' }).last().waitFor();
      expect((await sandbox.stack.store.tokenLinks.getToken(SECOND_TEAM.id, 'U0ALICE')).status).toBe('found');

      // Back in the seeded workspace, which works as before and has no link for Alice yet.
      await page.locator('[data-testid="workspace-link"][data-team="T0LOCAL"]').click();
      await openPage();
      expect(await page.getByTestId('channel-name').textContent()).toBe('#ops');
      await type('/cloud login');
      await page.getByTestId('modal').waitFor();
      expect(sandbox.stack.standIn.store.callsTo('views.open').at(-1)).toMatchObject({
        ok: true,
        team: 'T0LOCAL',
      });
      expect((await sandbox.stack.store.tokenLinks.getToken('T0LOCAL', 'U0ALICE')).status).toBe('missing');
      expect(pageErrors).toEqual([]);
    }, 120_000);
  },
);
