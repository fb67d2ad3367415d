import { ratio } from '../stats.js';
import { formatRatio } from '../table.js';

/**
 * What the floor variants say about the cold-start target (issue 16): one sentence each, from the
 * medians of the run, on what replacing the SDK claim or the zod config saves against the floor
 * and whether replacing both reaches the limit.
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
  readonly lightClaim: ColdTiming;
  readonly noZod: ColdTiming;
  readonly neither: ColdTiming;
  /** The target, as a ratio to the baseline's spawn → answer. */
  readonly limit: number;
}

const ms = (value: number) => `${value.toFixed(0)} ms`;
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function againstFloor(floor: ColdTiming, variant: ColdTiming): string {
  const saved = floor.spawnToAnswer - variant.spawnToAnswer;
  const change = saved >= 0 ? `${ms(saved)} less than the floor` : `${ms(-saved)} more than the floor`;
  return `${change} (import ${ms(variant.import)} against ${ms(floor.import)}, first answer ${variant.answer.toFixed(1)} ms against ${floor.answer.toFixed(1)} ms)`;
}

export function floorFindings(input: FloorFindingsInput): string[] {
  const { baseline, ours, floor, lightClaim, noZod, neither, limit } = input;
  const of = (timing: ColdTiming) => ratio(timing.spawnToAnswer, baseline.spawnToAnswer);
  const within = (timing: ColdTiming) => of(timing) <= limit;
  const allowed = limit * baseline.spawnToAnswer;
  const ownCode = ours.spawnToAnswer - floor.spawnToAnswer;
  const verdict = within(neither)
    ? `within ${formatRatio(limit)}, so replacing both is a way to the target: it would leave the bot's own code ${ms(allowed - neither.spawnToAnswer)} of the ${ms(allowed)} the target allows, against the ${ms(ownCode)} it adds to the floor now.`
    : `still past ${formatRatio(limit)}, so on this machine not even replacing both reaches the target; the claim would also have to leave the path to the first answer.`;
  const single = [
    within(lightClaim) ? 'the light claim alone' : undefined,
    within(noZod) ? 'the hand-checked config alone' : undefined,
  ].filter((found) => found !== undefined);
  return [
    `Measured, not made: the claim as one SigV4-signed request (\`aws4\` over \`node:http\`) instead of through the AWS SDK ("floor, light claim") takes ${ms(lightClaim.spawnToAnswer)}, ${formatRatio(of(lightClaim))}: ${againstFloor(floor, lightClaim)}.`,
    `The config checked by hand instead of with zod ("floor, no zod") takes ${ms(noZod.spawnToAnswer)}, ${formatRatio(of(noZod))}: ${againstFloor(floor, noZod)}; the bot's commands, operations table and payload parsing are written with zod too, so this saving reaches the bot only if none of them loads before the first answer.`,
    `With both ("floor, neither") it takes ${ms(neither.spawnToAnswer)}, ${formatRatio(of(neither))}: ${verdict}` +
      (single.length > 0
        ? ` ${capitalized(single.join(' and '))} already ${single.length > 1 ? 'bring' : 'brings'} the floor within ${formatRatio(limit)}.`
        : ''),
  ];
}
