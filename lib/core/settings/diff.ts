import type { SettingsDocument } from './document.js';

/**
 * What applying a document would change, setting by setting, in the names people wrote: each
 * setting is a leaf of the document (a list of words is one setting; a runbook's steps are one),
 * and a change adds, removes or changes one. Reports are matched by id, channels by how the
 * documents name them (both are written through the same directory).
 */

export interface SettingsChange {
  readonly kind: 'added' | 'removed' | 'changed';
  /** `workspace`, or the channel as written (`#ops`). */
  readonly scope: string;
  /** The setting within its scope: `approvals.required`, `aliases.rmvol`, `reports.1a2b3c4d.schedule`. */
  readonly setting: string;
  readonly before?: string;
  readonly after?: string;
}

export function diffSettings(before: SettingsDocument, after: SettingsDocument): SettingsChange[] {
  const was = leaves(before);
  const will = leaves(after);
  const changes: SettingsChange[] = [];
  for (const [key, value] of was) {
    const next = will.get(key);
    const [scope, setting] = splitKey(key);
    if (next === undefined) changes.push({ kind: 'removed', scope, setting, before: value });
    else if (next !== value) changes.push({ kind: 'changed', scope, setting, before: value, after: next });
  }
  for (const [key, value] of will) {
    if (was.has(key)) continue;
    const [scope, setting] = splitKey(key);
    changes.push({ kind: 'added', scope, setting, after: value });
  }
  return changes.sort((a, b) => order(a).localeCompare(order(b)));
}

/** The workspace first, then channels by name; within a scope, by setting. */
function order(change: SettingsChange): string {
  return `${change.scope === 'workspace' ? '0' : '1'}${change.scope}\u0000${change.setting}`;
}

const SEPARATOR = '\u0000';

function splitKey(key: string): [string, string] {
  const at = key.indexOf(SEPARATOR);
  return [key.slice(0, at), key.slice(at + 1)];
}

/** Every setting of the document as `scope␀setting` → its value in words. */
function leaves(document: SettingsDocument): Map<string, string> {
  const found = new Map<string, string>();
  const put = (scope: string, setting: string, value: unknown) => {
    if (value === undefined) return;
    found.set(`${scope}${SEPARATOR}${setting}`, words(value));
  };
  const { approvals, aliases, runbooks } = document.workspace;
  for (const [key, value] of Object.entries(approvals)) put('workspace', `approvals.${key}`, value);
  for (const [name, expansion] of Object.entries(aliases)) put('workspace', `aliases.${name}`, expansion);
  for (const [name, steps] of Object.entries(runbooks)) put('workspace', `runbooks.${name}`, steps);
  for (const [channel, own] of Object.entries(document.channels)) {
    put(channel, 'allow', own.allow);
    for (const [key, rule] of Object.entries(own.rules ?? {})) {
      for (const [field, value] of Object.entries(rule)) put(channel, `rules.${key}.${field}`, value);
    }
    if (own.breakGlass) {
      put(channel, 'breakGlass.enabled', own.breakGlass.enabled);
      put(channel, 'breakGlass.people', own.breakGlass.people);
    }
    put(channel, 'auditChannel', own.auditChannel);
    for (const [name, expansion] of Object.entries(own.aliases ?? {}))
      put(channel, `aliases.${name}`, expansion);
    for (const [name, steps] of Object.entries(own.runbooks ?? {})) put(channel, `runbooks.${name}`, steps);
    for (const report of own.reports ?? []) {
      const { id, ...rest } = report;
      const at = `reports.${id.slice(0, 8)}`;
      for (const [field, value] of Object.entries(rest)) {
        put(
          channel,
          `${at}.${field}`,
          field === 'filter' && value !== undefined ? filterWords(value) : value,
        );
      }
    }
  }
  return found;
}

function filterWords(filter: unknown): string {
  return Object.entries(filter as Record<string, readonly string[]>)
    .map(([key, list]) => `${key}: ${list.join(', ')}`)
    .join('; ');
}

function words(value: unknown): string {
  if (value === null) return 'none';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(words).join(', ');
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  return String(value);
}
