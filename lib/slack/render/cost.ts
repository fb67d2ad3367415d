import type { BilledChange, Price, PriceChange, TypeFacts } from '../../changes/cost.js';
import { typeSizeWords } from '../../slack-kit/field-words.js';
import { codeSpan, escapeMrkdwn, formatNumber } from '../../slack-kit/text.js';

/**
 * A change that bills, on the approval card and in the answer of a change that ran at once: what
 * changes, from → to (`*Change:* node type `g6-nanode-1` (1 CPU, 1 GB RAM, 25 GB disk) →
 * `g6-standard-2` (…)`), and beside it its price (`*Cost:* $5.48/month → $26.28/month
 * (+$20.80/month, +$0.0285/hour)`), or that the price is unknown and why. Never a number the API
 * did not give.
 */

export const COST_LABEL = '*Cost:*';
export const CHANGE_LABEL = '*Change:*';

/** The change's line (when the request names one), then its price's. */
export function priceLines(change: PriceChange): string[] {
  return change.change ? [changeLine(change.change), costLine(change)] : [costLine(change)];
}

export function changeLine(change: BilledChange): string {
  switch (change.kind) {
    case 'node_type': {
      const to = change.to ? typeWords(change.to) : 'its successor type (not readable)';
      return change.from
        ? `${CHANGE_LABEL} node type ${typeWords(change.from)} → ${to}`
        : `${CHANGE_LABEL} new node of type ${to}`;
    }
    case 'database_type': {
      const nodes = change.clusterSize === 1 ? '1 node' : `${formatNumber(change.clusterSize)} nodes`;
      return `${CHANGE_LABEL} new database cluster of ${nodes} of type ${typeWords(change.to)}`;
    }
    case 'volume_size': {
      const to = change.toGb === undefined ? 'the size the API picks' : gb(change.toGb);
      return change.fromGb === undefined
        ? `${CHANGE_LABEL} volume of ${to}`
        : `${CHANGE_LABEL} volume size ${gb(change.fromGb)} → ${to}`;
    }
  }
}

/** `` `g6-standard-2` (2 CPU, 4 GB RAM, 80 GB disk) ``, or the id alone where the type was not read. */
function typeWords(type: TypeFacts): string {
  const size = typeSizeWords(type);
  return size ? `${codeSpan(type.id)} (${escapeMrkdwn(size)})` : codeSpan(type.id);
}

function gb(size: number): string {
  return `${formatNumber(size)} GB`;
}

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
