import type { Logger } from '@aws-lambda-powertools/logger';
import type { Handoff } from '../worker/handoff.js';
import type { HomeRefreshJob, RequestHomesJob } from '../worker/jobs.js';

/**
 * A person's profiles or reports changed by a command (login, logout, use, reports add, remove,
 * pause, resume, run, a Home button): their Home is published again, so it shows the change
 * without being opened again.
 *
 * The Slack function's HTTP answer leaves only when its listener returns (Bolt's Lambda receiver
 * awaits the listener), so publishing inline would hold the answer up by three reads and a
 * `views.publish`. The publishing is handed to the worker instead (`home-refresh` job): the answer
 * waits for Lambda to accept the event only, and for at most `HOME_REFRESH_HANDOFF_WAIT_MS`. A
 * hand-off that fails is logged and dropped: the command's answer stands, and the Home catches up
 * at the next change or open.
 *
 * Published for the people concerned whether or not they ever opened Home: Slack accepts a Home
 * for anyone in the workspace, and knowing who opened it would take a stored write on every
 * open and a read on every change, to save one Tier 4 call per change of a person's own profiles
 * or reports (rare: a few a day at most). A Home published before its first open shows current
 * the moment it is opened, instead of after a round trip.
 */

/** People one change re-publishes at most: the job's schema takes no more. */
const MAX_PEOPLE = 10;

/**
 * How long a command's answer waits for Lambda to take the job at most. An operation's hand-off
 * may retry for seconds because its answer depends on it; this one is a courtesy, so a slow
 * Lambda API costs the Home its refresh, never the command its 3 seconds.
 */
export const HOME_REFRESH_HANDOFF_WAIT_MS = 400;

export interface HomeRefreshDeps {
  readonly handoff: Handoff;
  readonly logger: Logger;
}

/** Never throws and never waits for Slack: see above. */
export async function republishHome(
  deps: HomeRefreshDeps,
  team: string,
  users: readonly (string | undefined)[],
  correlationId: string,
): Promise<void> {
  const people = [...new Set(users.filter((user): user is string => !!user))].slice(0, MAX_PEOPLE);
  if (people.length === 0 || !team) return;
  await handOff(deps, { kind: 'home-refresh', correlationId, team, users: people });
}

/**
 * The Homes of one request's people, after a vote, a denial, a new request or its end: who they
 * are is read by the worker, so a click's answer waits only for the hand-off, as above.
 */
export async function republishRequestHomes(
  deps: HomeRefreshDeps,
  team: string,
  approvalId: string,
  correlationId: string,
): Promise<void> {
  await handOff(deps, { kind: 'request-homes', correlationId, team, approvalId });
}

async function handOff(deps: HomeRefreshDeps, job: HomeRefreshJob | RequestHomesJob): Promise<void> {
  const { team, correlationId } = job;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'waited'>((resolve) => {
    timer = setTimeout(() => resolve('waited'), HOME_REFRESH_HANDOFF_WAIT_MS);
    timer.unref?.();
  });
  try {
    const handedOff = deps.handoff.dispatch(job);
    // A dispatch still in flight when the wait ends is left to finish or fail on its own.
    handedOff.catch(() => undefined);
    if ((await Promise.race([handedOff, waited])) === 'waited') {
      deps.logger.warn('home refresh not handed off in time', { team, correlationId });
    }
  } catch (error) {
    deps.logger.warn('home refresh not handed off', {
      team,
      correlationId,
      error: error instanceof Error ? error.name : typeof error,
    });
  } finally {
    clearTimeout(timer);
  }
}
