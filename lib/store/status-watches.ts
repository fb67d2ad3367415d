import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { type ConditionalUpdate, getParsed, parseItem, putNew, updateIf } from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import { TABLE_DEFINITION } from './table-definition.js';
import '../zod-settings.js';

/**
 * Status watches: a Slack message about a long operation (a database being provisioned, an image
 * being captured) that the reporter keeps up to date until the resource settles. A watch still
 * running sits in the shared sparse index (`gsi1`) under its own partition, so each tick reads the
 * running watches of all teams in one query; a finished watch leaves the index and expires.
 */

export type WatchOutcome = 'final' | 'failed' | 'gone' | 'timed_out' | 'token_rejected';

export interface StatusWatch {
  readonly id: string;
  readonly team: string;
  /** Who started the operation; the watch reads the resource with this user's token. */
  readonly user: string;
  readonly profile: string;
  readonly channel: string;
  /** The message that is updated. */
  readonly messageTs: string;
  /** The operation that was started, e.g. `databases.mysql-create`. */
  readonly operationId: string;
  /** The operation that reads the resource, e.g. `databases.mysql-view`. */
  readonly viewOperationId: string;
  /** Its input: the resource's path parameters. */
  readonly viewInput: Readonly<Record<string, string | number>>;
  readonly statusField: string;
  readonly finalStatuses: readonly string[];
  /** Statuses after which the resource will not settle by itself (e.g. `failed`). */
  readonly failedStatuses: readonly string[];
  readonly lastStatus: string | null;
  readonly startedAt: Date;
  readonly giveUpAt: Date;
  readonly checks: number;
  readonly finished: boolean;
  readonly outcome: WatchOutcome | null;
}

export interface NewStatusWatch {
  readonly team: string;
  readonly user: string;
  readonly profile: string;
  readonly channel: string;
  readonly messageTs: string;
  readonly operationId: string;
  readonly viewOperationId: string;
  readonly viewInput: Readonly<Record<string, string | number>>;
  readonly statusField: string;
  readonly finalStatuses: readonly string[];
  readonly failedStatuses?: readonly string[];
  readonly lastStatus: string | null;
  readonly giveUpAt: Date;
}

/** Finished watches stay readable for a week (what happened to that message?), then TTL removes them. */
const FINISHED_RETENTION_SECONDS = 7 * 24 * 3600;

const WatchItemSchema = z.object({
  kind: z.literal('status_watch'),
  id: z.string(),
  team_id: z.string(),
  user_id: z.string(),
  profile: z.string(),
  channel_id: z.string(),
  message_ts: z.string(),
  operation_id: z.string(),
  view_operation_id: z.string(),
  view_input: z.record(z.string(), z.union([z.string(), z.number()])),
  status_field: z.string(),
  final_statuses: z.array(z.string()),
  failed_statuses: z.array(z.string()),
  last_status: z.string().nullable(),
  started_at: z.iso.datetime(),
  give_up_at: z.iso.datetime(),
  checks: z.number().int(),
  finished: z.boolean(),
  outcome: z.enum(['final', 'failed', 'gone', 'timed_out', 'token_rejected']).optional(),
});
type WatchItem = z.infer<typeof WatchItemSchema>;

const { dueReportsIndex } = TABLE_DEFINITION;

export class StatusWatchRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async create(input: NewStatusWatch): Promise<StatusWatch> {
    const id = randomUUID();
    const startedAt = this.#ctx.now();
    const item = {
      pk: keys.team(input.team),
      sk: keys.watch(id),
      kind: 'status_watch',
      id,
      team_id: input.team,
      user_id: input.user,
      profile: input.profile,
      channel_id: input.channel,
      message_ts: input.messageTs,
      operation_id: input.operationId,
      view_operation_id: input.viewOperationId,
      view_input: { ...input.viewInput },
      status_field: input.statusField,
      final_statuses: [...input.finalStatuses],
      failed_statuses: [...(input.failedStatuses ?? [])],
      last_status: input.lastStatus,
      started_at: startedAt.toISOString(),
      give_up_at: input.giveUpAt.toISOString(),
      checks: 0,
      finished: false,
      [dueReportsIndex.partitionKey]: keys.activeWatches,
      [dueReportsIndex.sortKey]: keys.activeWatchSort(startedAt, id),
    } satisfies WatchItem & Record<string, unknown>;
    await putNew(this.#ctx, item);
    return toWatch(item);
  }

  async get(team: string, id: string): Promise<StatusWatch | undefined> {
    const item = await getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.watch(id) },
      WatchItemSchema,
      'status watch',
    );
    return item && toWatch(item);
  }

  /** Watches still running, of all teams, oldest first. */
  async running(limit: number): Promise<StatusWatch[]> {
    const watches: StatusWatch[] = [];
    if (limit < 1) return watches;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.#ctx.table.query({
        TableName: this.#ctx.tableName,
        IndexName: dueReportsIndex.name,
        KeyConditionExpression: '#pk = :watches',
        ExpressionAttributeNames: { '#pk': dueReportsIndex.partitionKey },
        ExpressionAttributeValues: { ':watches': keys.activeWatches },
        Limit: limit - watches.length,
        ExclusiveStartKey: startKey,
      });
      for (const raw of page.Items ?? []) {
        const watch = toWatch(parseItem(WatchItemSchema, raw, 'status watch'));
        if (!watch.finished) watches.push(watch);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey && watches.length < limit);
    return watches;
  }

  /**
   * Records a check that saw `status`. True only for the caller that moved the watch from the
   * status it read, so of two overlapping ticks one updates the message.
   */
  async recordStatus(watch: StatusWatch, status: string | null): Promise<boolean> {
    return this.#conditionalUpdate(watch, {
      UpdateExpression: 'SET last_status = :status, checks = checks + :one',
      ConditionExpression: 'finished = :false AND last_status = :previous',
      ExpressionAttributeValues: {
        ':status': status,
        ':one': 1,
        ':false': false,
        ':previous': watch.lastStatus,
      },
    });
  }

  /** Ends a watch: out of the index, kept a week for reference. False when it had already ended. */
  async finish(watch: StatusWatch, outcome: WatchOutcome, status: string | null): Promise<boolean> {
    return this.#conditionalUpdate(watch, {
      UpdateExpression:
        'SET finished = :true, outcome = :outcome, last_status = :status, expires_at = :expires REMOVE #gsiPk, #gsiSk',
      ConditionExpression: 'finished = :false',
      ExpressionAttributeNames: { '#gsiPk': dueReportsIndex.partitionKey, '#gsiSk': dueReportsIndex.sortKey },
      ExpressionAttributeValues: {
        ':true': true,
        ':false': false,
        ':outcome': outcome,
        ':status': status,
        ':expires': epochSeconds(this.#ctx.now()) + FINISHED_RETENTION_SECONDS,
      },
    });
  }

  #conditionalUpdate(watch: StatusWatch, update: ConditionalUpdate): Promise<boolean> {
    return updateIf(this.#ctx, { pk: keys.team(watch.team), sk: keys.watch(watch.id) }, update);
  }
}

function toWatch(item: WatchItem): StatusWatch {
  return {
    id: item.id,
    team: item.team_id,
    user: item.user_id,
    profile: item.profile,
    channel: item.channel_id,
    messageTs: item.message_ts,
    operationId: item.operation_id,
    viewOperationId: item.view_operation_id,
    viewInput: item.view_input,
    statusField: item.status_field,
    finalStatuses: item.final_statuses,
    failedStatuses: item.failed_statuses,
    lastStatus: item.last_status,
    startedAt: new Date(item.started_at),
    giveUpAt: new Date(item.give_up_at),
    checks: item.checks,
    finished: item.finished,
    outcome: item.outcome ?? null,
  };
}
