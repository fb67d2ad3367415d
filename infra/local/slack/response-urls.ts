import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { describeProblem, refusalFor, validateMessage } from './block-kit-validator.js';
import { slackFileProblems } from './file-shares.js';
import type { SlackStore, StoredMessage } from './store.js';

/**
 * `response_url` endpoints with Slack's rules: each URL answers at most five posts within thirty
 * minutes, posts ephemerally to the user who acted unless told `in_channel`, and can replace or
 * delete the message the interaction came from (a button or menu in a message).
 *
 * A slash command's URL has no such message: `replace_original` and `delete_original` do not act
 * on the command's first ephemeral reply nor on later ones. A replace posts a new message; a
 * delete does nothing (rule `ephemeral-response-url`: the documents describe replacing, the
 * threads bolt-js#2287 and bolt-python#1268 report a new message instead; the stricter is kept).
 *
 * An immediate answer `in_channel` to a slash command shows the command as the person typed it to
 * the whole channel, as their own message; a later `in_channel` post through the URL does not
 * (rule `in-channel-command-echo`).
 */

export const RESPONSE_URL_LIMITS = { uses: 5, lifetimeMs: 30 * 60 * 1000 } as const;

export interface ResponseUrlOptions {
  /** The message whose button or menu produced the interaction: `replace_original` and `delete_original` act on it. */
  readonly triggeredBy?: { readonly messageTs: string };
  /** The slash command the URL answers, as typed (`/cloud nodes list`): an in_channel answer shows it. */
  readonly command?: string;
}

export interface ResponseUrlAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

interface ResponseUrlRecord {
  readonly channel: string;
  readonly user: string;
  readonly createdAt: number;
  uses: number;
  /** The message with the button or menu that produced the interaction; none for a slash command. */
  readonly triggeredByTs: string | undefined;
  /** The slash command as typed; none for a click. */
  readonly command: string | undefined;
}

const Flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]);

const ResponsePayloadSchema = z.object({
  text: z.string().optional(),
  blocks: z.array(z.unknown()).optional(),
  response_type: z.enum(['ephemeral', 'in_channel']).optional(),
  replace_original: Flag.optional(),
  delete_original: Flag.optional(),
  thread_ts: z.string().min(1).optional(),
});

function refused(status: number, error: string, details: Record<string, unknown> = {}): ResponseUrlAnswer {
  return { status, body: { ok: false, error, ...details } };
}

export class ResponseUrls {
  private records = new Map<string, ResponseUrlRecord>();

  constructor(
    private readonly store: SlackStore,
    private readonly baseUrl: string,
  ) {}

  create(channel: string, user: string, options: ResponseUrlOptions = {}): string {
    const id = randomBytes(12).toString('hex');
    this.records.set(id, {
      channel,
      user,
      createdAt: this.store.now(),
      uses: 0,
      triggeredByTs: options.triggeredBy?.messageTs,
      command: options.command,
    });
    return `${this.baseUrl}/response/${id}`;
  }

  /** Handles a POST to `/response/<id>`; the body is the parsed JSON the bot sent. */
  deliver(id: string, payload: unknown): ResponseUrlAnswer {
    const answer = this.answer(id, payload);
    const error = answer.body.error;
    this.store.recordCall({
      method: 'response_url',
      body: typeof payload === 'object' && payload !== null ? { ...payload } : { payload },
      at: this.store.now(),
      ok: answer.status === 200,
      ...(typeof error === 'string' ? { error } : {}),
    });
    return answer;
  }

  /**
   * The bot's immediate answer to a slash command (the body of its HTTP 200): Slack shows it
   * like a response, but it does not use up the URL, and later responses cannot replace it.
   * Answered `in_channel` (even with no text, `{"response_type": "in_channel"}`), the command the
   * person typed is shown to the channel first, as their message (rule `in-channel-command-echo`).
   */
  acknowledge(id: string, payload: unknown): StoredMessage | undefined {
    const record = this.records.get(id);
    const parsed = ResponsePayloadSchema.safeParse(payload);
    if (!record || !parsed.success) return undefined;
    if (parsed.data.response_type === 'in_channel' && record.command !== undefined) {
      this.store.addMessage({
        channel: record.channel,
        user: record.user,
        text: record.command,
        blocks: [],
        ephemeral: false,
        via: 'slash_command',
      });
    }
    if (!parsed.data.text && !parsed.data.blocks) return undefined;
    return this.post(record, parsed.data, undefined);
  }

  reset(): void {
    this.records = new Map();
  }

  private answer(id: string, payload: unknown): ResponseUrlAnswer {
    const record = this.records.get(id);
    if (!record) return refused(404, 'invalid_url');
    if (this.store.now() - record.createdAt > RESPONSE_URL_LIMITS.lifetimeMs)
      return refused(404, 'expired_url');
    if (record.uses >= RESPONSE_URL_LIMITS.uses) return refused(404, 'used_up');
    const parsed = ResponsePayloadSchema.safeParse(payload);
    if (!parsed.success) return refused(400, 'invalid_payload');
    const body = parsed.data;
    const originalTs = record.triggeredByTs;
    const original =
      originalTs === undefined ? undefined : this.store.findMessage(record.channel, originalTs);

    if (body.delete_original === true) {
      if (originalTs === undefined) {
        // A slash command's reply is not the URL's to delete: Slack accepts and nothing happens.
        record.uses += 1;
        return { status: 200, body: { ok: true } };
      }
      if (!original) return refused(404, 'message_not_found');
      this.store.deleteMessage(record.channel, original.ts);
      record.uses += 1;
      return { status: 200, body: { ok: true } };
    }

    const problems = validateMessage({ text: body.text, blocks: body.blocks });
    const error = refusalFor(problems);
    if (error) {
      const errors = problems.filter((problem) => problem.error === error).map(describeProblem);
      return refused(400, error, error === 'invalid_blocks' ? { errors } : {});
    }
    // An ephemeral reply shows no file the channel cannot see (rule `async-file-shares`).
    const fileProblems = slackFileProblems(this.store, record.channel, body.blocks ?? []);
    if (fileProblems.length > 0) return refused(400, 'invalid_blocks', { errors: fileProblems });

    this.post(record, body, original);
    record.uses += 1;
    return { status: 200, body: { ok: true } };
  }

  private post(
    record: ResponseUrlRecord,
    body: z.output<typeof ResponsePayloadSchema>,
    original: StoredMessage | undefined,
  ): StoredMessage {
    const text = body.text ?? '';
    const blocks = body.blocks ?? [];
    if (body.replace_original === true && original) {
      const replaced = this.store.updateMessage(record.channel, original.ts, { text, blocks });
      if (replaced) return replaced;
    }
    const { bot } = this.store.seed;
    const inChannel = body.response_type === 'in_channel';
    return this.store.addMessage({
      channel: record.channel,
      user: bot.userId,
      botId: bot.botId,
      text,
      blocks,
      ephemeral: !inChannel,
      via: 'response_url',
      ...(inChannel ? {} : { visibleTo: record.user }),
      ...(body.thread_ts === undefined ? {} : { thread_ts: body.thread_ts }),
    });
  }
}
