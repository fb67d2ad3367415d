import { describe, expect, it } from 'vitest';
import {
  type ColdTiming,
  type FloorFindingsInput,
  floorFindings,
} from '../../../bench/cold-start/floor-findings.js';

/**
 * The cold-start explanation in bench/RESULTS.md says what the AWS SDK's client would cost the
 * floor and how much of the target the floor leaves the bot; it must follow the measurements,
 * not a fixed text.
 */

const at = (spawnToAnswer: number, importMs = spawnToAnswer - 30, answer = 10): ColdTiming => ({
  spawnToAnswer,
  import: importMs,
  answer,
});

const measured = (overrides: Partial<FloorFindingsInput> = {}): FloorFindingsInput => ({
  baseline: at(100),
  ours: at(125),
  floor: at(110, 90, 9),
  sdkClaim: at(145, 115, 21),
  limit: 1.2,
  ...overrides,
});

describe('floorFindings', () => {
  it('says what the claim through the SDK costs against the floor, import and first answer', () => {
    const [sdk] = floorFindings(measured());
    expect(sdk).toContain('"floor, SDK claim"), the floor takes 145 ms, 1.45×: 35 ms more than the floor');
    expect(sdk).toContain('import 115 ms against 90 ms, first answer 21.0 ms against 9.0 ms');
  });

  it('reports an SDK claim faster than the floor as such, not as a cost', () => {
    const [sdk] = floorFindings(measured({ sdkClaim: at(100) }));
    expect(sdk).toContain('10 ms less than the floor');
  });

  it("says how much of the target the floor leaves the bot's own code, and what it takes", () => {
    // 1.2 × 100 ms allowed, 110 ms used by the floor: 10 ms left; the bot adds 15 ms to the floor.
    const [, room] = floorFindings(measured());
    expect(room).toContain("the floor leaves the bot's own code 10 ms; it takes 15 ms now");
  });

  it('says when the floor alone is past the target', () => {
    const [, room] = floorFindings(measured({ floor: at(130) }));
    expect(room).toContain('The floor alone is past 1.20× (120 ms)');
  });
});
