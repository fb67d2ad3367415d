/**
 * The bounds of a subscription's noise settings (`ReportNoise` in `report-subscriptions.ts`), apart
 * from its zod schemas: the command table reads them, and the Slack function loads that table
 * before its first answer, without zod.
 */

/** Fewest and most new alerts of one tick that make a burst: 2 is "any group", past 50 never happens. */
export const BURST_AT_BOUNDS = { min: 2, max: 50 } as const;
/** Shortest and longest flapping window, in minutes: a minute, a day. */
export const FLAP_MINUTES_BOUNDS = { min: 1, max: 24 * 60 } as const;
