import type { ReportKind } from '../store/report-subscriptions.js';

/**
 * Every report kind, one entry each: the Slack command, the schedule rules, the reporter's tick
 * and delivery read their kind's parts from here instead of switching on the kind's name. Adding
 * a kind is one entry here, its deliverer and renderer in `deliver.ts`/`render.ts` (a new deliverer name
 * also in `DelivererName`), and its value
 * in the store's list (`ReportKind`), which this table must cover.
 */

/** What the tick reads from the API for a kind before delivering, once per account. */
export type FeedRead = 'issues' | 'services' | 'stats';

/** The ways a report is posted: a digest of open issues, one alert per new issue, a chart. */
export type DelivererName = 'digest' | 'alerts' | 'stats';

export interface ReportKindSpec<K extends ReportKind = ReportKind> {
  /** The value stored in the subscription (and typed after `/cloud reports add`). */
  readonly kind: K;
  /** How the report is named in messages: "subscribed this channel to the *managed issues digest*". */
  readonly title: string;
  /** What it is, in the usage text of `/cloud reports add`. */
  readonly usage: string;
  /** Token scopes, any one of which lets the report read what it needs. */
  readonly scopes: readonly string[];
  /** Default schedule; a kind `--daily` makes no sense for says why. */
  readonly schedule: { readonly defaultRun: 'every-tick' | 'daily'; readonly whyNotDaily?: string };
  /** Reads fetched ahead of delivery (shared by every report of the account in one tick). */
  readonly prefetch: readonly FeedRead[];
  /** Service labels are read only when the run has new issues to name (alerts). */
  readonly servicesWhenNewIssues: boolean;
  /**
   * The first run only learns the issues already open; subscribing records them at once, and a
   * failed first run is not recorded (it would make the next one post every open issue).
   */
  readonly learnsOpenIssuesFirst: boolean;
  /**
   * Which deliverer posts it (and so which renderer draws it), by name: `deliver.ts` maps every
   * name to its function, so a name without one does not compile, and this file needs nothing
   * from the delivery code (which reads this table: importing it back would make a cycle).
   */
  readonly deliverer: DelivererName;
}

/** Every report reads `/managed/...`, which needs account read access (read-write includes it). */
const MANAGED_READ_SCOPES = ['account:read_only', 'account:read_write', '*'] as const;

export const REPORT_KINDS: { readonly [K in ReportKind]: ReportKindSpec<K> } = {
  issues: {
    kind: 'issues',
    title: 'managed issues digest',
    usage: 'digest of open issues',
    scopes: MANAGED_READ_SCOPES,
    schedule: { defaultRun: 'daily' },
    // A digest always names services: their labels are fetched alongside the issues, not after.
    prefetch: ['issues', 'services'],
    servicesWhenNewIssues: false,
    learnsOpenIssuesFirst: false,
    deliverer: 'digest',
  },
  alerts: {
    kind: 'alerts',
    title: 'new managed issue alerts',
    usage: 'each new issue once',
    scopes: MANAGED_READ_SCOPES,
    // Alerts are only useful when prompt: every tick. Digests and charts are a morning read.
    schedule: {
      defaultRun: 'every-tick',
      whyNotDaily:
        'Alerts post each new issue as soon as it is seen, so they run with `--every` (default `5m`), not `--daily`.',
    },
    prefetch: ['issues'],
    servicesWhenNewIssues: true,
    learnsOpenIssuesFirst: true,
    deliverer: 'alerts',
  },
  stats: {
    kind: 'stats',
    title: 'managed stats chart',
    usage: 'chart of the last 24 hours',
    scopes: MANAGED_READ_SCOPES,
    schedule: { defaultRun: 'daily' },
    prefetch: ['stats'],
    servicesWhenNewIssues: false,
    learnsOpenIssuesFirst: false,
    deliverer: 'stats',
  },
};

export const REPORT_KIND_SPECS: readonly ReportKindSpec[] = Object.values(REPORT_KINDS);

/** An own key only: `in` would accept `constructor` and `toString` from the object's prototype. */
export function isReportKind(value: string): value is ReportKind {
  return Object.hasOwn(REPORT_KINDS, value);
}

export function reportKindOf(kind: ReportKind): ReportKindSpec {
  return REPORT_KINDS[kind];
}
