import type { AllMiddlewareArgs, SlackActionMiddlewareArgs } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import type { BotDeps } from '../../../lib/slack/context.js';
import { type ClickWay, onClick } from '../../../lib/slack/listeners/clicks.js';
import { encodeActionValue, type RunPayload } from '../../../lib/slack-kit/interactions.js';
import { notice, type Reply } from '../../../lib/slack-kit/reply.js';

/**
 * What every button and menu listener gets from `onClick` before and after its own work: the ack
 * first, one answer for a click Slack delivers twice, the safety net, and the reply where the
 * clicker sees it.
 */

const TEAM = 'T0CLICK';
const USER = 'U0CLICK';
const CHANNEL = 'C0CLICK';

interface Seen {
  readonly steps: string[];
  readonly responses: Record<string, unknown>[];
  readonly directMessages: { channel: string; text: string }[];
  readonly errors: string[];
}

/** Deps whose delivery claim remembers keys (or waits on `claim`), and a log of what was done. */
function fakeDeps(seen: Seen, claim?: Promise<void>): BotDeps {
  const claimed = new Set<string>();
  return {
    store: {
      deliveries: {
        claimOnce: async (key: string) => {
          seen.steps.push('claim asked');
          await claim;
          seen.steps.push('claim answered');
          if (claimed.has(key)) return false;
          claimed.add(key);
          return true;
        },
      },
    },
    logger: {
      error: (message: string) => seen.errors.push(message),
      warn: (message: string) => seen.errors.push(message),
    },
  } as unknown as BotDeps;
}

function newSeen(): Seen {
  return { steps: [], responses: [], directMessages: [], errors: [] };
}

type ClickArgs = SlackActionMiddlewareArgs & AllMiddlewareArgs;

/** Bolt's arguments for a click on a message (or a Home tab) of `element`, recorded into `seen`. */
function clickArgs(
  seen: Seen,
  element: Record<string, unknown>,
  on: 'message' | 'home' = 'message',
): ClickArgs {
  const body =
    on === 'message'
      ? {
          type: 'block_actions',
          team: { id: TEAM },
          user: { id: USER, team_id: TEAM },
          channel: { id: CHANNEL },
          response_url: 'https://hooks.slack.test/actions/1',
          trigger_id: 'trigger-1',
          actions: [element],
        }
      : {
          type: 'block_actions',
          team: { id: TEAM },
          user: { id: USER, team_id: TEAM },
          container: { type: 'view', view_id: 'V0HOME' },
          trigger_id: 'trigger-1',
          actions: [element],
        };
  return {
    ack: async () => void seen.steps.push('ack'),
    body,
    action: element,
    respond: async (message: Record<string, unknown>) => {
      seen.responses.push(message);
    },
    client: {
      chat: {
        postMessage: async (message: { channel: string; text: string }) => {
          seen.directMessages.push(message);
          return { ok: true };
        },
      },
    },
  } as unknown as ClickArgs;
}

function button(value: string | undefined, actionTs = '1700000000.000100'): Record<string, unknown> {
  return { type: 'button', action_id: 'op:run', block_id: 'b1', action_ts: actionTs, value };
}

const RUN: RunPayload = { operationId: 'volumes.list', input: {} };

/** A listener that only notes it ran, and answers `reply` (nothing when `reply` is null). */
function answering(seen: Seen, reply: Reply | null = notice('done')) {
  return async (): Promise<Reply | undefined> => {
    seen.steps.push('listener');
    return reply ?? undefined;
  };
}

describe('onClick', () => {
  it('acks before the delivery claim is answered, and the listener waits for the claim', async () => {
    const seen = newSeen();
    let answerClaim: () => void = () => undefined;
    const claim = new Promise<void>((resolve) => {
      answerClaim = resolve;
    });
    const listener = onClick(fakeDeps(seen, claim), {}, answering(seen));
    const handled = listener(clickArgs(seen, button('x')));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.steps).toEqual(['ack', 'claim asked']);
    answerClaim();
    await handled;
    expect(seen.steps).toEqual(['ack', 'claim asked', 'claim answered', 'listener']);
  });

  it('answers a click Slack delivers twice once', async () => {
    const seen = newSeen();
    const listener = onClick(fakeDeps(seen), {}, answering(seen));
    const args = clickArgs(seen, button('x'));
    await listener(args);
    await listener(args);
    expect(seen.steps.filter((step) => step === 'ack')).toHaveLength(2);
    expect(seen.steps.filter((step) => step === 'listener')).toHaveLength(1);
    expect(seen.responses).toHaveLength(1);
  });

  it('answers two clicks of the same button, which Slack sends with different action_ts, each', async () => {
    const seen = newSeen();
    const listener = onClick(fakeDeps(seen), {}, answering(seen));
    await listener(clickArgs(seen, button('x', '1700000000.000100')));
    await listener(clickArgs(seen, button('x', '1700000000.000200')));
    expect(seen.responses).toHaveLength(2);
  });

  it('answers a repeated delivery again when the way says the click is not claimed', async () => {
    const seen = newSeen();
    const listener = onClick(fakeDeps(seen), { element: 'any', once: false }, answering(seen));
    const args = clickArgs(seen, button(undefined));
    await listener(args);
    await listener(args);
    expect(seen.steps).toEqual(['ack', 'listener', 'ack', 'listener']);
  });

  it('starts what the way does meanwhile before the claim is answered, and hands its result on', async () => {
    const seen = newSeen();
    let given: string | undefined;
    const listener = onClick(
      fakeDeps(seen),
      {
        meanwhile: (_ctx, value) => {
          seen.steps.push(`meanwhile ${value}`);
          return 'read ahead';
        },
      },
      async ({ meanwhile }) => {
        given = meanwhile;
        return undefined;
      },
    );
    await listener(clickArgs(seen, button('x')));
    expect(seen.steps).toEqual(['ack', 'claim asked', 'meanwhile x', 'claim answered']);
    expect(given).toBe('read ahead');
  });

  it("decodes the element's value by the way's schema, and gives undefined for a value it refuses", async () => {
    const seen = newSeen();
    const payloads: unknown[] = [];
    const way: ClickWay<RunPayload, undefined> = { payload: (m) => m.RunPayloadSchema };
    const listener = onClick(fakeDeps(seen), way, async ({ payload }) => {
      payloads.push(payload);
      return undefined;
    });
    await listener(clickArgs(seen, button(encodeActionValue(RUN), '1.1')));
    await listener(clickArgs(seen, button('{"__proto__":{"o":"volumes.list"}}', '1.2')));
    await listener(clickArgs(seen, button('not json', '1.3')));
    expect(payloads).toEqual([RUN, undefined, undefined]);
  });

  it('drops, after its ack, a click on another kind of element or from where the listener takes none', async () => {
    const seen = newSeen();
    const listener = onClick(fakeDeps(seen), {}, answering(seen));
    await listener(clickArgs(seen, { ...button('x'), type: 'overflow' }));
    await listener(clickArgs(seen, button('x'), 'home'));
    expect(seen.steps).toEqual(['ack', 'ack']);
    expect(seen.responses).toEqual([]);
  });

  it('answers what the listener throws through the safety net, with a reference and nothing of the error', async () => {
    const seen = newSeen();
    const listener = onClick(fakeDeps(seen), {}, async () => {
      throw new Error('secret internals');
    });
    await listener(clickArgs(seen, button('x')));
    expect(seen.errors).toEqual(['command failed']);
    expect(seen.responses).toHaveLength(1);
    const text = JSON.stringify(seen.responses[0]);
    expect(text).toContain('"response_type":"ephemeral"');
    expect(text).toMatch(/Something went wrong \(ref [0-9a-f]{8}\)/);
    expect(text).not.toContain('secret internals');
  });

  it('replies as the reply says, in place of the message, or to the clicker alone', async () => {
    const seen = newSeen();
    const inChannel: Reply = { ...notice('for all'), visibility: 'in_channel' };
    const ways: ClickWay<never, undefined>[] = [
      {},
      { reply: 'in place of the message' },
      { reply: 'to the clicker alone' },
    ];
    for (const [index, way] of ways.entries()) {
      await onClick(
        fakeDeps(seen),
        way,
        answering(seen, inChannel),
      )(clickArgs(seen, button('x', `2.${index}`)));
    }
    expect(
      seen.responses.map(({ response_type, replace_original }) => ({ response_type, replace_original })),
    ).toEqual([
      { response_type: 'in_channel', replace_original: false },
      { response_type: 'in_channel', replace_original: true },
      { response_type: 'ephemeral', replace_original: false },
    ]);
  });

  it('tells a Home click its answer by direct message, having no response_url', async () => {
    const seen = newSeen();
    const listener = onClick(
      fakeDeps(seen),
      { from: 'home', reply: 'to the clicker alone' },
      answering(seen, notice('sent')),
    );
    await listener(clickArgs(seen, button('x'), 'home'));
    expect(seen.responses).toEqual([]);
    expect(seen.directMessages).toMatchObject([{ channel: USER, text: 'sent' }]);
  });

  it('sends nothing when the listener has nothing to say (a form opened instead)', async () => {
    const seen = newSeen();
    await onClick(fakeDeps(seen), {}, answering(seen, null))(clickArgs(seen, button('x')));
    expect(seen.steps).toContain('listener');
    expect(seen.responses).toEqual([]);
    expect(seen.directMessages).toEqual([]);
  });
});
