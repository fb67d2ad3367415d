import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionId } from '../../lib/slack-kit/interactions.js';
import { ALICE, CHANNEL, type E2E, startE2E } from '../support/e2e.js';

/** Operation forms: a modal built from the request schema, validated like typed flags. */

let e2e: E2E;
/** How far the Slack stand-in's clock runs ahead of the bot's, to make a trigger late. */
let slackSkewMs = 0;

beforeAll(async () => {
  e2e = await startE2E({ stack: { slack: { now: () => Date.now() + slackSkewMs } } });
  await e2e.login(ALICE, e2e.emulator.demoToken);
});

afterAll(async () => {
  await e2e?.close();
});

describe('--form', () => {
  it('opens a modal with the fields, required ones first', async () => {
    await e2e.command(ALICE, 'volumes create --form');
    const view = e2e.openView(ALICE);
    expect(view?.view.callback_id).toBe('op:form');
    const blocks = (view?.view.blocks ?? []) as {
      block_id?: string;
      optional?: boolean;
      label?: { text: string };
      hint?: { text: string };
    }[];
    const inputs = blocks.filter((b) => b.block_id);
    expect(inputs[0]).toMatchObject({ block_id: 'label', optional: false });
    // Labelled by what the field is, not by its flag ("--label (must be text)", "--tags (must be a JSON list)").
    const byId = (id: string) => inputs.find((b) => b.block_id === id);
    expect(byId('label')?.label?.text).toBe('Label');
    expect(byId('size')?.label?.text).toBe('Size (GB)');
    expect(byId('size')?.hint?.text).toBe('1 to 10,240 GB');
    expect(byId('tags')?.label?.text).toBe('Tags');
    expect(byId('tags')?.hint?.text).toContain('separated by commas');
    expect(JSON.stringify(view?.view.blocks)).not.toMatch(/--\w|must be|…/);
    expect(inputs.map((b) => b.block_id)).toEqual(expect.arrayContaining(['region', 'size', 'tags']));
  });

  it('shows a rule violation next to its field and creates nothing', async () => {
    const view = e2e.openView(ALICE);
    if (!view) throw new Error('no form');
    const before = e2e.emulator.control.requestCount('volumes.create');
    const delivery = await e2e.stack.workspace.submitView(ALICE, view, { label: { value: 'data' } });
    expect(delivery.body).toMatchObject({
      response_action: 'errors',
      errors: { region: expect.stringContaining('required') },
    });
    expect(e2e.emulator.control.requestCount('volumes.create')).toBe(before);
  });

  it('runs the operation on submit and posts the result', async () => {
    const view = e2e.openView(ALICE);
    if (!view) throw new Error('no form');
    const delivery = await e2e.stack.workspace.submitView(ALICE, view, {
      label: { value: 'from-form' },
      region: { value: 'us-east' },
      size: { value: '30' },
      tags: { value: 'a, b' },
    });
    await e2e.stack.drain();
    expect(delivery.status).toBe(200);
    expect(e2e.emulator.control.requestCount('volumes.create')).toBe(1);
    const posted = e2e.stack.standIn.store.messages(CHANNEL).at(-1);
    expect(e2e.textOf(posted)).toContain('from-form');
  });
});

describe('a button that needs more input', () => {
  it('opens the form for the missing fields, keeping the ids it knows', async () => {
    const volume = e2e.emulator.control.createVolume({ label: 'loose', region: 'us-east' });
    const viewed = await e2e.command(ALICE, `volumes view ${volume.id}`);
    if (!viewed.message) throw new Error('no detail message');
    const attach = JSON.stringify(viewed.message.blocks).match(
      /"action_id":"(op:run[^"]*)","text":\{"type":"plain_text","text":"Attach/,
    );
    expect(attach).not.toBeNull();
    await e2e.stack.workspace.click(ALICE, viewed.message, { actionId: attach?.[1] ?? ActionId.run });
    const view = e2e.openView(ALICE);
    expect(view?.view.callback_id).toBe('op:form');
    expect(JSON.stringify(view?.view.blocks)).toContain('node_id');
    expect(JSON.parse(String(view?.view.private_metadata))).toMatchObject({
      o: 'volumes.attach',
      i: { volumeId: volume.id },
    });
  });
});

describe('a form whose trigger Slack no longer takes', () => {
  function formsOpen(): number {
    return e2e.stack.standIn.store.views().filter((view) => view.user === ALICE && !view.closed).length;
  }

  it('tells the person to run the command again when the trigger is over three seconds old', async () => {
    const before = formsOpen();
    const late = e2e.stack.standIn.triggerIdFor(ALICE);
    slackSkewMs = 4_000;
    try {
      const delivery = await e2e.stack.workspace.command(ALICE, CHANNEL, 'volumes create --form', {
        triggerId: late,
      });
      expect(delivery.status).toBe(200);
      const text = e2e.textOf(delivery.message);
      expect(text).toContain('did not open');
      expect(text).toContain('/cloud volumes create --form');
      expect(text).not.toContain('Something went wrong');
    } finally {
      slackSkewMs = 0;
    }
    expect(formsOpen()).toBe(before);
    expect(e2e.stack.standIn.store.callsTo('views.open').at(-1)?.error).toBe('expired_trigger_id');
  });

  it('says the same for a trigger that already opened a view', async () => {
    const { standIn } = e2e.stack;
    const used = standIn.triggerIdFor(ALICE);
    const plain = (text: string) => ({ type: 'plain_text' as const, text });
    const client = new WebClient(standIn.botToken, {
      slackApiUrl: standIn.apiUrl,
      retryConfig: { retries: 0 },
    });
    await client.views.open({
      trigger_id: used,
      view: { type: 'modal', title: plain('Elsewhere'), blocks: [{ type: 'section', text: plain('x') }] },
    });
    const again = await e2e.stack.workspace.command(ALICE, CHANNEL, 'volumes create --form', {
      triggerId: used,
    });
    expect(e2e.textOf(again.message)).toContain('Run `/cloud volumes create --form` again.');
    expect(e2e.stack.standIn.store.callsTo('views.open').at(-1)?.error).toBe('exchanged_trigger_id');
  });

  it('says to wait and run it again when Slack rate limits views.open', async () => {
    e2e.stack.standIn.injectRateLimit({ methods: ['views.open'], retryAfterSeconds: 5 });
    try {
      const delivery = await e2e.command(ALICE, 'login');
      const text = e2e.textOf(delivery.message);
      expect(text).toContain('slow down');
      expect(text).toContain('Wait 5 seconds');
      expect(text).toContain('/cloud login');
    } finally {
      e2e.stack.standIn.injectRateLimit(undefined);
    }
  });
});
