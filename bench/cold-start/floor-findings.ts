import { ratio } from '../stats.js';
import { formatRatio } from '../table.js';

/**
 * What the floor variant says about the bot's DynamoDB client (issue 16): one sentence, from the
 * medians of the run, on what the claim through the AWS SDK would cost the floor against the
 * bot's own table client.
 */

/** Medians of one contender, in ms. */
export interface ColdTiming {
  readonly spawnToAnswer: number;
  readonly import: number;
  readonly answer: number;
}

export interface FloorFindingsInput {
  readonly baseline: ColdTiming;
  /** The bot's `/cloud help`. */
  readonly ours: ColdTiming;
  readonly floor: ColdTiming;
  /** The floor with its claim through the AWS SDK's document client. */
  readonly sdkClaim: ColdTiming;
  /** The target, as a ratio to the baseline's spawn → answer. */
  readonly limit: number;
}

const ms = (value: number) => `${value.toFixed(0)} ms`;

export function floorFindings(input: FloorFindingsInput): string[] {
  const { baseline, ours, floor, sdkClaim, limit } = input;
  const of = (timing: ColdTiming) => ratio(timing.spawnToAnswer, baseline.spawnToAnswer);
  const extra = sdkClaim.spawnToAnswer - floor.spawnToAnswer;
  const change = extra >= 0 ? `${ms(extra)} more than the floor` : `${ms(-extra)} less than the floor`;
  const allowed = limit * baseline.spawnToAnswer;
  const room = allowed - floor.spawnToAnswer;
  return [
    `With the claim through the AWS SDK's document client instead of the bot's table client ("floor, SDK claim"), the floor takes ${ms(sdkClaim.spawnToAnswer)}, ${formatRatio(of(sdkClaim))}: ${change} (import ${ms(sdkClaim.import)} against ${ms(floor.import)}, first answer ${sdkClaim.answer.toFixed(1)} ms against ${floor.answer.toFixed(1)} ms).`,
    room > 0
      ? `Within ${formatRatio(limit)} (${ms(allowed)}), the floor leaves the bot's own code ${ms(room)}; it takes ${ms(ours.spawnToAnswer - floor.spawnToAnswer)} now.`
      : `The floor alone is past ${formatRatio(limit)} (${ms(allowed)}) on this machine in this run.`,
  ];
}
