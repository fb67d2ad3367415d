import type { WebClient } from '@slack/web-api';
import type { SettingsChange } from '../core/settings/diff.js';
import type { DirectoryKind, Resolved, SettingsDirectory } from '../core/settings/names.js';
import type { SettingsRequestWords, SettingsSurface } from '../core/settings/settings.js';
import type { DocumentProblem } from '../core/settings/yaml-text.js';
import { type Resolution, type SlackDirectory, slackDirectory } from '../slack-kit/directory.js';
import { escapeMrkdwn } from '../slack-kit/text.js';
import { slackPolicyChecks } from './bot-commands/approvals.js';

/**
 * The settings document as Slack serves it: names through the workspace's directory (its bot
 * token lists channels, people and user groups), the same checks a policy command makes, and
 * the words of a settings request's card and of a document's problems.
 */

export function slackSettingsSurface(
  client: WebClient,
): SettingsSurface & { readonly words: SettingsRequestWords } {
  return {
    directory: settingsDirectory(slackDirectory(client)),
    checks: slackPolicyChecks(client),
    words: { preview: changeLines },
  };
}

export function settingsDirectory(directory: SlackDirectory): SettingsDirectory {
  const byIds = {
    channel: (ids: readonly string[]) => directory.channelNames(ids),
    user: (ids: readonly string[]) => directory.userNames(ids),
    group: (ids: readonly string[]) => directory.groupHandles(ids),
  } satisfies Record<DirectoryKind, unknown>;
  const byNames = {
    channel: (names: readonly string[]) => directory.channelIds(names),
    user: (names: readonly string[]) => directory.userIds(names),
    group: (names: readonly string[]) => directory.groupIds(names),
  } satisfies Record<DirectoryKind, unknown>;
  return {
    names: async (kind, ids) => {
      const found = new Map<string, string>();
      for (const resolution of await byIds[kind](ids)) {
        // An archived channel or a deactivated person is still named by what it was called.
        if ('written' in resolution) found.set(resolution.input, resolution.written);
      }
      return found;
    },
    resolve: async (kind, written) => {
      const found = new Map<string, Resolved>();
      for (const resolution of await byNames[kind](written))
        found.set(resolution.input, resolvedOf(kind, resolution));
      return found;
    },
  };
}

const KIND_WORDS: Record<DirectoryKind, string> = { channel: 'channel', user: 'person', group: 'user group' };

function resolvedOf(kind: DirectoryKind, resolution: Resolution): Resolved {
  const what = `\`${resolution.input}\``;
  switch (resolution.kind) {
    case 'found':
      return { ok: true, id: resolution.id };
    case 'malformed':
      return {
        ok: false,
        problem: `${what} is not how a ${KIND_WORDS[kind]} is written (${MALFORMED[resolution.problem]}).`,
      };
    case 'unknown':
      return {
        ok: false,
        problem:
          kind === 'channel'
            ? `No channel ${what} that the bot can see: a private channel needs the bot invited first.`
            : `No ${KIND_WORDS[kind]} ${what} in this workspace.`,
      };
    case 'ambiguous':
      return {
        ok: false,
        problem: `${what} is the name of ${resolution.candidates.length} people: write their handle (${resolution.candidates
          .slice(0, 5)
          .map((candidate) => candidate.written)
          .join(', ')}).`,
      };
    case 'archived':
      return { ok: false, problem: `${what} is archived.` };
    case 'deleted':
      return { ok: false, problem: `${what} is deactivated.` };
    case 'disabled':
      return { ok: false, problem: `The user group ${what} is disabled.` };
    case 'no_user_groups':
      return { ok: false, problem: 'User groups need a paid Slack plan: name approvers as people instead.' };
    case 'unreadable':
      return {
        ok: false,
        problem:
          resolution.cause.kind === 'rate_limited'
            ? `Slack asked the bot to slow down while it looked up ${what}: try again in ${Math.ceil(resolution.cause.retryAfterSeconds)} s.`
            : `The ${KIND_WORDS[kind]}s of the workspace could not be read just now (${resolution.cause.kind.replace(/_/g, ' ')}): try again in a minute.`,
      };
  }
}

const MALFORMED: Record<Extract<Resolution, { kind: 'malformed' }>['problem'], string> = {
  empty: 'it is empty',
  too_long: 'it is too long',
  control_characters: 'it has control characters',
  other_kind: 'it names another kind of thing',
  not_a_mention: 'it is not a mention',
  not_an_id: 'an id is needed here',
};

/** At most this many changes on a card; the requester's own reply lists them all. */
const CARD_CHANGES = 15;

/** A request's changes as the card's preview lines: `+`, `−` or `~`, the setting, its values. */
export function changeLines(changes: readonly SettingsChange[]): string[] {
  const lines = changes.slice(0, CARD_CHANGES).map(changeLine);
  if (changes.length > CARD_CHANGES) lines.push(`…and ${changes.length - CARD_CHANGES} more changes.`);
  return lines;
}

export function changeLine(change: SettingsChange): string {
  const where = escapeMrkdwn(change.scope === 'workspace' ? 'workspace' : change.scope);
  const setting = `\`${escapeMrkdwn(change.setting).replace(/`/g, 'ˋ')}\``;
  const value = (text: string | undefined) => `\`${escapeMrkdwn(clip(text ?? '')).replace(/`/g, 'ˋ')}\``;
  switch (change.kind) {
    case 'added':
      return `➕ ${where} ${setting}: ${value(change.after)}`;
    case 'removed':
      return `➖ ${where} ${setting} (was ${value(change.before)})`;
    case 'changed':
      return `✏️ ${where} ${setting}: ${value(change.before)} → ${value(change.after)}`;
  }
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** A document's problems as a preformatted list, each with its line: what an editor needs. */
export function problemsText(problems: readonly DocumentProblem[]): string {
  const lines = problems.map(
    (problem) => `${problem.line > 0 ? `line ${problem.line}: ` : ''}${problem.message}`,
  );
  return `\`\`\`${escapeMrkdwn(lines.join('\n')).replace(/```/g, 'ˋˋˋ')}\`\`\``;
}
