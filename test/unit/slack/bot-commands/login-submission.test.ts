import { setTimeout as sleepFor } from 'node:timers/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import type { ViewOutput } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../../infra/local/emulator/server.js';
import { nodeDispatcher, type RequestDispatcher } from '../../../../lib/api/client.js';
import { handleLoginSubmission } from '../../../../lib/slack/bot-commands/profiles.js';
import type { BotDeps } from '../../../../lib/slack/context.js';
import { createStore, type Store } from '../../../../lib/store/index.js';
import { createTestTable, randomLocalCipher, type TestTable } from '../../../support/store.js';

/**
 * A login's last steps, the confirmation to the person and the hand-off that refreshes their
 * Home, do not wait for each other: each is a round trip before the modal closes.
 */

const TEAM = 'T0LOGIN';
const USER = 'U0LOGIN';

let emulator: RunningEmulator;
let table: TestTable;
let store: Store;
beforeAll(async () => {
  emulator = await startEmulator();
  table = await createTestTable();
  store = createStore(table.ctx, randomLocalCipher());
});
afterAll(async () => {
  await emulator?.close();
  await table?.dispose();
});

function submissionView(token: string): ViewOutput {
  return {
    state: {
      values: {
        token: { token_input: { type: 'plain_text_input', value: token } },
        profile: { profile_input: { type: 'plain_text_input', value: 'default' } },
      },
    },
    private_metadata: JSON.stringify({ channel: 'C0LOGIN', profile: 'default' }),
  } as unknown as ViewOutput;
}

describe('a submitted login', () => {
  it("hands off the Home's refresh while the confirmation is still being posted", async () => {
    const steps: string[] = [];
    let releasePost: () => void = () => undefined;
    const client = {
      chat: {
        postEphemeral: (message: { text: string }) => {
          steps.push(
            `confirmation posted: ${message.text.includes('Linked as') ? 'Linked as' : message.text}`,
          );
          return new Promise<{ ok: true }>((resolve) => {
            releasePost = () => resolve({ ok: true });
          });
        },
      },
    } as unknown as WebClient;
    const deps = {
      store,
      logger: new Logger({ serviceName: 'login-test', logLevel: 'SILENT' }),
      api: { baseUrl: emulator.url, timeoutMs: 5_000 },
      handoff: {
        dispatch: async (job: { kind: string }) => {
          steps.push(`handed off: ${job.kind}`);
        },
      },
    } as unknown as BotDeps;

    const submitted = handleLoginSubmission(deps, {
      team: TEAM,
      user: USER,
      view: submissionView(emulator.demoToken),
      client,
    });
    // Both have started while the confirmation is still unanswered.
    await vi.waitFor(() =>
      expect([...steps].sort()).toEqual(['confirmation posted: Linked as', 'handed off: home-refresh']),
    );
    releasePost();
    expect(await submitted).toEqual({ ack: undefined });
    expect(await store.tokenLinks.getToken(TEAM, USER)).toMatchObject({ status: 'found' });
  });

  it("asks for the token's own record while the API is still checking the token", async () => {
    const seen: string[] = [];
    let tokensAsked: () => void = () => undefined;
    const askedForTokens = new Promise<void>((resolve) => {
      tokensAsked = resolve;
    });
    // The profile's answer is held until the token list is asked for (a second at most, so a
    // client that waits for the profile first still finishes, and fails the order below).
    const dispatcher: RequestDispatcher = {
      async request(request) {
        const what = request.path.startsWith('/v4/profile/tokens') ? 'tokens' : request.path;
        seen.push(`asked ${what}`);
        if (what === 'tokens') tokensAsked();
        if (what === '/v4/profile') await Promise.race([askedForTokens, sleepFor(1_000)]);
        const answer = await nodeDispatcher.request(request);
        seen.push(`answered ${what}`);
        return answer;
      },
    };
    const client = { chat: { postEphemeral: async () => ({ ok: true }) } } as unknown as WebClient;
    const deps = {
      store,
      logger: new Logger({ serviceName: 'login-test', logLevel: 'SILENT' }),
      api: { baseUrl: emulator.url, timeoutMs: 5_000, dispatcher },
      handoff: { dispatch: async () => undefined },
    } as unknown as BotDeps;

    const result = await handleLoginSubmission(deps, {
      team: TEAM,
      user: 'U0PARALLEL',
      view: submissionView(emulator.demoToken),
      client,
    });
    expect(result).toEqual({ ack: undefined });
    expect(seen.indexOf('asked tokens')).toBeLessThan(seen.indexOf('answered /v4/profile'));
    expect(await store.tokenLinks.getToken(TEAM, 'U0PARALLEL')).toMatchObject({ status: 'found' });
  });
});
