/** What the minimal Bolt app answers to `/cloud`; the benchmark checks each answer against it. */
export const BASELINE_ANSWER = 'Hello from the minimal Bolt app.';
