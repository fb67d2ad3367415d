import { createHash } from 'node:crypto';
import type { Node } from '../api/operations/nodes.js';
import type { Region } from '../api/operations/regions.js';
import { mrkdwnFallback, type RenderedMessage, sectionBlock, truncateMrkdwn } from '../slack-kit/blocks.js';
import { statusWords } from '../slack-kit/enum-words.js';
import { codeSpan, countOf, escapeMrkdwn } from '../slack-kit/text.js';
import type { ReportSubscription } from '../store/report-subscriptions.js';
import type { AccountFeed } from './account-feed.js';
import { type DeliveryContext, type DeliveryResult, type PostMarker, postEachOnce } from './deliver.js';
import { inQuietHours, quietHoursJustEnded, quietHoursText } from './quiet-hours.js';

/**
 * The region status report: a message when a region the account's nodes are in (or one its
 * `--region` list names) changes status, `ok` to `outage` and back (the regions list's `status`,
 * API-FACTS-MORE.md §7; public, so only the node list needs a scope). It remembers each region's
 * status as the subscription's keys (`us-east=outage`), and when it learned them: the first run,
 * or a region it has not seen before, only learns; a region that stays down is posted once, its
 * recovery once.
 */

/**
 * What the report reads, once per tick for every report of the account (`AccountFeed.list`; the
 * kind's entry starts the same two reads ahead of delivery).
 */
export function readRegions(feed: AccountFeed): [Promise<Region[]>, Promise<Node[]>] {
  return [feed.list('regions.list'), feed.list('nodes.list')];
}

/**
 * What `reports add regions` reads before subscribing: the node list proves the token may read
 * the account's nodes (the regions list is public), and the statuses now are what the
 * subscription starts from, learned without posting.
 */
export async function probeRegions(feed: AccountFeed): Promise<{ seen: number[]; seenKeys: string[] }> {
  const [regions] = await Promise.all(readRegions(feed));
  return { seen: [], seenKeys: regionKeys(regions) };
}

// ---------------------------------------------------------------------------------------------
// What is remembered

/**
 * Regions remembered at most, and the longest key kept (`ReportSubscription.seenKeys`'s bounds: 500
 * keys, one of them when they were learned).
 */
const MAX_REGIONS = 499;
const MAX_KEY_LENGTH = 200;

/** The key that says when the statuses were learned (no `=`, so never read as a region's). */
const LEARNED_AT = '@learned ';

/** Each region's status as the keys a run remembers (`us-east=ok`), learned at `now`. */
export function regionKeys(regions: readonly Region[], now?: Date): string[] {
  const statuses = regions
    .map((region) => `${region.id}=${region.status}`)
    .filter((key) => key.length <= MAX_KEY_LENGTH)
    .slice(0, MAX_REGIONS);
  return now === undefined ? statuses : [...statuses, `${LEARNED_AT}${now.toISOString()}`];
}

/** The statuses a subscription remembers, by region id (a Map: a region id is never a prototype key). */
function rememberedStatuses(keys: ReadonlySet<string> | undefined): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const key of keys ?? []) {
    const at = key.lastIndexOf('=');
    if (at > 0) statuses.set(key.slice(0, at), key.slice(at + 1));
  }
  return statuses;
}

// ---------------------------------------------------------------------------------------------
// What changed

export interface RegionChange {
  readonly region: Region;
  readonly was: string;
  /** The labels of the account's nodes in the region. */
  readonly nodes: readonly string[];
}

/**
 * The regions the subscription watches whose status differs from the one remembered: those its
 * `--region` list names, else those the account's nodes are in. A region with nothing remembered
 * (the first run, a region new to the list) is learned, not posted.
 */
export function regionChanges(
  sub: Pick<ReportSubscription, 'filter' | 'seenKeys'>,
  regions: readonly Region[],
  nodes: readonly Node[],
): RegionChange[] {
  const named = sub.filter.region ?? [];
  const watched = new Set(named.length > 0 ? named : nodes.map((node) => node.region));
  const remembered = rememberedStatuses(sub.seenKeys);
  return regions.flatMap((region) => {
    const was = remembered.get(region.id);
    if (!watched.has(region.id) || was === undefined || was === region.status) return [];
    const there = nodes.filter((node) => node.region === region.id).map((node) => node.label);
    return [{ region, was, nodes: there }];
  });
}

// ---------------------------------------------------------------------------------------------
// Message

/** Lines in one message: well under Slack's 50 blocks (SLACK-FACTS, Block Kit limits). */
const CHANGES_IN_MESSAGE = 20;
const CHANGE_LINE_MAX = 1000;
const NODES_NAMED = 5;

/** `ok` is good news, `outage` bad; a status the documents do not name is neither. */
function statusEmoji(status: string): string {
  if (status === 'ok') return ':large_green_circle:';
  if (status === 'outage') return ':red_circle:';
  return ':large_yellow_circle:';
}

function regionName(region: Region): string {
  return `*${escapeMrkdwn(region.id)}* (${escapeMrkdwn(region.label)})`;
}

function nodesWords(nodes: readonly string[]): string {
  if (nodes.length === 0) return 'none of your nodes there';
  const named = nodes.slice(0, NODES_NAMED).map(codeSpan).join(', ');
  const more = nodes.length > NODES_NAMED ? ` and ${nodes.length - NODES_NAMED} more` : '';
  return `your ${nodes.length === 1 ? 'node' : 'nodes'} there: ${named}${more}`;
}

/** `:red_circle: *us-east* (Newark, NJ) has an outage, was OK · your node there: `web-1``. */
export function regionChangeLine(change: RegionChange): string {
  const { region, was } = change;
  const now = statusWords(region.status);
  const what =
    region.status === 'ok'
      ? `is *${now}* again`
      : region.status === 'outage'
        ? 'has an *outage*'
        : `is now *${escapeMrkdwn(now)}*`;
  return truncateMrkdwn(
    `${statusEmoji(region.status)} Region ${regionName(region)} ${what}, was ${escapeMrkdwn(statusWords(was))} · ${nodesWords(change.nodes)}`,
    CHANGE_LINE_MAX,
  );
}

/** The run's changes as one message, with plain words for the notification. */
export function renderRegionChanges(changes: readonly RegionChange[], held?: string): RenderedMessage {
  const shown = changes.slice(0, CHANGES_IN_MESSAGE);
  const plain = changes
    .slice(0, 3)
    .map(({ region, was }) => `${region.id} ${statusWords(region.status)} (was ${statusWords(was)})`)
    .join('; ');
  const head = `${countOf(changes.length, 'region status change')}${held === undefined ? '' : ` ${held}`}`;
  const more = changes.length - shown.length;
  return {
    text: mrkdwnFallback(escapeMrkdwn(`${head}: ${plain}${changes.length > 3 ? '; …' : ''}`)),
    blocks: [
      ...(changes.length > 1 || held !== undefined ? [sectionBlock(`*${escapeMrkdwn(head)}*`)] : []),
      ...shown.map((change) => sectionBlock(regionChangeLine(change))),
      ...(more > 0 ? [sectionBlock(`… and ${more} more`)] : []),
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Delivery

/** How the report's messages are found in the channel, for the in-doubt check. */
const REGION_CHANGE_MARKER: PostMarker = { eventType: 'region_status_change', idField: 'change' };

/**
 * The number a run's changes are claimed and marked by: the same for every run that finds the same
 * changes from the same statuses learned at the same time (a run cut off, or failed, remembers
 * nothing new), a new one once statuses are learned again, so a region going down a second time is
 * a change of its own. 48 bits of a SHA-256, a whole number JSON and DynamoDB keep exactly.
 */
function changeSetId(seenKeys: ReadonlySet<string> | undefined, changes: readonly RegionChange[]): number {
  const learnedAt = [...(seenKeys ?? [])].find((key) => key.startsWith(LEARNED_AT)) ?? '';
  const what = changes.map(({ region, was }) => `${region.id}=${was}>${region.status}`).join('\n');
  return createHash('sha256').update(`${learnedAt}\n${what}`).digest().readUIntBE(0, 6);
}

/**
 * Posts the watched regions' status changes since the statuses were last learned as one message,
 * and learns every listed region's status once it is in the channel. During quiet hours nothing is
 * posted and nothing is learned, so the changes wait for the first run after. The message goes out
 * under a claim (`postEachOnce`, as alerts do): a post Slack certainly did not take is posted by the
 * next run; one whose answer was lost, or a run cut off while posting, leaves the claim in doubt,
 * and the run that takes it over after its lease finds the message in the channel or posts it then.
 * Until then the old statuses are kept, so no change is lost and none is posted twice.
 */
export async function deliverRegions(ctx: DeliveryContext, sub: ReportSubscription): Promise<DeliveryResult> {
  const [regions, nodes] = await Promise.all(readRegions(ctx.feed));
  const learned = { seenIssueIds: [], seenKeys: regionKeys(regions, ctx.now) };
  if (sub.lastRun === null) return { messages: 0, files: 0, alerted: [], ...learned };
  const unchanged = { seenIssueIds: [], seenKeys: [...(sub.seenKeys ?? [])] };
  const { quietHours } = sub.noise;
  if (quietHours !== null && inQuietHours(quietHours, ctx.now)) {
    return { messages: 0, files: 0, alerted: [], ...unchanged };
  }
  const changes = regionChanges(sub, regions, nodes);
  if (changes.length === 0) return { messages: 0, files: 0, alerted: [], ...learned };
  const held = quietHoursJustEnded(quietHours, sub.lastRun.at, ctx.now)
    ? `while this channel was quiet (${quietHoursText(quietHours)})`
    : undefined;
  const id = changeSetId(sub.seenKeys, changes);
  const { done, alerted, ...run } = await postEachOnce(ctx, sub, REGION_CHANGE_MARKER, [
    { id, message: () => renderRegionChanges(changes, held) },
  ]);
  if (!done.includes(id)) return { ...run, alerted: [], ...unchanged };
  // `alerted` counts what a run posted; a region has no number, so each change is its position.
  return { ...run, alerted: (alerted?.length ?? 0) > 0 ? changes.map((_, index) => index) : [], ...learned };
}
