import type { ApiClient, CallOptions } from '../api/client.js';
import type { OperationInput, OperationItem } from '../api/operation.js';
import type { AccountEvent } from '../api/operations/events.js';
import { getOperation, type OperationById, type OperationId } from '../api/operations/index.js';
import type { ManagedIssue, ManagedStats } from '../api/operations/managed.js';
import { parseApiDate } from '../slack-kit/text.js';
import type { KnownServices } from './render.js';

/**
 * A list operation a report can read whole: paginated, and asking for no parameter (every page of
 * `regions.list`, not of `nodes.disks-list`, which needs a node). The compiler refuses the others.
 */
export type WholeListId = {
  [Id in OperationId]: OperationById<Id>['paginated'] extends true
    ? Record<string, never> extends OperationInput<OperationById<Id>>
      ? Id
      : never
    : never;
}[OperationId];

/** What every page of the list `Id` holds. */
export type WholeList<Id extends WholeListId> = OperationItem<OperationById<Id>>[];

/**
 * What the reports of one account read from the API, fetched at most once per tick however many
 * channels subscribe: each read is started on first use and shared by every later caller. A kind
 * reads a list of its own with `list` (its entry in `kinds.ts` names it in its `prefetch`), so a
 * new kind adds nothing here.
 */
export class AccountFeed {
  readonly #client: ApiClient;
  readonly #options: CallOptions;
  /** The reads started this tick, by operation id (and `services`, which never fails). */
  readonly #reads = new Map<string, Promise<unknown>>();
  #events: { readonly from: string | undefined; readonly read: Promise<AccountEvent[]> } | undefined;

  constructor(client: ApiClient, options: CallOptions = {}) {
    this.#client = client;
    this.#options = options;
  }

  /** The read under `key`: started by the first caller, shared by every later one. */
  #once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let held = this.#reads.get(key) as Promise<T> | undefined;
    if (held === undefined) {
      held = read();
      this.#reads.set(key, held);
    }
    return held;
  }

  /** Every page of the list `id`, read once per tick for the account. */
  list<Id extends WholeListId>(id: Id): Promise<WholeList<Id>> {
    return this.#once(id, () =>
      this.#client
        .listAll(getOperation(id), {} as OperationInput<OperationById<Id>>, this.#options)
        .then((all) => all.data as WholeList<Id>),
    );
  }

  /** The open issues, every page. */
  issues(): Promise<ManagedIssue[]> {
    return this.list('managed.issues-list');
  }

  /**
   * The account's services, for naming the affected ones (label, address, status). Never fails:
   * without the list an issue still says `service 12`, which is better than no report.
   */
  services(): Promise<KnownServices> {
    return this.#once('services', () =>
      this.list('managed.services-list')
        .then(
          (all): KnownServices =>
            new Map(all.map(({ id, label, address, status }) => [id, { id, label, address, status }])),
        )
        .catch((): KnownServices => new Map()),
    );
  }

  /**
   * The account's events dated from `from` (the API's date-time form) on, every page; without
   * `from`, all of them (the API keeps 90 days). One read serves every events report of the
   * account: a later call is answered from an earlier read that reaches back as far, and callers
   * drop what is older than they asked for.
   */
  events(from?: string): Promise<AccountEvent[]> {
    const held = this.#events;
    if (held && (held.from === undefined || (from !== undefined && held.from <= from))) return held.read;
    const read = this.#client
      .listAll(
        getOperation('events.list'),
        {},
        from === undefined ? this.#options : { ...this.#options, filter: { created: { '+gte': from } } },
      )
      .then((all) => all.data);
    this.#events = { from, read };
    return read;
  }

  /** The events every one of `subs` needs at `now`, read once from the earliest (`eventsReadFrom`). */
  eventsFor(subs: Parameters<typeof eventsReadFrom>[0], now: Date): Promise<AccountEvent[]> {
    return this.events(eventsReadFrom(subs, now));
  }

  /** The events a first run at `now` reads (`eventsReadFrom`): the overlap before it. */
  recentEvents(now: Date): Promise<AccountEvent[]> {
    return this.eventsFor([{ lastRun: null }], now);
  }

  stats(): Promise<ManagedStats> {
    return this.#once('managed.stats', () =>
      this.#client.call(getOperation('managed.stats'), {}, this.#options),
    );
  }
}

/**
 * How far before the newest event a report has done the next read of the events reaches back: an
 * event the API dates earlier but lists later (a job that wrote its event when it began, listed
 * once it ends; two clocks) is still read and, not being among the ids remembered, posted.
 */
export const EVENT_OVERLAP_MS = 30 * 60_000;

/** The API's date-time form: UTC to the second, no zone letter (`2018-01-01T00:01:01`). */
export function apiDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/**
 * Where the events reports of one account read from: the earliest of their windows. A report's
 * first run posts nothing (what is there was there before it), so its window starts now: it reads
 * only the overlap, not the account's whole history. Everything when one of them ran before
 * without recording a time (a subscription from before windows, which knows only an id).
 */
export function eventsReadFrom(
  subs: readonly { readonly eventsSeenAt?: string; readonly lastRun: unknown }[],
  now: Date,
): string | undefined {
  let earliest: number | undefined;
  for (const sub of subs) {
    const seenAt =
      sub.lastRun === null
        ? now.getTime()
        : sub.eventsSeenAt === undefined
          ? undefined
          : parseApiDate(sub.eventsSeenAt)?.getTime();
    if (seenAt === undefined) return undefined;
    earliest = Math.min(earliest ?? seenAt, seenAt);
  }
  return earliest === undefined ? undefined : apiDateTime(earliest - EVENT_OVERLAP_MS);
}
