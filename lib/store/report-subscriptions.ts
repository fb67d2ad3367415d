import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import {
  type ConditionalUpdate,
  getParsed,
  isConditionFailure,
  listPrefixed,
  parseItem,
  putNew,
  updateIf,
  updateReturning,
} from './items.js';
import { keys } from './keys.js';
import { REPORT_KIND_NAMES, type ReportKind } from './report-kind-names.js';
import { BURST_AT_BOUNDS, FLAP_MINUTES_BOUNDS } from './report-noise-bounds.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import { TABLE_DEFINITION } from './table-definition.js';
import { recordTeamMember } from './team-data.js';
import '../zod-settings.js';

/**
 * Channel report subscriptions. A subscription that is not paused sits in the sparse due-reports
 * index (`gsi1`) under its next run time, so the reporter reads only what is due; pausing takes it
 * out of the index, resuming puts it back.
 */

export type { ReportKind } from './report-kind-names.js';

/**
 * A subscription's filter, by the name of the flag that set it (`action`, `entity`), each a list of
 * words any one of which an item must match; a name that is absent does not filter. Kept as plain
 * word lists so that a kind's filter needs nothing of the store (`lib/reports/kinds.ts` says which
 * flags a kind takes and what they mean).
 */
export type ReportFilter = Readonly<Record<string, readonly string[]>>;

const ReportFilterSchema = z.record(z.string().min(1).max(40), z.array(z.string().min(1).max(100)).max(50));

export const ReportScheduleSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('every'),
    minutes: z
      .number()
      .int()
      .min(5)
      .max(7 * 24 * 60),
  }),
  z.object({
    type: z.literal('daily'),
    /** Local time `HH:MM` in `tz`. */
    time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/),
    /** IANA zone, e.g. `Europe/Berlin`. */
    tz: z.string().min(1),
  }),
]);
export type ReportSchedule = z.infer<typeof ReportScheduleSchema>;

/** Whether the runtime's time-zone database knows `name` (an IANA zone such as `Europe/Berlin`). */
function isKnownZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A local time of day, 24-hour `HH:MM`. */
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

export { BURST_AT_BOUNDS, FLAP_MINUTES_BOUNDS } from './report-noise-bounds.js';

/** How a subscription keeps its channel from being shouted at (issue 39's "alerts that do not shout"). */
export interface ReportNoise {
  /** Held, then posted as one summary when they end; null: never quiet. */
  readonly quietHours: { readonly from: string; readonly to: string; readonly tz: string } | null;
  /** New alerts in one tick at or above which they post as one message with a thread. */
  readonly burstAt: number;
  /** An issue closed and reopened within this many minutes is flapping, not new. */
  readonly flapMinutes: number;
}

export const QuietHoursSchema = z
  .strictObject({
    from: z.string().regex(TIME_OF_DAY, 'is not a 24-hour HH:MM time'),
    to: z.string().regex(TIME_OF_DAY, 'is not a 24-hour HH:MM time'),
    tz: z.string().min(1).max(64).refine(isKnownZone, 'is not an IANA time zone'),
  })
  .refine((q) => q.from !== q.to, { message: 'quiet hours that start when they end would never end' });

export const ReportNoiseSchema = z.strictObject({
  quietHours: QuietHoursSchema.nullable().default(null),
  burstAt: z.number().int().min(BURST_AT_BOUNDS.min).max(BURST_AT_BOUNDS.max).default(3),
  flapMinutes: z.number().int().min(FLAP_MINUTES_BOUNDS.min).max(FLAP_MINUTES_BOUNDS.max).default(60),
});

/** What a subscription without settings of its own (every one from before them) does. */
export const DEFAULT_REPORT_NOISE: ReportNoise = ReportNoiseSchema.parse({});

/** The stored map: each key optional, so an item keeps only what was set and reads the rest as defaults. */
const NoiseItemSchema = z.object({
  quiet_hours: QuietHoursSchema.optional(),
  burst_at: z.number().int().optional(),
  flap_minutes: z.number().int().optional(),
});
type NoiseItem = z.infer<typeof NoiseItemSchema>;

function noiseOfItem(item: NoiseItem | undefined): ReportNoise {
  // Written only through `itemOfNoise`; an item changed by hand reads as the defaults, not as a failure.
  const read = ReportNoiseSchema.safeParse({
    quietHours: item?.quiet_hours ?? null,
    ...(item?.burst_at === undefined ? {} : { burstAt: item.burst_at }),
    ...(item?.flap_minutes === undefined ? {} : { flapMinutes: item.flap_minutes }),
  });
  return read.success ? read.data : DEFAULT_REPORT_NOISE;
}

function itemOfNoise(noise: ReportNoise): NoiseItem {
  const checked = ReportNoiseSchema.parse(noise);
  return {
    ...(checked.quietHours === null ? {} : { quiet_hours: checked.quietHours }),
    burst_at: checked.burstAt,
    flap_minutes: checked.flapMinutes,
  };
}

export interface ReportSubscription {
  readonly id: string;
  readonly team: string;
  readonly kind: ReportKind;
  readonly channel: string;
  /** Whose linked token the report runs with. */
  readonly owner: string;
  readonly profile: string;
  readonly schedule: ReportSchedule;
  readonly nextRunAt: Date;
  readonly paused: boolean;
  readonly pauseReason: string | null;
  /**
   * Ids already seen: for alerts, the managed-monitoring issues posted (each new issue once); for
   * events, the events done (posted or passed over) dated within the overlap window before
   * `eventsSeenAt` (older subscriptions: only the newest event id, after which every event is new).
   */
  readonly seenIssueIds: ReadonlySet<number>;
  /**
   * Events: the `created` time (the API's form) of the newest event done, from which (less the
   * overlap margin) the next run reads; absent before a run has recorded one.
   */
  readonly eventsSeenAt?: string;
  /**
   * What a kind that follows things by name, not by number, remembers between runs, in words of
   * its own (regions: `us-east=outage`, the status each region had when last read); absent for
   * the other kinds and before a run has recorded any.
   */
  readonly seenKeys?: ReadonlySet<string>;
  /** What the report posts of what it reads; empty when it takes everything. */
  readonly filter: ReportFilter;
  /** Quiet hours, bursts and flapping (`ReportNoise`); the defaults for a subscription that never set them. */
  readonly noise: ReportNoise;
  readonly lastRun: { readonly at: Date; readonly status: 'ok' | 'failed' } | null;
  readonly createdAt: Date;
}

export interface NewReportSubscription {
  readonly team: string;
  readonly kind: ReportKind;
  readonly channel: string;
  readonly owner: string;
  readonly profile: string;
  readonly schedule: ReportSchedule;
  readonly nextRunAt: Date;
  readonly filter?: ReportFilter;
}

export interface RunRecord {
  readonly lastRunAt: Date;
  readonly lastRunStatus: 'ok' | 'failed';
  /** Replaces the seen issue ids, e.g. with the issues still open, so the set does not grow forever. */
  readonly seenIssueIds?: Iterable<number>;
  /** Events: the newest done event's `created` (see `ReportSubscription.eventsSeenAt`). */
  readonly eventsSeenAt?: string;
  /** Replaces what the kind remembers by name (see `ReportSubscription.seenKeys`). */
  readonly seenKeys?: Iterable<string>;
}

/** Bounds on what a kind remembers by name: a few hundred short words, far under an item's 400 KB. */
export const MAX_SEEN_KEYS = 500;
export const MAX_SEEN_KEY_LENGTH = 200;

const ReportItemSchema = z.object({
  kind: z.literal('report_subscription'),
  id: z.string(),
  team_id: z.string(),
  report_kind: z.enum(REPORT_KIND_NAMES),
  channel_id: z.string(),
  owner_user: z.string(),
  profile: z.string(),
  schedule: ReportScheduleSchema,
  report_filter: ReportFilterSchema.optional(),
  noise: NoiseItemSchema.optional(),
  next_run_at: z.iso.datetime(),
  paused: z.boolean(),
  pause_reason: z.string().optional(),
  seen_issue_ids: z.set(z.number()).optional(),
  events_seen_at: z.string().max(40).optional(),
  seen_keys: z.set(z.string().min(1).max(MAX_SEEN_KEY_LENGTH)).max(MAX_SEEN_KEYS).optional(),
  last_run_at: z.iso.datetime().optional(),
  last_run_status: z.enum(['ok', 'failed']).optional(),
  created_at: z.iso.datetime(),
});
type ReportItem = z.infer<typeof ReportItemSchema>;

const { dueReportsIndex } = TABLE_DEFINITION;

export class ReportSubscriptionRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /**
   * The store's clock. Schedules computed for a subscription (its first run, a resume) read the
   * same time as its records do, which lets tests and the local stack move time for both at once.
   */
  now(): Date {
    return this.#ctx.now();
  }

  async create(input: NewReportSubscription): Promise<ReportSubscription> {
    const id = randomUUID();
    const item = {
      pk: keys.team(input.team),
      sk: keys.report(id),
      kind: 'report_subscription',
      id,
      team_id: input.team,
      report_kind: input.kind,
      channel_id: input.channel,
      owner_user: input.owner,
      profile: input.profile,
      schedule: ReportScheduleSchema.parse(input.schedule),
      ...(input.filter !== undefined && Object.keys(input.filter).length > 0
        ? { report_filter: ReportFilterSchema.parse(input.filter) }
        : {}),
      next_run_at: input.nextRunAt.toISOString(),
      paused: false,
      created_at: this.#ctx.now().toISOString(),
      [dueReportsIndex.partitionKey]: keys.dueReports,
      [dueReportsIndex.sortKey]: keys.dueReportSort(input.nextRunAt, id),
    } satisfies ReportItem & Record<string, unknown>;
    // Checked as it will be read back: a bad item stored once would be skipped by every listing.
    parseItem(ReportItemSchema, item, 'report subscription');
    await putNew(this.#ctx, item);
    return toSubscription(item);
  }

  async get(team: string, id: string): Promise<ReportSubscription | undefined> {
    const item = await getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.report(id) },
      ReportItemSchema,
      'report subscription',
    );
    return item && toSubscription(item);
  }

  /** A team's subscriptions, optionally only a channel's, or only those running with one user's profile. */
  async list(
    team: string,
    filter: { channel?: string; owner?: string; profile?: string } = {},
  ): Promise<ReportSubscription[]> {
    const items = await listPrefixed(
      this.#ctx,
      { pk: keys.team(team), prefix: keys.reportPrefix },
      ReportItemSchema,
      'report subscription',
    );
    return items
      .map(toSubscription)
      .filter(
        (sub) =>
          (filter.channel === undefined || sub.channel === filter.channel) &&
          (filter.owner === undefined || sub.owner === filter.owner) &&
          (filter.profile === undefined || sub.profile === filter.profile),
      );
  }

  async delete(team: string, id: string): Promise<boolean> {
    const result = await this.#ctx.table.delete({
      TableName: this.#ctx.tableName,
      Key: { pk: keys.team(team), sk: keys.report(id) },
      ReturnValues: 'ALL_OLD',
    });
    return result.Attributes !== undefined;
  }

  /**
   * Subscriptions (of all teams) whose next run is at or before `now`, earliest first, paused ones
   * never. The index is eventually consistent, so one just advanced may still show up: `advance`
   * is the claim that settles who runs it.
   */
  async dueSubscriptions(now: Date, limit: number): Promise<ReportSubscription[]> {
    const due: ReportSubscription[] = [];
    if (limit < 1) return due;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.#ctx.table.query({
        TableName: this.#ctx.tableName,
        IndexName: dueReportsIndex.name,
        KeyConditionExpression: '#pk = :due AND #sk <= :upTo',
        ExpressionAttributeNames: { '#pk': dueReportsIndex.partitionKey, '#sk': dueReportsIndex.sortKey },
        // Sort keys are `<ISO time>#<id>`: every key of a run time up to `now` sorts below this.
        ExpressionAttributeValues: { ':due': keys.dueReports, ':upTo': `${now.toISOString()}#\uffff` },
        Limit: limit - due.length,
        ExclusiveStartKey: startKey,
      });
      for (const raw of page.Items ?? []) {
        const sub = toSubscription(parseItem(ReportItemSchema, raw, 'report subscription'));
        if (!sub.paused && sub.nextRunAt.getTime() <= now.getTime()) due.push(sub);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey && due.length < limit);
    return due;
  }

  /**
   * Moves a subscription to its next run, only if nobody moved it since `sub` was read: call it
   * before running the report, and run only when it returns true.
   */
  async advance(sub: ReportSubscription, nextRunAt: Date, run?: RunRecord): Promise<boolean> {
    const seen = run?.seenIssueIds === undefined ? undefined : new Set(run.seenIssueIds);
    const seenKeys = run?.seenKeys === undefined ? undefined : seenKeysOf(run.seenKeys);
    const set = ['next_run_at = :next', '#gsiSk = :gsiSk'];
    const values: Record<string, unknown> = {
      ':next': nextRunAt.toISOString(),
      ':gsiSk': keys.dueReportSort(nextRunAt, sub.id),
      ':previous': sub.nextRunAt.toISOString(),
      ':false': false,
    };
    if (run) {
      set.push('last_run_at = :lastRunAt', 'last_run_status = :lastRunStatus');
      values[':lastRunAt'] = run.lastRunAt.toISOString();
      values[':lastRunStatus'] = run.lastRunStatus;
    }
    if (run?.eventsSeenAt !== undefined) {
      set.push('events_seen_at = :eventsSeenAt');
      values[':eventsSeenAt'] = run.eventsSeenAt;
    }
    // DynamoDB stores no empty sets: an empty replacement removes the attribute.
    const remove: string[] = [];
    if (seen && seen.size > 0) {
      set.push('seen_issue_ids = :seen');
      values[':seen'] = seen;
    } else if (seen) remove.push('seen_issue_ids');
    if (seenKeys && seenKeys.size > 0) {
      set.push('seen_keys = :seenKeys');
      values[':seenKeys'] = seenKeys;
    } else if (seenKeys) remove.push('seen_keys');
    return this.#conditionalUpdate(sub.team, sub.id, {
      UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
      ConditionExpression: 'next_run_at = :previous AND paused = :false',
      ExpressionAttributeNames: { '#gsiSk': dueReportsIndex.sortKey },
      ExpressionAttributeValues: values,
    });
  }

  async addSeenIssues(team: string, id: string, issueIds: Iterable<number>): Promise<boolean> {
    const ids = new Set(issueIds);
    if (ids.size === 0) return true;
    return this.#conditionalUpdate(team, id, {
      UpdateExpression: 'ADD seen_issue_ids :ids',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':ids': ids },
    });
  }

  /**
   * Sets a subscription's schedule and filter (the settings document), its next run at
   * `nextRunAt`: in the due index when it runs, out of it when it is paused. False when it is gone.
   */
  async reschedule(
    team: string,
    id: string,
    change: {
      readonly schedule: ReportSchedule;
      readonly filter: ReportFilter;
      readonly paused: boolean;
      readonly nextRunAt: Date;
    },
  ): Promise<boolean> {
    const filter = ReportFilterSchema.parse(change.filter);
    const set = ['schedule = :schedule', 'next_run_at = :next', 'paused = :paused'];
    const remove: string[] = [];
    if (Object.keys(filter).length > 0) set.push('report_filter = :filter');
    else remove.push('report_filter');
    if (change.paused) {
      set.push('pause_reason = if_not_exists(pause_reason, :reason)');
      remove.push('#gsiPk', '#gsiSk');
    } else {
      set.push('#gsiPk = :due', '#gsiSk = :gsiSk');
      remove.push('pause_reason');
    }
    return this.#conditionalUpdate(team, id, {
      UpdateExpression: `SET ${set.join(', ')} REMOVE ${remove.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#gsiPk': dueReportsIndex.partitionKey, '#gsiSk': dueReportsIndex.sortKey },
      ExpressionAttributeValues: {
        ':schedule': ReportScheduleSchema.parse(change.schedule),
        ':next': change.nextRunAt.toISOString(),
        ':paused': change.paused,
        ...(Object.keys(filter).length > 0 ? { ':filter': filter } : {}),
        ...(change.paused
          ? { ':reason': 'paused by the settings document' }
          : { ':due': keys.dueReports, ':gsiSk': keys.dueReportSort(change.nextRunAt, id) }),
      },
    });
  }

  /**
   * Replaces the subscription's noise settings (checked by `ReportNoiseSchema` first); undefined
   * when the subscription is gone, so a removal racing the change is never answered "changed".
   */
  async setNoise(team: string, id: string, noise: ReportNoise): Promise<ReportSubscription | undefined> {
    const update = await updateReturning(
      this.#ctx,
      { pk: keys.team(team), sk: keys.report(id) },
      {
        UpdateExpression: 'SET noise = :noise',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':noise': itemOfNoise(noise) },
      },
    );
    return update.ok
      ? toSubscription(parseItem(ReportItemSchema, update.item, 'report subscription'))
      : undefined;
  }

  /** Stops a subscription (e.g. its owner's token was revoked) until `resume`. */
  async pause(team: string, id: string, reason: string): Promise<boolean> {
    return this.#conditionalUpdate(team, id, {
      UpdateExpression: 'SET paused = :true, pause_reason = :reason REMOVE #gsiPk, #gsiSk',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#gsiPk': dueReportsIndex.partitionKey, '#gsiSk': dueReportsIndex.sortKey },
      ExpressionAttributeValues: { ':true': true, ':reason': reason },
    });
  }

  /**
   * Pauses a subscription that is running; false when it is paused already (or gone), so of
   * several runs that find the same problem only one tells anybody.
   */
  async pauseRunning(team: string, id: string, reason: string): Promise<boolean> {
    return this.#conditionalUpdate(team, id, {
      UpdateExpression: 'SET paused = :true, pause_reason = :reason REMOVE #gsiPk, #gsiSk',
      ConditionExpression: 'attribute_exists(pk) AND paused = :false',
      ExpressionAttributeNames: { '#gsiPk': dueReportsIndex.partitionKey, '#gsiSk': dueReportsIndex.sortKey },
      ExpressionAttributeValues: { ':true': true, ':false': false, ':reason': reason },
    });
  }

  async resume(team: string, id: string, nextRunAt: Date): Promise<boolean> {
    return this.#conditionalUpdate(team, id, {
      UpdateExpression:
        'SET paused = :false, next_run_at = :next, #gsiPk = :due, #gsiSk = :gsiSk REMOVE pause_reason',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#gsiPk': dueReportsIndex.partitionKey, '#gsiSk': dueReportsIndex.sortKey },
      ExpressionAttributeValues: {
        ':false': false,
        ':next': nextRunAt.toISOString(),
        ':due': keys.dueReports,
        ':gsiSk': keys.dueReportSort(nextRunAt, id),
      },
    });
  }

  /** Pauses the subscriptions that run with one user's profile (its token is gone); returns how many. */
  async pauseOwnedBy(team: string, owner: string, profile: string, reason: string): Promise<number> {
    const owned = await this.list(team, { owner, profile });
    const paused = await Promise.all(
      owned.filter((sub) => !sub.paused).map((sub) => this.pause(team, sub.id, reason)),
    );
    return paused.filter(Boolean).length;
  }

  /**
   * Claims the one expiry reminder of a token: true the first time for this owner, profile and
   * expiry, false ever after. A relinked token has a new expiry and so gets its own reminder.
   * Every reporter run in the reminder's week asks; once the reminder is claimed, the answer is
   * read, not written, so those runs write nothing.
   */
  async claimExpiryReminder(team: string, owner: string, profile: string, expiry: Date): Promise<boolean> {
    const key = { pk: keys.user(team, owner), sk: keys.expiryReminder(profile, expiry) };
    const claimed = await this.#ctx.table.get({
      TableName: this.#ctx.tableName,
      Key: key,
      ConsistentRead: true,
    });
    if (claimed.Item !== undefined) return false;
    // The reminder lives in the owner's partition, which a workspace's removal finds by member:
    // the member item goes first, so no reminder is ever left where the removal cannot find it.
    await recordTeamMember(this.#ctx, team, owner);
    try {
      await this.#ctx.table.put({
        TableName: this.#ctx.tableName,
        Item: {
          ...key,
          kind: 'expiry_reminder',
          reminded_at: this.#ctx.now().toISOString(),
          // Of no use once the token has expired; a day later TTL may take it.
          expires_at: epochSeconds(expiry) + 24 * 3600,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Gives back a claimed reminder that Slack certainly did not deliver (it refused the message), so
   * a later run sends it. Only the run that claimed it calls this: no other run holds that claim.
   */
  async releaseExpiryReminder(team: string, owner: string, profile: string, expiry: Date): Promise<void> {
    await this.#ctx.table.delete({
      TableName: this.#ctx.tableName,
      Key: { pk: keys.user(team, owner), sk: keys.expiryReminder(profile, expiry) },
    });
  }

  #conditionalUpdate(team: string, id: string, update: ConditionalUpdate): Promise<boolean> {
    return updateIf(this.#ctx, { pk: keys.team(team), sk: keys.report(id) }, update);
  }
}

/**
 * What a kind remembers by name, checked as it will be read back: a key out of bounds is refused
 * here, before the write, rather than making the stored subscription unreadable.
 */
function seenKeysOf(keys: Iterable<string>): Set<string> {
  const checked = new Set(keys);
  if (checked.size > MAX_SEEN_KEYS) throw new Error(`A report remembers at most ${MAX_SEEN_KEYS} keys`);
  for (const key of checked) {
    if (key.length === 0 || key.length > MAX_SEEN_KEY_LENGTH) {
      throw new Error(`A report's remembered key must be 1 to ${MAX_SEEN_KEY_LENGTH} characters`);
    }
  }
  return checked;
}

function toSubscription(item: ReportItem): ReportSubscription {
  return {
    id: item.id,
    team: item.team_id,
    kind: item.report_kind,
    channel: item.channel_id,
    owner: item.owner_user,
    profile: item.profile,
    schedule: item.schedule,
    filter: item.report_filter ?? {},
    noise: noiseOfItem(item.noise),
    nextRunAt: new Date(item.next_run_at),
    paused: item.paused,
    pauseReason: item.pause_reason ?? null,
    seenIssueIds: item.seen_issue_ids ?? new Set(),
    ...(item.events_seen_at === undefined ? {} : { eventsSeenAt: item.events_seen_at }),
    ...(item.seen_keys === undefined ? {} : { seenKeys: item.seen_keys }),
    lastRun:
      item.last_run_at && item.last_run_status
        ? { at: new Date(item.last_run_at), status: item.last_run_status }
        : null,
    createdAt: new Date(item.created_at),
  };
}
