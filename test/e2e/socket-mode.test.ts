import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Emulator, startEmulator } from '../../infra/local/emulator/server.js';
import { type SlackStandIn, startSlackStandIn } from '../../infra/local/slack/server.js';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { SlackWorkspace } from '../../infra/local/slack/workspace.js';
import { loadLocalEnv, type RealWorkspace, startRealWorkspace } from '../../infra/local/start.js';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { lastCardWith } from '../support/cards.js';

/**
 * `npm start` against a workspace over Socket Mode, end to end: the bot starts as it does with
 * SLACK_BOT_TOKEN, SLACK_APP_TOKEN and CLOUD_API_URL set (SLACK_API_URL pointing at the Slack
 * stand-in), opens its connection through apps.connections.open, and every request reaches it as
 * an envelope on that WebSocket. What is asserted is what people see in the stand-in.
 */

const CHANNEL = 'C0OPS';
const ALICE = 'U0ALICE';
const BOB = 'U0BOB';

let emulator: Emulator;
let standIn: SlackStandIn;
let bot: RealWorkspace;
let workspace: SlackWorkspace;

beforeAll(async () => {
  emulator = await startEmulator({});
  standIn = await startSlackStandIn({});
  const env = loadLocalEnv({
    SLACK_BOT_TOKEN: standIn.botToken,
    SLACK_APP_TOKEN: standIn.socketMode.appToken,
    CLOUD_API_URL: emulator.url,
    SLACK_API_URL: standIn.apiUrl,
  });
  bot = await startRealWorkspace(env, {
    dynamoEndpoint: inject('dynamoEndpoint'),
    tableName: `socket-mode-${randomBytes(4).toString('hex')}`,
  });
  workspace = new SlackWorkspace({ standIn, socketMode: true });
});

afterAll(async () => {
  await bot?.close();
  await standIn?.close();
  await emulator?.close();
});

const opens = () => standIn.store.calls().filter((call) => call.method === 'apps.connections.open');
const textOf = (message: StoredMessage | undefined) =>
  message ? `${message.text}\n${JSON.stringify(message.blocks)}` : '';
const seenBy = (user: string) => standIn.store.messages(CHANNEL, { seenBy: user });

async function command(user: string, text: string) {
  const delivery = await workspace.command(user, CHANNEL, text);
  await bot.drain();
  return delivery;
}

describe('the bot over Socket Mode', () => {
  it('connects with its app-level token and says hello once', () => {
    expect(opens()).toMatchObject([{ ok: true }]);
    expect(standIn.socketMode.openConnections).toBe(1);
  });

  it('answers /cloud help in the acknowledgement, shown to the person who asked', async () => {
    const delivery = await command(ALICE, 'help');
    expect(delivery.status).toBe(200);
    expect(delivery.message?.ephemeral).toBe(true);
    expect(textOf(delivery.message)).toContain('/cloud volumes');
    expect(seenBy(ALICE).at(-1)?.ts).toBe(delivery.message?.ts);
    expect(seenBy(BOB).map((m) => m.ts)).not.toContain(delivery.message?.ts);
  });

  it('/cloud login opens the modal, and submitting it links the token', async () => {
    const opened = await command(ALICE, 'login');
    expect(opened.status).toBe(200);
    const view = standIn.store
      .views()
      .filter((v) => v.user === ALICE && !v.closed)
      .at(-1);
    if (!view) throw new Error(`no login modal: ${JSON.stringify(opened.body)}`);
    const submitted = await workspace.submitView(ALICE, view, {
      profile: { profile_input: 'default' },
      token: { token_input: emulator.demoToken },
    });
    await bot.drain();
    expect(submitted.status).toBe(200);
    expect(standIn.store.views().find((v) => v.id === view.id)?.closed).toBe(true);
    expect(textOf(seenBy(ALICE).at(-1))).toContain('Linked as');
    const whoami = await command(ALICE, 'whoami');
    expect(textOf(whoami.message)).toContain('*demo*');
  });

  it('lists volumes from the API with the linked token', async () => {
    const volume = emulator.control.createVolume({ label: `listed-${randomBytes(3).toString('hex')}` });
    const delivery = await command(ALICE, 'volumes list --all');
    expect(textOf(delivery.message)).toContain('Volumes');
    expect(textOf(delivery.message)).toContain(volume.label);
  });

  it('runs a deletion once after another person clicks Approve on its card', async () => {
    const volume = emulator.control.createVolume({ label: `doomed-${randomBytes(3).toString('hex')}` });
    const asked = await command(ALICE, `volumes delete ${volume.id}`);
    expect(textOf(asked.message)).toContain('needs 1 approval');
    expect(emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(0);
    const card = lastCardWith(standIn.store, CHANNEL, ActionId.approve);
    if (!card) throw new Error('no approval card');

    const clicked = await workspace.click(BOB, card, { actionId: ActionId.approve });
    await bot.drain();
    expect(clicked.status).toBe(200);
    expect(emulator.control.requestCount('volumes.delete', { volumeId: volume.id })).toBe(1);
    expect(emulator.control.volumeExists(volume.id)).toBe(false);
    const updated = standIn.store.findMessage(CHANNEL, card.ts);
    expect(JSON.stringify(updated?.blocks)).not.toContain(ActionId.approve);
    expect(
      standIn.store
        .thread(CHANNEL, card.ts)
        .map((m) => m.text)
        .join('\n'),
    ).toContain(':white_check_mark: Approved and done.');
  });

  it('reconnects through a fresh apps.connections.open after Slack asks it to, and still answers', async () => {
    const before = opens().length;
    const reconnected = standIn.socketMode.nextConnection();
    standIn.socketMode.disconnect('refresh_requested');
    await reconnected;
    expect(opens()).toHaveLength(before + 1);

    const delivery = await command(ALICE, 'whoami');
    expect(delivery.status).toBe(200);
    expect(textOf(delivery.message)).toContain('*demo*');
    expect(seenBy(ALICE).at(-1)?.ts).toBe(delivery.message?.ts);
  });
});
