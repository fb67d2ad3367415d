import { expect, inject } from 'vitest';
import { type BotStack, type BotStackOptions, startBotStack } from '../../infra/local/bot-stack.js';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../infra/local/emulator/server.js';
import type { StoredMessage, StoredView } from '../../infra/local/slack/store.js';
import type { Delivery } from '../../infra/local/slack/workspace.js';

/**
 * The whole bot for end-to-end tests: the emulator over HTTP, DynamoDB Local, the Slack
 * stand-in, and the Slack function behind the API Gateway adapter. Tests act as Slack users
 * (signed requests) and read what the bot posted from the stand-in.
 */

export const CHANNEL = 'C0OPS';
export const ALICE = 'U0ALICE';
export const BOB = 'U0BOB';
export const ADA = 'U0ADMIN';

export interface E2E {
  readonly emulator: Emulator;
  readonly stack: BotStack;
  /** `/cloud <text>` by `user`, waiting for any handed-off work to finish. */
  command(user: string, text: string, channel?: string): Promise<Delivery & { responseUrl: string }>;
  /** Links `token` for `user` through the login modal. */
  login(user: string, token: string, profile?: string): Promise<Delivery>;
  /** What `user` sees in the channel, newest last. */
  seen(user: string, channel?: string): StoredMessage[];
  lastSeen(user: string, channel?: string): StoredMessage;
  /** Text of a message with its blocks, for assertions. */
  textOf(message: StoredMessage | undefined): string;
  /** The modal `user` has open (their Home tab is not one). */
  openView(user: string): StoredView | undefined;
  close(): Promise<void>;
}

export async function startE2E(
  options: { emulator?: EmulatorOptions; stack?: Partial<BotStackOptions> } = {},
): Promise<E2E> {
  const emulator = await startEmulator(options.emulator ?? {});
  const stack = await startBotStack({
    dynamoEndpoint: inject('dynamoEndpoint'),
    apiBaseUrl: emulator.url,
    ...options.stack,
  });
  const { workspace, standIn } = stack;

  const seen = (user: string, channel = CHANNEL) => standIn.store.messages(channel, { seenBy: user });
  const e2e: E2E = {
    emulator,
    stack,
    command: async (user, text, channel = CHANNEL) => {
      const delivery = await workspace.command(user, channel, text);
      await stack.drain();
      return delivery;
    },
    login: async (user, token, profile) => {
      const opened = await workspace.command(user, CHANNEL, profile ? `login --profile ${profile}` : 'login');
      expect(opened.status).toBe(200);
      const view = e2e.openView(user);
      if (!view) throw new Error(`no login modal opened for ${user}: ${JSON.stringify(opened.body)}`);
      const delivery = await workspace.submitView(user, view, {
        profile: { profile_input: profile ?? 'default' },
        token: { token_input: token },
      });
      await stack.drain();
      return delivery;
    },
    seen,
    lastSeen: (user, channel = CHANNEL) => {
      const message = seen(user, channel).at(-1);
      if (!message) throw new Error(`${user} sees no message in ${channel}`);
      return message;
    },
    textOf: (message) => (message ? `${message.text}\n${JSON.stringify(message.blocks)}` : ''),
    openView: (user) =>
      standIn.store
        .views()
        .filter((view) => view.user === user && !view.closed && view.view.type !== 'home')
        .at(-1),
    close: async () => {
      await stack.close();
      await emulator.close();
    },
  };
  return e2e;
}
