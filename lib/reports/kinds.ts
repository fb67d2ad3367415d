import type { ReportKind } from '../store/report-kind-names.js';
import type { ReportSubscription } from '../store/report-subscriptions.js';
// A type only: the feed and the operations table it reads load with the delivery, not with help.
import type { AccountFeed } from './account-feed.js';
import type { Deliverer } from './deliver.js';
import type { ScheduleRule } from './schedule.js';

/**
 * Every report kind, one entry each: the Slack command (its usage, flags and checks), the schedule
 * rules, the reporter's tick and delivery read their kind's parts from here instead of switching
 * on the kind's name. Adding a kind is its name in `lib/store/report-kind-names.ts` (which the store validates
 * against, and which this table must cover), one entry here, and its module (like
 * `events-report.ts`), whose deliverer the entry loads. A kind that reads something new from the
 * API names it in its entry (`prefetch`, `probe`: `feed.list('regions.list')`) and its deliverer
 * reads it the same way; the account's feed reads it once per tick for all of them.
 */

/** What `reports add` learned before subscribing (see `ReportKindSpec.probe`). */
export interface ProbeResult {
  /** The ids a first run would take as done, without posting them. */
  readonly seen: readonly number[];
  /** Events: the time the subscription's window of events starts at. */
  readonly eventsSeenAt?: Date;
  /** What a kind that follows things by name learns first (`ReportSubscription.seenKeys`). */
  readonly seenKeys?: readonly string[];
}

/**
 * A filter flag of `/cloud reports add KIND`: comma-separated words stored under the flag's name
 * in the subscription's filter (`ReportFilter`), which the kind's deliverer reads.
 */
export interface ReportFilterFlag {
  /** As typed, without the dashes: `action` for `--action`. */
  readonly name: string;
  /** Help's placeholder, e.g. `ACTION,...`. */
  readonly placeholder: string;
  readonly summary: string;
}

export interface ReportKindSpec<K extends ReportKind = ReportKind> {
  /** The value stored in the subscription (and typed after `/cloud reports add`). */
  readonly kind: K;
  /** How the report is named in messages: "subscribed this channel to the *managed issues digest*". */
  readonly title: string;
  /** What it is, in the usage text of `/cloud reports add`. */
  readonly usage: string;
  /** Token scopes, any one of which lets the report read what it needs; the first is the one to ask for. */
  readonly scopes: readonly [string, ...string[]];
  /** What it reads, in "reads *managed monitoring*, which needs …". */
  readonly reads: string;
  /** Why the API may refuse a token that has the scope, told when it does (empty when nothing more is known). */
  readonly refusedWhy: string;
  /**
   * The read `reports add` makes before subscribing: it proves the token may read the report and
   * answers the ids a first run learns without posting (see `learnsOpenIssuesFirst`).
   */
  readonly probe: (feed: AccountFeed, now: Date) => Promise<ProbeResult>;
  /** What the subscription's reply says about what is not posted (kinds that learn first only). */
  readonly learnedNote?: (primed: readonly number[] | undefined) => string;
  /** Filter flags this kind takes (`--action`, `--entity`); other kinds refuse them. */
  readonly filterFlags?: readonly ReportFilterFlag[];
  /** Default schedule; a kind `--daily` makes no sense for says why. */
  readonly schedule: ScheduleRule;
  /**
   * The reads started ahead of delivery for the account's reports of this kind (`subs`), which
   * the feed shares with every report of the account in the tick: what the deliverer will read.
   * A token the API rejects in one of them pauses the account's reports before any is posted.
   */
  readonly prefetch: (
    feed: AccountFeed,
    subs: readonly ReportSubscription[],
    now: Date,
  ) => readonly Promise<unknown>[];
  /** Service labels are read only when the run has new issues to name (alerts). */
  readonly servicesWhenNewIssues: boolean;
  /**
   * The first run only learns what is already there (open issues, past events); subscribing
   * records it at once, and a failed first run is not recorded (it would make the next one post
   * everything as new).
   */
  readonly learnsOpenIssuesFirst: boolean;
  /** How a run that posts each new item once is told (`/cloud reports run`): what it posts. */
  readonly eachNew?: {
    /** "new issue": counted as "Posted 3 new issues." */
    readonly noun: string;
    /** What there was none of: "No new managed issues to post". */
    readonly none: string;
    /** What a first run did instead of posting: "noted the issues open now". */
    readonly learned: string;
  };
  /**
   * Loads the function that posts it (and so the renderer that draws it): a digest of open issues,
   * one alert per new issue, a chart, one message per new account event. Loaded on first delivery,
   * so that nothing that only reads this table (the command parser, the schedule rules) loads the
   * delivery code. The delivery modules do not import this table: that would make a cycle.
   */
  readonly deliverer: () => Promise<Deliverer>;
}

/** Every report reads `/managed/...`, which needs account read access (read-write includes it). */
const MANAGED_READ_SCOPES = ['account:read_only', 'account:read_write', '*'] as const;
const MANAGED_READ = {
  scopes: MANAGED_READ_SCOPES,
  reads: 'managed monitoring',
  refusedWhy: 'restricted users cannot read managed issues or stats, so it needs an unrestricted user',
  probe: async (feed: AccountFeed): Promise<ProbeResult> => ({
    seen: (await feed.issues()).map((issue) => issue.id),
  }),
} as const;

const isOrAre = (count: number) => (count === 1 ? 'is' : 'are');

export const REPORT_KINDS: { readonly [K in ReportKind]: ReportKindSpec<K> } = {
  issues: {
    kind: 'issues',
    title: 'managed issues digest',
    usage: 'digest of open issues',
    ...MANAGED_READ,
    schedule: { defaultRun: 'daily' },
    // A digest always names services: their labels are fetched alongside the issues, not after.
    prefetch: (feed) => [feed.issues(), feed.services()],
    servicesWhenNewIssues: false,
    learnsOpenIssuesFirst: false,
    deliverer: async () => (await import('./deliver.js')).deliverDigest,
  },
  alerts: {
    kind: 'alerts',
    title: 'new managed issue alerts',
    usage: 'each new issue once',
    ...MANAGED_READ,
    // Alerts are only useful when prompt: every tick. Digests and charts are a morning read.
    schedule: {
      defaultRun: 'every-tick',
      whyNotDaily:
        'Alerts post each new issue as soon as it is seen, so they run with `--every` (default `5m`), not `--daily`.',
    },
    prefetch: (feed) => [feed.issues()],
    servicesWhenNewIssues: true,
    learnsOpenIssuesFirst: true,
    eachNew: {
      noun: 'new issue',
      none: 'No new managed issues to post',
      learned: 'noted the issues open now',
    },
    learnedNote: (primed) =>
      primed === undefined
        ? 'Issues already open when the first check runs are not posted; each issue that appears after that is posted here once.'
        : `The ${primed.length === 1 ? 'issue' : `${primed.length} issues`} open now ${isOrAre(primed.length)} not posted; each new issue is posted here once, as soon as a check sees it.`,
    deliverer: async () => (await import('./deliver.js')).deliverAlerts,
  },
  stats: {
    kind: 'stats',
    title: 'managed stats chart',
    usage: 'chart of the last 24 hours',
    ...MANAGED_READ,
    schedule: { defaultRun: 'daily' },
    prefetch: (feed) => [feed.stats()],
    servicesWhenNewIssues: false,
    learnsOpenIssuesFirst: false,
    deliverer: async () => (await import('./deliver.js')).deliverStats,
  },
  events: {
    kind: 'events',
    title: 'account events',
    usage: 'each new account event once, made through the bot or not',
    scopes: ['events:read_only', 'events:read_write', '*'],
    reads: 'account events',
    refusedWhy: '',
    // The events of the overlap before now, as done, and the window starting now: every event
    // the API dates later is new. Only the recent ones are read, not the account's history.
    probe: async (feed, now) => ({
      seen: (await feed.recentEvents(now)).map((event) => event.id),
      eventsSeenAt: now,
    }),
    learnedNote: (primed) =>
      primed === undefined
        ? 'Events that happened before the first check runs are not posted; each one after that is posted here once.'
        : 'Events that happened before now are not posted; each new one is posted here once, as soon as a check sees it.',
    filterFlags: [
      {
        name: 'action',
        placeholder: 'ACTION,...',
        summary: 'Events only of these actions, e.g. `node_reboot,volume_delete` (default: every action)',
      },
      {
        name: 'entity',
        placeholder: 'TYPE,...',
        summary: 'Events only on these kinds of entity, e.g. `node,volume` (default: every kind)',
      },
    ],
    // Like alerts, worth reading only when prompt.
    schedule: {
      defaultRun: 'every-tick',
      whyNotDaily:
        'Events are posted as soon as they are seen, so they run with `--every` (default `5m`), not `--daily`.',
    },
    // One read from the earliest window of the account's events reports serves them all.
    prefetch: (feed, subs, now) => [feed.eventsFor(subs, now)],
    servicesWhenNewIssues: false,
    learnsOpenIssuesFirst: true,
    eachNew: {
      noun: 'new event',
      none: 'No new account events to post',
      learned: 'noted the newest account event',
    },
    deliverer: async () => (await import('./events-report.js')).deliverEvents,
  },
  regions: {
    kind: 'regions',
    title: 'region status report',
    usage: 'each change of status of the regions your nodes are in, `ok` to `outage` and back',
    // The regions list is public; which regions matter is read from the account's nodes.
    scopes: ['nodes:read_only', 'nodes:read_write', '*'],
    reads: 'your nodes, to know which regions they are in,',
    refusedWhy: '',
    probe: async (feed) => (await import('./regions-report.js')).probeRegions(feed),
    learnedNote: (primed) =>
      primed === undefined
        ? "The regions' statuses when the first check runs are not posted; each change after that is posted here once."
        : "The regions' statuses now are not posted; each change of one is posted here once, as soon as a check sees it, and its return to `ok` once.",
    filterFlags: [
      {
        name: 'region',
        placeholder: 'ID,...',
        summary:
          'Regions to watch, e.g. `us-east,eu-west`, whether your nodes are there or not (default: the regions of your nodes)',
      },
    ],
    // An outage is worth reading only when prompt.
    schedule: {
      defaultRun: 'every-tick',
      whyNotDaily:
        'Region status changes are posted as soon as they are seen, so they run with `--every` (default `5m`), not `--daily`.',
    },
    // The two lists `regions-report.ts` reads (`readRegions`).
    prefetch: (feed) => [feed.list('regions.list'), feed.list('nodes.list')],
    servicesWhenNewIssues: false,
    learnsOpenIssuesFirst: true,
    eachNew: {
      noun: 'region status change',
      none: 'No region status changes to post',
      learned: "noted the regions' statuses now",
    },
    deliverer: async () => (await import('./regions-report.js')).deliverRegions,
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
