import { describe, expect, it } from 'vitest';
import { SLACK_LIMITS } from '../../../lib/slack-kit/limits.js';
import { truncate } from '../../../lib/truncate.js';

const x = (length: number) => 'x'.repeat(length);

describe('truncate', () => {
  it('leaves text within the limit as it is', () => {
    expect(truncate('volume data', 11)).toBe('volume data');
  });
  it('cuts longer text to the limit and ends it with an ellipsis', () => {
    const cut = truncate(x(3001), SLACK_LIMITS.sectionText);
    expect(cut).toHaveLength(3000);
    expect(cut.endsWith('…')).toBe(true);
  });
  it('does not end on a space before the ellipsis', () => {
    expect(truncate('delete the volume now', 12)).toBe('delete the…');
  });
  it('does not split an emoji in half', () => {
    const cut = truncate('ab😀cd', 4);
    expect(cut).toBe('ab…');
  });
  it('gives an empty string for a limit of zero', () => {
    expect(truncate('text', 0)).toBe('');
  });
});
