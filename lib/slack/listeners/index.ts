import type { App } from '@slack/bolt';
import type { BotDeps } from '../context.js';
import { registerActions } from './actions.js';
import { registerCommands } from './commands.js';
import { registerEvents } from './events.js';
import { registerViews } from './views.js';

/** Every listener of the app, one module per kind of request Slack sends (as in bolt-js's layout). */
export function registerListeners(app: App, deps: BotDeps): void {
  registerCommands(app, deps);
  registerActions(app, deps);
  registerViews(app, deps);
  registerEvents(app, deps);
}
