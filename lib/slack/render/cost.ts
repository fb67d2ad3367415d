import type { Price, PriceChange } from '../../changes/cost.js';
import { escapeMrkdwn } from '../../slack-kit/text.js';

/**
 * A change's price on the approval card: `*Cost:* $5.48/month → $26.28/month (+$20.80/month,
 * +$0.0285/hour)`, or that the price is unknown and why. Never a number the API did not give.
 */

export const COST_LABEL = '*Cost:*';

export function costLine(change: PriceChange): string {
  if (change.kind === 'unknown') return `${COST_LABEL} price unknown: ${escapeMrkdwn(change.why)}.`;
  const where = change.regionPrice ? ` at ${escapeMrkdwn(change.regionPrice)} prices` : '';
  if (!change.before) {
    return `${COST_LABEL} new, ${dollars(change.after.monthly)}/month (${dollars(change.after.hourly)}/hour)${where}`;
  }
  return (
    `${COST_LABEL} ${dollars(change.before.monthly)}/month → ${dollars(change.after.monthly)}/month ` +
    `(${deltaWords(change.delta)})${where}`
  );
}

function deltaWords(delta: Price): string {
  if (delta.monthly === 0 && delta.hourly === 0) return 'no change';
  return `${signed(delta.monthly)}/month, ${signed(delta.hourly)}/hour`;
}

function signed(amount: number): string {
  if (amount === 0) return dollars(0);
  return `${amount > 0 ? '+' : '−'}${dollars(Math.abs(amount))}`;
}

/**
 * US dollars from the API's numbers: cents always, further decimals only where the price has them
 * (an hourly $0.0075), written from whole millionths so no float artefact shows.
 */
export function dollars(amount: number): string {
  const micros = Math.round(Math.abs(amount) * 1_000_000);
  const whole = Math.floor(micros / 1_000_000);
  const fraction = String(micros % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  const grouped = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${amount < 0 ? '−' : ''}$${grouped}.${fraction}`;
}
