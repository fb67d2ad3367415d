import type { Logger } from '@aws-lambda-powertools/logger';
import { failureReason } from '../reports/failures.js';
import type { AlertSnooze, SnoozeTarget } from '../store/alert-snoozes.js';
import type { ReportSubscription, Store } from '../store/index.js';
import type { Caller } from './caller.js';

/**
 * Snoozing an alerts subscription's alerts for an issue or a service, from the alert itself: anyone
 * who may use the report's channel may, since anyone there sees the alert. A snooze for 1 h or 4 h
 * holds new alerts of its issue or service until it ends (an issue still open then is posted once);
 * one "until resolved" passes them over until the issue or the service is resolved. Each is audited.
 */

export type SnoozeLength = '1h' | '4h' | 'resolved';

const LENGTH_MS: Readonly<Record<Exclude<SnoozeLength, 'resolved'>, number>> = {
  '1h': 3_600_000,
  '4h': 4 * 3_600_000,
};

export interface SnoozeDeps {
  readonly store: Store;
  readonly logger: Logger;
}

export type SnoozeOutcome =
  /** The subscription is gone: its alerts are not posted any more anyway. */
  | { readonly kind: 'gone' }
  /** Asked from another channel than the report's, where its alerts are not seen. */
  | { readonly kind: 'elsewhere'; readonly subscription: ReportSubscription }
  /** The write failed, so it may or may not be recorded; asking again changes nothing if it was. */
  | { readonly kind: 'not_recorded'; readonly reason: string }
  | { readonly kind: 'snoozed'; readonly subscription: ReportSubscription; readonly snooze: AlertSnooze };

export async function snoozeAlerts(
  deps: SnoozeDeps,
  caller: Caller,
  request: { readonly subscriptionId: string; readonly target: SnoozeTarget; readonly length: SnoozeLength },
): Promise<SnoozeOutcome> {
  let snooze: AlertSnooze;
  let subscription: ReportSubscription | undefined;
  try {
    subscription = await deps.store.reports.get(caller.team, request.subscriptionId);
    if (subscription?.kind !== 'alerts') return { kind: 'gone' };
    if (subscription.channel !== caller.channel) return { kind: 'elsewhere', subscription };
    const now = deps.store.now();
    snooze = await deps.store.alertSnoozes.put({
      team: caller.team,
      subscription: subscription.id,
      target: request.target,
      until: request.length === 'resolved' ? null : new Date(now.getTime() + LENGTH_MS[request.length]),
      by: caller.user,
    });
  } catch (error) {
    return { kind: 'not_recorded', reason: failureReason(error) };
  }
  await audit(deps, caller, 'reports.snooze', subscription, request.target, untilWords(snooze.until));
  return { kind: 'snoozed', subscription, snooze };
}

/** What the audit says a snooze lasts: an ISO time, or until resolved. */
function untilWords(until: Date | null): string {
  return until === null ? 'until resolved' : `until ${until.toISOString()}`;
}

async function audit(
  deps: SnoozeDeps,
  caller: Caller,
  action: 'reports.snooze' | 'reports.unsnooze',
  subscription: ReportSubscription,
  target: SnoozeTarget,
  detail: string,
): Promise<void> {
  try {
    await deps.store.audit.append({
      team: caller.team,
      actor: caller.user,
      action,
      target: `report=${subscription.id} ${target.kind}=${target.id}`,
      result: 'succeeded',
      detail,
    });
  } catch (error) {
    // The snooze stands; the audit line is what is missing, and the log says so.
    deps.logger.warn('snooze not audited', {
      action,
      subscription: subscription.id,
      reason: failureReason(error),
    });
  }
}

/** The snoozes in force for the alerts subscriptions of the caller's channel. */
export async function listSnoozes(
  deps: SnoozeDeps,
  caller: Caller,
): Promise<readonly { readonly subscription: ReportSubscription; readonly snooze: AlertSnooze }[]> {
  const subs = (await deps.store.reports.list(caller.team, { channel: caller.channel })).filter(
    (sub) => sub.kind === 'alerts',
  );
  const now = deps.store.now();
  const lists = await Promise.all(
    subs.map(async (subscription) =>
      (await deps.store.alertSnoozes.active(caller.team, subscription.id, now)).map((snooze) => ({
        subscription,
        snooze,
      })),
    ),
  );
  return lists.flat();
}

/** Ends the snoozes of an issue or service in the caller's channel's alerts subscriptions; how many. */
export async function unsnooze(deps: SnoozeDeps, caller: Caller, target: SnoozeTarget): Promise<number> {
  const subs = (await deps.store.reports.list(caller.team, { channel: caller.channel })).filter(
    (sub) => sub.kind === 'alerts',
  );
  let removed = 0;
  for (const sub of subs) {
    if (await deps.store.alertSnoozes.remove(caller.team, sub.id, target)) {
      removed += 1;
      await audit(deps, caller, 'reports.unsnooze', sub, target, 'ended by hand');
    }
  }
  return removed;
}
