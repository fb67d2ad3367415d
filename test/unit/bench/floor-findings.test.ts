import { describe, expect, it } from 'vitest';
import {
  type ColdTiming,
  type FloorFindingsInput,
  floorFindings,
} from '../../../bench/cold-start/floor-findings.js';

/**
 * The cold-start explanation in bench/RESULTS.md says what each floor variant saves and whether
 * replacing zod and the SDK reaches the target; it must follow the measurements, not a fixed text.
 */

const at = (spawnToAnswer: number, importMs = spawnToAnswer - 30, answer = 10): ColdTiming => ({
  spawnToAnswer,
  import: importMs,
  answer,
});

const measured = (overrides: Partial<FloorFindingsInput> = {}): FloorFindingsInput => ({
  baseline: at(100),
  ours: at(200),
  floor: at(160, 120, 22),
  lightClaim: at(135, 100, 9),
  noZod: at(150, 110, 22),
  neither: at(115, 90, 9),
  limit: 1.2,
  ...overrides,
});

describe('floorFindings', () => {
  it('gives one sentence per variant with what it saves against the floor', () => {
    const [light, noZod, neither] = floorFindings(measured());
    expect(light).toContain('"floor, light claim") takes 135 ms, 1.35×: 25 ms less than the floor');
    expect(light).toContain('first answer 9.0 ms against 22.0 ms');
    expect(noZod).toContain('"floor, no zod") takes 150 ms, 1.50×: 10 ms less than the floor');
    expect(neither).toContain('"floor, neither") it takes 115 ms, 1.15×');
  });

  it('says replacing both reaches the target when it does, and what that leaves the bot', () => {
    const [, , neither] = floorFindings(measured());
    expect(neither).toContain('within 1.20×, so replacing both is a way to the target');
    // 1.2 × 100 ms allowed, 115 ms used by the floor: 5 ms left; the bot adds 40 ms to the floor today.
    expect(neither).toContain(
      "leave the bot's own code 5 ms of the 120 ms the target allows, against the 40 ms",
    );
    expect(neither).not.toContain('alone');
  });

  it('says replacing both does not reach the target when it does not', () => {
    const [, , neither] = floorFindings(measured({ neither: at(130) }));
    expect(neither).toContain('still past 1.20×');
    expect(neither).not.toContain('is a way to the target');
  });

  it('reports a variant slower than the floor as a cost, not a saving', () => {
    const [, noZod] = floorFindings(measured({ noZod: at(170) }));
    expect(noZod).toContain('10 ms more than the floor');
  });

  it('names a single replacement that already brings the floor within the limit', () => {
    const [, , neither] = floorFindings(measured({ lightClaim: at(118) }));
    expect(neither).toContain('The light claim alone already brings the floor within 1.20×.');
  });
});
