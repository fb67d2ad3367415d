import type { ApiClient, CallOptions } from '../api/client.js';
import type { AccountEvent } from '../api/operations/events.js';
import { getOperation } from '../api/operations/index.js';
import type { ManagedIssue, ManagedStats } from '../api/operations/managed.js';
import { parseApiDate } from '../slack-kit/text.js';
import type { KnownServices } from './render.js';

/**
 * What the reports of one account read from the API, fetched at most once per tick however many
 * channels subscribe: each read is started on first use and shared by every later caller.
 */
export class AccountFeed {
  readonly #client: ApiClient;
  readonly #options: CallOptions;
  #issues: Promise<ManagedIssue[]> | undefined;
  #services: Promise<KnownServices> | undefined;
  #stats: Promise<ManagedStats> | undefined;
  #events: { readonly from: string | undefined; readonly read: Promise<AccountEvent[]> } | undefined;

  constructor(client: ApiClient, options: CallOptions = {}) {
    this.#client = client;
    this.#options = options;
  }

  /** The open issues, every page. */
  issues(): Promise<ManagedIssue[]> {
    this.#issues ??= this.#client
      .listAll(getOperation('managed.issues-list'), {}, this.#options)
      .then((all) => all.data);
    return this.#issues;
  }

  /**
   * The account's services, for naming the affected ones (label, address, status). Never fails:
   * without the list an issue still says `service 12`, which is better than no report.
   */
  services(): Promise<KnownServices> {
    this.#services ??= this.#client
      .listAll(getOperation('managed.services-list'), {}, this.#options)
      .then(
        (all) =>
          new Map(all.data.map(({ id, label, address, status }) => [id, { id, label, address, status }])),
      )
      .catch(() => new Map());
    return this.#services;
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

  /** The events a first run at `now` reads (`eventsReadFrom`): the overlap before it. */
  recentEvents(now: Date): Promise<AccountEvent[]> {
    return this.events(eventsReadFrom([{ lastRun: null }], now));
  }

  stats(): Promise<ManagedStats> {
    this.#stats ??= this.#client.call(getOperation('managed.stats'), {}, this.#options);
    return this.#stats;
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
