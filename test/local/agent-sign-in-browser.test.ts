import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type BotStack, startBotStack } from '../../infra/local/bot-stack.js';
import { browserAvailability, CHROMIUM, failInCiWithoutBrowser } from '../support/browser.js';

/**
 * An agent's sign-in as a person clicks through it in a real browser (Debian's chromium driven by
 * playwright-core): the bot's authorize endpoint, Slack's sign-in page in the stand-in, the
 * bot's consent page, and the redirect back to the agent listening on this computer. Chromium
 * enforces what the pages promise: the Content-Security-Policy lets the page's own style apply
 * and nothing else load, the consent form may redirect only to the agent's own redirect URI, and
 * the sign-in's cookie rides along on Slack's redirect back. Nothing secret reaches the logs.
 * Skipped where playwright-core or chromium is missing, failing in CI (`test/support/browser.ts`).
 */

const STEP_TIMEOUT_MS = 15_000;

// The few parts of playwright-core's API used here, so the test compiles before it is installed.
interface Locator {
  click(): Promise<void>;
  selectOption(value: string): Promise<unknown>;
  textContent(): Promise<string | null>;
  count(): Promise<number>;
  evaluate<R>(fn: (element: unknown) => R): Promise<R>;
}
interface ConsoleMessage {
  text(): string;
}
interface Page {
  goto(url: string): Promise<{ status(): number } | null>;
  locator(selector: string): Locator;
  on(event: 'console', listener: (message: ConsoleMessage) => void): void;
  on(event: 'pageerror', listener: (error: Error) => void): void;
  setDefaultTimeout(timeout: number): void;
  waitForURL(url: RegExp | string): Promise<void>;
  url(): string;
  close(): Promise<void>;
}
interface BrowserContext {
  newPage(): Promise<Page>;
  close(): Promise<void>;
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

failInCiWithoutBrowser("an agent's sign-in in chromium", skipReason);

describe.skipIf(skipReason !== undefined)(
  `an agent's sign-in in chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let stack: BotStack;
    let browser: Browser;
    let agentServer: Server;
    let redirectUri: string;
    let issuer: string;
    /** What reached the agent's redirect URI. */
    const arrived: URL[] = [];
    const logged: string[] = [];
    const restoreWrites: (() => void)[] = [];
    /** Every code and token seen here, to look for in the logs. */
    const secrets: string[] = [];

    beforeAll(async () => {
      for (const stream of [process.stdout, process.stderr]) {
        const write = stream.write.bind(stream);
        stream.write = ((chunk: unknown, ...rest: unknown[]) => {
          logged.push(String(chunk));
          return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
        }) as typeof stream.write;
        restoreWrites.push(() => {
          stream.write = write;
        });
      }
      stack = await startBotStack({
        dynamoEndpoint: inject('dynamoEndpoint'),
        // The sign-in pages call no cloud API.
        apiBaseUrl: 'http://127.0.0.1:9/v4',
      });
      issuer = new URL(stack.mcpUrl).origin;
      // The agent on this computer, waiting for the browser to come back with the code.
      agentServer = createServer((incoming, response) => {
        const url = new URL(incoming.url ?? '/', redirectUri);
        // The browser asks for a favicon too.
        if (url.pathname === '/callback') arrived.push(url);
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<!doctype html><title>Agent</title><p id="agent">You may close this window.</p>');
      });
      await new Promise<void>((resolve) => agentServer.listen(0, '127.0.0.1', resolve));
      redirectUri = `http://localhost:${(agentServer.address() as AddressInfo).port}/callback`;
      browser = await (playwright as Playwright).chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
      });
    });

    afterAll(async () => {
      for (const restore of restoreWrites) restore();
      await browser?.close();
      await new Promise<void>((resolve) => agentServer?.close(() => resolve()));
      await stack?.close();
    });

    /** A registered agent's authorization request, and the verifier it keeps. */
    async function authorizationRequest() {
      const registered = await request(`${issuer}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Browser Agent', redirect_uris: [redirectUri] }),
      });
      const { client_id: clientId } = (await registered.body.json()) as { client_id: string };
      const verifier = randomBytes(32).toString('base64url');
      const url = `${issuer}/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        resource: stack.mcpUrl,
        state: 'browser-state',
      })}`;
      return { clientId, verifier, url };
    }

    /** A fresh browser (no cookies) through Slack's sign-in as Alice, up to the consent page. */
    async function toConsentPage(url: string) {
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      const problems: string[] = [];
      page.on('console', (message) => problems.push(message.text()));
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(url);
      await page.locator('select[name="user"]').selectOption('U0ALICE');
      await page.locator('button[value="allow"]').click();
      await page.waitForURL(/\/oauth\/callback\?/);
      return { context, page, problems };
    }

    it('shows the consent page styled under its CSP, naming the agent and warning of this computer', async () => {
      const { url } = await authorizationRequest();
      const { context, page, problems } = await toConsentPage(url);
      expect(await page.locator('h1').textContent()).toBe('Allow Browser Agent?');
      expect(await page.locator('#local-warning').count()).toBe(1);
      // The nonce'd style applied: the card is white on the workspace colour.
      type InPage = { getComputedStyle(element: unknown): { backgroundColor: string } };
      // Runs in the page: only what is inside the function goes there.
      const background = await page
        .locator('main.card')
        .evaluate((element) => (globalThis as unknown as InPage).getComputedStyle(element).backgroundColor);
      expect(background).toBe('rgb(255, 255, 255)');
      expect(problems.filter((text) => /Content Security Policy|Refused/.test(text))).toEqual([]);
      await context.close();
    });

    it('sends the browser back to the agent with a code the agent can redeem, once the person allows', async () => {
      const { clientId, verifier, url } = await authorizationRequest();
      const { context, page, problems } = await toConsentPage(url);
      await page.locator('select[name="channel"]').selectOption('C0OPS');
      await page.locator('input[value="read"]').click();
      await page.locator('#allow').click();
      await page.waitForURL(/\/callback\?code=/);
      expect(await page.locator('#agent').count()).toBe(1);
      const back = arrived.at(-1);
      expect(back?.searchParams.get('state')).toBe('browser-state');
      expect(back?.searchParams.get('iss')).toBe(issuer);
      const code = back?.searchParams.get('code') ?? '';
      secrets.push(code);
      const tokens = await request(`${issuer}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          client_id: clientId,
          redirect_uri: redirectUri,
          resource: stack.mcpUrl,
        }).toString(),
      });
      const issued = (await tokens.body.json()) as {
        access_token: string;
        refresh_token: string;
        scope: string;
      };
      expect(tokens.statusCode).toBe(200);
      expect(issued.scope).toBe('cloud:read');
      secrets.push(issued.access_token, issued.refresh_token);
      expect(problems.filter((text) => /Content Security Policy|Refused/.test(text))).toEqual([]);
      await context.close();
    });

    it('sends access_denied back when the person denies', async () => {
      const { url } = await authorizationRequest();
      const { context, page } = await toConsentPage(url);
      const before = arrived.length;
      await page.locator('#deny').click();
      await page.waitForURL(/\/callback\?error=access_denied/);
      expect(arrived.length).toBe(before + 1);
      expect(arrived.at(-1)?.searchParams.get('state')).toBe('browser-state');
      await context.close();
    });

    it('keeps codes and tokens out of the logs', () => {
      expect(secrets.length).toBeGreaterThan(0);
      const output = logged.join('');
      for (const secret of secrets) expect(output).not.toContain(secret);
    });
  },
);
