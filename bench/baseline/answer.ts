/** What the minimal Bolt app answers to `/cloud`; the benchmark checks each answer against it. */
export const BASELINE_ANSWER = 'Hello from the minimal Bolt app.';

/** What the floor app (`floor-bolt.ts`) answers to `/cloud` after its delivery claim. */
export const FLOOR_ANSWER = 'Hello from the floor app, after its delivery claim.';
