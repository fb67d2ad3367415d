import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type BotStack, startBotStack } from '../../infra/local/bot-stack.js';
import { localDynamoDbClientConfig } from '../../infra/local/dynamodb.js';
import {
  APPROVAL_LINK_SECONDS,
  passkeyApprovalLink,
  passkeyEnrollmentLink,
} from '../../lib/passkeys/links.js';
import type { VerifiedAssertion } from '../../lib/passkeys/routes.js';
import { browserAvailability, CHROMIUM, failInCiWithoutBrowser } from '../support/browser.js';
import { testClock } from '../support/store.js';

/**
 * A passkey enrolled and used in a real browser: Debian's chromium (playwright-core) with
 * Chromium's virtual authenticator (DevTools' WebAuthn domain) against the local bot's HTTP
 * server and DynamoDB Local. An approval counts once, from an assertion that checks out; a link
 * used again, expired, or opened for someone whose passkey it is not records nothing. Skipped
 * where playwright-core or chromium is missing, failing in CI (`test/support/browser.ts`).
 */

const STEP_TIMEOUT_MS = 15_000;
const TEAM = 'T0PASSKEY';
const ADA = 'U0ADA';
const BOB = 'U0BOB';

// The few parts of playwright-core's API used here, so the test compiles before it is installed.
interface Locator {
  click(): Promise<void>;
  waitFor(options?: { state?: 'attached' | 'visible' }): Promise<void>;
  textContent(): Promise<string | null>;
  getAttribute(name: string): Promise<string | null>;
  count(): Promise<number>;
}
interface Response {
  status(): number;
  json(): Promise<unknown>;
}
interface Route {
  fetch(): Promise<Response>;
  fulfill(options: { response: Response; json: unknown }): Promise<void>;
}
interface Page {
  goto(url: string): Promise<{ status(): number } | null>;
  locator(selector: string): Locator;
  on(event: 'pageerror', listener: (error: Error) => void): void;
  setDefaultTimeout(timeout: number): void;
  route(url: string | RegExp, handler: (route: Route) => Promise<void>): Promise<void>;
  unrouteAll(): Promise<void>;
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
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

failInCiWithoutBrowser('passkey enrollment and approval in chromium', skipReason);

describe.skipIf(skipReason !== undefined)(
  `passkey enrollment and approval in chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    const clock = testClock();
    const recorded: { challengeId: string; proof: VerifiedAssertion }[] = [];
    const logged: string[] = [];
    const restoreWrites: (() => void)[] = [];
    let stack: BotStack;
    let browser: Browser;
    let page: Page;
    let cdp: CdpSession;
    let authenticatorId: string;
    const pageErrors: string[] = [];
    /** Every link minted here, to look for in the logs. */
    const links: string[] = [];

    beforeAll(async () => {
      // Everything the bot writes to stdout and stderr, for the secrets scan at the end.
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
        // The passkey page calls no cloud API.
        apiBaseUrl: 'http://127.0.0.1:9/v4',
        now: clock.now,
        onPasskeyAssertion: async (challengeId, proof) => {
          recorded.push({ challengeId, proof });
          return { recorded: true, message: 'Approved: you may close this page.' };
        },
        // The page alone: its links name challenges no workflow made, so what they prove is given.
        describePasskeyProof: async ({ challengeId }) => ({
          decision: 'approve',
          action: 'delete volume',
          target: `db-data (${challengeId})`,
          requester: 'Alice Operator',
          reason: null,
          requestId: challengeId,
          requestExpires: new Date(clock.now().getTime() + 60 * 60_000),
          timeZone: 'UTC',
        }),
      });
      browser = await (playwright as Playwright).chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
      });
      const context = await browser.newContext();
      page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      cdp = await context.newCDPSession(page);
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
      authenticatorId = String(added.authenticatorId);
    });

    afterAll(async () => {
      await browser?.close();
      await stack?.close();
      for (const restore of restoreWrites) restore();
    });

    async function mint(kind: 'enroll' | { challengeId: string; user?: string }): Promise<string> {
      const offer =
        kind === 'enroll'
          ? await passkeyEnrollmentLink(stack.passkeyLinks, { teamId: TEAM, userId: ADA })
          : await passkeyApprovalLink(stack.passkeyLinks, {
              teamId: TEAM,
              userId: kind.user ?? ADA,
              challengeId: kind.challengeId,
            });
      links.push(offer.url);
      return offer.url;
    }

    /** Clicks the page's button and answers what the page then says, and in which state. */
    async function useOnPage(): Promise<{ state: string; text: string }> {
      await page.locator('#passkey-start').click();
      const result = page.locator(
        '#passkey-result[data-state="done"], #passkey-result[data-state="refused"]',
      );
      await result.waitFor();
      const state = (await result.getAttribute('data-state')) ?? '';
      return { state, text: (await result.textContent()) ?? '' };
    }

    async function rawItems(): Promise<Record<string, unknown>[]> {
      const client = new DynamoDBClient(localDynamoDbClientConfig(inject('dynamoEndpoint')));
      try {
        const scanned = await client.send(new ScanCommand({ TableName: stack.tableName }));
        return (scanned.Items ?? []).map((item) => unmarshall(item));
      } finally {
        client.destroy();
      }
    }

    it('enrolls a passkey through a link and keeps it sealed', async () => {
      const url = await mint('enroll');
      expect(new URL(url).hostname).toBe('localhost');
      const opened = await page.goto(url);
      expect(opened?.status()).toBe(200);
      expect(await useOnPage()).toEqual({ state: 'done', text: 'Passkey saved. You may close this page.' });

      const [passkey, ...more] = await stack.store.passkeys.list(TEAM, ADA);
      expect(more).toEqual([]);
      if (!passkey) throw new Error('no passkey stored');
      const { credentials } = (await cdp.send('WebAuthn.getCredentials', {
        authenticatorId,
      })) as { credentials: { credentialId: string }[] };
      expect(credentials.map((c) => Buffer.from(c.credentialId, 'base64').toString('base64url'))).toEqual([
        passkey.id,
      ]);

      // In the table: neither the public key's bytes nor the credential id, in any usual encoding.
      const item = (await rawItems()).find((i) => i.kind === 'passkey');
      expect(item).toBeDefined();
      const stored = JSON.stringify(item);
      const key = Buffer.from(passkey.publicKey);
      for (const form of [key.toString('base64'), key.toString('base64url'), key.toString('hex'), passkey.id])
        expect(stored).not.toContain(form);
      expect(item?.credential).toMatchObject({ alg: 'AES-256-GCM' });
    });

    it('approves with the passkey once: the callback hears of it exactly once', async () => {
      const url = await mint({ challengeId: 'CH-APPROVE' });
      await page.goto(url);
      expect(await useOnPage()).toEqual({ state: 'done', text: 'Approved: you may close this page.' });
      const [passkey] = await stack.store.passkeys.list(TEAM, ADA);
      expect(recorded).toEqual([
        { challengeId: 'CH-APPROVE', proof: { teamId: TEAM, userId: ADA, credentialId: passkey?.id } },
      ]);

      // The same link again: the page refuses it, and asking for options or posting an answer too.
      const again = await page.goto(url);
      expect(again?.status()).toBe(410);
      expect(await page.locator('#passkey-start').count()).toBe(0);
      expect(await page.locator('#passkey-result').textContent()).toContain('already used');
      for (const step of ['options', 'verify']) {
        const status = await page.evaluate(
          async (target) => (await fetch(target, { method: 'POST', body: '{}' })).status,
          `${url}/${step}`,
        );
        expect(status).toBe(410);
      }
      expect(recorded).toHaveLength(1);
    });

    it('refuses a link that expired while its page was open, and records nothing', async () => {
      const url = await mint({ challengeId: 'CH-EXPIRED' });
      await page.goto(url);
      clock.advance(APPROVAL_LINK_SECONDS * 1000 + 1);
      const outcome = await useOnPage();
      expect(outcome.state).toBe('refused');
      expect(outcome.text).toContain('expired');
      expect((await page.goto(url))?.status()).toBe(410);
      expect(recorded).toHaveLength(1);
    });

    it("refuses an approval link of someone with no passkey, opened with Ada's authenticator", async () => {
      const url = await mint({ challengeId: 'CH-BOB', user: BOB });
      await page.goto(url);
      const outcome = await useOnPage();
      expect(outcome).toEqual({
        state: 'refused',
        text: 'No passkey is registered for the person this link was sent to. Nothing was recorded.',
      });
      expect(recorded).toHaveLength(1);
    });

    it("refuses Ada's passkey answering a link for Bob, even when the options are forged to ask for it", async () => {
      // Bob has a passkey of his own (not in this browser), so his link offers options.
      await stack.store.passkeys.save(TEAM, BOB, {
        id: Buffer.from('bob-security-key').toString('base64url'),
        publicKey: new Uint8Array(77).fill(7),
        counter: 0,
        transports: ['usb'],
      });
      const [ada] = await stack.store.passkeys.list(TEAM, ADA);
      const url = await mint({ challengeId: 'CH-FORGED', user: BOB });
      // The page is made to ask the authenticator for Ada's credential instead of Bob's.
      await page.route(/\/options$/, async (route) => {
        const response = await route.fetch();
        const answer = (await response.json()) as { options: Record<string, unknown> };
        await route.fulfill({
          response,
          json: {
            ...answer,
            options: { ...answer.options, allowCredentials: [{ id: ada?.id, type: 'public-key' }] },
          },
        });
      });
      try {
        await page.goto(url);
        const outcome = await useOnPage();
        expect(outcome.state).toBe('refused');
        expect(outcome.text).toContain('not registered to the person this link was sent to');
      } finally {
        await page.unrouteAll();
      }
      // The link is spent by that answer all the same.
      expect((await page.goto(url))?.status()).toBe(410);
      expect(recorded).toHaveLength(1);
    });

    it('wrote no link, credential id or public key to the logs, and the page threw nothing', async () => {
      const everything = logged.join('');
      // The capture works: the bot's own log lines are in it.
      expect(everything).toContain('passkey registered');
      const secrets = [...links.map((url) => url.split('/').pop() ?? url)];
      for (const passkey of await stack.store.passkeys.list(TEAM, ADA)) {
        const key = Buffer.from(passkey.publicKey);
        secrets.push(passkey.id, key.toString('base64'), key.toString('base64url'));
      }
      expect(secrets.length).toBeGreaterThan(4);
      for (const secret of secrets) expect(everything).not.toContain(secret);
      expect(pageErrors).toEqual([]);
    });
  },
);
