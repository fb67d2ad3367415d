/**
 * The name of every report kind, as stored in a subscription and typed after `/cloud reports add`.
 * What each kind is and does is its entry in `kinds.ts`, which must have one for every name here.
 * The names sit apart from that table because the store validates subscriptions against them, and
 * the table leads (through its deliverers) to modules that read the store: importing the table
 * from the store would make a cycle. This module imports nothing.
 */
export const REPORT_KIND_NAMES = ['issues', 'alerts', 'stats', 'events', 'regions'] as const;
export type ReportKind = (typeof REPORT_KIND_NAMES)[number];
