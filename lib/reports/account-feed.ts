import type { ApiClient, CallOptions } from '../api/client.js';
import type { AccountEvent } from '../api/operations/events.js';
import { getOperation } from '../api/operations/index.js';
import type { ManagedIssue, ManagedStats } from '../api/operations/managed.js';
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
  #events: Promise<AccountEvent[]> | undefined;

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
   * The account's events, every page (the API keeps 90 days). Read whole rather than after each
   * subscription's newest: one read serves every events report of the account.
   */
  events(): Promise<AccountEvent[]> {
    this.#events ??= this.#client
      .listAll(getOperation('events.list'), {}, this.#options)
      .then((all) => all.data);
    return this.#events;
  }

  stats(): Promise<ManagedStats> {
    this.#stats ??= this.#client.call(getOperation('managed.stats'), {}, this.#options);
    return this.#stats;
  }
}
