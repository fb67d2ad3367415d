import { readFileSync } from 'node:fs';

/**
 * The app's settings on api.slack.com that change what the Web API answers, and the workspace's
 * plan. The seeded app takes them from `infra/slack-app-manifest.yml`, so a setting missing there
 * fails in the stand-in as it would in Slack; tests may change them while the stand-in runs.
 */

export type SlackPlan = 'free' | 'standard';

export interface AppSettings {
  /**
   * App Home's Messages tab (`features.app_home.messages_tab_enabled`): without it a post to a
   * user id answers `messages_tab_disabled` (rule `messages-tab`).
   */
  messagesTab: boolean;
  /**
   * App Home's Home tab (`features.app_home.home_tab_enabled`): without it `views.publish` of a
   * `home` view answers `not_enabled` (rule `home-tab`).
   */
  homeTab: boolean;
  /** User groups exist on Standard and above; on free `usergroups.users.list` answers `plan_upgrade_required`. */
  plan: SlackPlan;
}

const MANIFEST_URL = new URL('../../slack-app-manifest.yml', import.meta.url);

/** A `key: true` line anywhere in the manifest (the keys read here occur once). */
function manifestFlag(manifest: string, key: string): boolean {
  const match = new RegExp(`^\\s+${key}:\\s*(true|false)\\s*(#.*)?$`, 'm').exec(manifest);
  return match?.[1] === 'true';
}

/** The settings the app manifest gives the seeded app; the plan is Standard unless a test says otherwise. */
export function appSettingsFromManifest(manifest: string): AppSettings {
  return {
    messagesTab: manifestFlag(manifest, 'messages_tab_enabled'),
    homeTab: manifestFlag(manifest, 'home_tab_enabled'),
    plan: 'standard',
  };
}

export function defaultAppSettings(): AppSettings {
  return appSettingsFromManifest(readFileSync(MANIFEST_URL, 'utf8'));
}
