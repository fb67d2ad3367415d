import type { WebClient } from '@slack/web-api';
import { runStatusWatches, type StatusWatchDeps, type StatusWatchSurface } from '../changes/status-watch.js';
import type { ChannelPacer } from '../reports/pacer.js';
import type { ReporterSurface } from '../reports/tick.js';
import { type HomeDeps, refreshHomes } from './home.js';
import { slackStatusWatchesFollowingRunbooks } from './runbook-runs.js';
import { slackStatusWatches } from './status-watch.js';

/**
 * The reporter's tick in Slack besides its reports: the status watches of long changes, shown with
 * the tick's pacer (each letting the runbook step that waits on it go on, where runbooks run), and
 * people's Homes published again.
 */
export function slackReporterSurface(
  deps: StatusWatchDeps & HomeDeps & { readonly slack: WebClient },
  options: { readonly followRunbooks: boolean },
): ReporterSurface {
  const watchSurface: (pacer: ChannelPacer) => StatusWatchSurface = options.followRunbooks
    ? slackStatusWatchesFollowingRunbooks(deps)
    : slackStatusWatches(deps);
  return {
    statusWatches: (pacer, now) => runStatusWatches(deps, watchSurface(pacer), now),
    refreshHomes: (team, users) => refreshHomes(deps, deps.slack, team, users),
  };
}
