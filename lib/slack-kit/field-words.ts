import type { FieldShape } from '../api/field-shape.js';
import { enumWords, isEnumField } from './enum-words.js';
import { escapeMrkdwn, formatNumber, parseApiDate, slackDate } from './text.js';

/**
 * How a field reads to a person, decided once: its label (with the unit the API counts in), its
 * value (ids as names, sizes with units, a maintenance window as a sentence), an issue's title,
 * a service's name, a form field's label and hint. Detail views, list rows, approval previews,
 * forms, the audit log and the reports all ask here, so a field reads the same wherever it appears.
 */

/** The units the API counts sizes and times in. */
export type Unit = 'GB' | 'MB' | 'bytes' | 'Mbit/s' | 'hours' | 'seconds';

const UNIT_WORDS: Readonly<Record<Unit, { readonly label: string; readonly value: (n: string) => string }>> =
  {
    GB: { label: 'GB', value: (n) => `${n} GB` },
    MB: { label: 'MB', value: (n) => `${n} MB` },
    bytes: { label: 'bytes', value: (n) => `${n} ${n === '1' ? 'byte' : 'bytes'}` },
    'Mbit/s': { label: 'Mbit/s', value: (n) => `${n} Mbit/s` },
    hours: { label: 'hours', value: (n) => `${n} ${n === '1' ? 'hour' : 'hours'}` },
    seconds: { label: 's', value: (n) => `${n} s` },
  };

/** A unit written into the field's name by the API: `total_disk_size_gb`, `memory_mb`. */
const UNIT_SUFFIX: readonly (readonly [RegExp, Unit])[] = [
  [/_gb$/i, 'GB'],
  [/_mb$/i, 'MB'],
];

/**
 * Units of fields whose names do not say them, by the kind of resource that has them, from the
 * API's schema and the spec (`../shared/spec/compute-storage-images-databases.md`): a volume's
 * `size` is in GB (1..10240), an image's in MB, a node's `specs` disk and memory in MB and its
 * transfer in GB, a service's `timeout` in seconds. From `API-FACTS-MORE.md`: a disk's `size` in MB
 * (§3.4), a node type's `network_out` in Mbit/s (§5), a node's month of transfer `used` in bytes
 * and its `quota` and `billable` in GB (§3.3); a config's `memory_limit` is the node's RAM, in MB
 * as the node's `specs.memory` (the spec, node configs); a database type's disk and memory in MB
 * as a node type's.
 */
const KIND_UNITS: Readonly<Record<string, Readonly<Record<string, Unit>>>> = {
  volume: { size: 'GB' },
  image: { size: 'MB' },
  disk: { size: 'MB' },
  config: { memory_limit: 'MB' },
  node: { disk: 'MB', memory: 'MB', swap: 'MB', transfer: 'GB' },
  'node-type': { disk: 'MB', memory: 'MB', transfer: 'GB', network_out: 'Mbit/s' },
  'node-transfer': { used: 'bytes', quota: 'GB', billable: 'GB' },
  'database-type': { disk: 'MB', memory: 'MB' },
  service: { timeout: 'seconds' },
  event: { duration: 'seconds' },
};

/** The unit of a field of a kind of resource (`volume`, `image`, …), or none. */
export function unitOf(key: string, kind?: string): Unit | undefined {
  for (const [pattern, unit] of UNIT_SUFFIX) if (pattern.test(key)) return unit;
  // Own keys only: a filter's field name is the person's text (`toString` must not find a function).
  const units = kind !== undefined && Object.hasOwn(KIND_UNITS, kind) ? KIND_UNITS[kind] : undefined;
  return units !== undefined && Object.hasOwn(units, key) ? units[key] : undefined;
}

/**
 * `total_disk_size_gb` → `Total disk size (GB)`, `node_id` → `Node ID`, `size` of a volume →
 * `Size (GB)`. Plain text: the caller escapes it for mrkdwn.
 */
export function fieldLabel(key: string, kind?: string): string {
  const unit = unitOf(key, kind);
  const label = bareLabel(key);
  return unit === undefined ? label : `${label} (${UNIT_WORDS[unit].label})`;
}

/** A field's name in words, without its unit: `total_disk_size_gb` → `Total disk size`. */
function bareLabel(key: string): string {
  const bare = UNIT_SUFFIX.reduce((name, [pattern]) => name.replace(pattern, ''), key);
  const words = bare
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.-]+/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/\b(id|ids|ip|ssh|ssl|url|uri|cpu|tfa|uid|kvm)\b/g, (word) => word.toUpperCase())
    .replace(/\bIDS\b/g, 'IDs')
    // A node type's `vcpus` and `gpus`, a kernel's `pvops` (paravirt ops): the words people use.
    .replace(/\bvcpus\b/g, 'vCPUs')
    .replace(/\bgpus\b/g, 'GPUs')
    .replace(/\bpvops\b/g, 'paravirt ops');
  // `vCPUs` keeps its small v.
  return /^[a-z][A-Z]/.test(words) ? words : words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The label beside a value: `Total disk size` beside `80 GB`, since a number shows its unit
 * itself (`quantityWords`); `Total disk size (GB)` beside an empty value, which does not.
 */
export function labelBeside(key: string, value: unknown, kind?: string): string {
  const quantity =
    typeof value === 'number' ||
    (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'number'));
  return quantity ? bareLabel(key) : fieldLabel(key, kind);
}

/** `total disk size`, `node ID`: a field named inside a line of facts, before its value (`50 GB`). */
export function factLabel(key: string): string {
  const label = fieldLabel(key);
  return /^[A-Z][a-z]/.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label;
}

/** Ids and ports are names, not quantities: `3306`, never `3,306`. */
const IDENTIFIER_KEY = /(^|_)(id|uid|port)$|Id$/;
/** Lists of ids: an issue's `services`, `*_ids`. */
const IDENTIFIER_LIST_KEY = /(^|_)ids$|Ids$|^services$/;

export function isIdentifierKey(key: string): boolean {
  return IDENTIFIER_KEY.test(key) || IDENTIFIER_LIST_KEY.test(key);
}

/** A number as people read a quantity (`10,240`), or as a name when it is an id. */
export function numberWords(value: number, key?: string): string {
  if (!Number.isFinite(value)) return String(value);
  if (key !== undefined && isIdentifierKey(key)) return String(value);
  return formatNumber(value);
}

/**
 * A number with its unit, plain text: `50 GB`, `3 hours`, `2 min 5 s`, `1.68 GB` for bytes, `9942`
 * for an id.
 */
export function quantityWords(value: number, key: string, kind?: string): string {
  const unit = unitOf(key, kind);
  if (unit === 'seconds' && Number.isFinite(value)) return durationWords(value);
  if (unit === 'bytes' && Number.isFinite(value)) return bytesWords(value);
  const written = numberWords(value, key);
  return unit === undefined ? written : UNIT_WORDS[unit].value(written);
}

/**
 * A span of seconds as people say it, to the second: `10 s`, `2 min 5 s`, `1 h 3 min` (seconds
 * dropped past an hour), `3 d 4 h`. The API counts durations in seconds, with fractions (§8's
 * `300.56`).
 */
export function durationWords(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  const parts: [number, string][] =
    days > 0
      ? [
          [days, 'd'],
          [hours, 'h'],
        ]
      : hours > 0
        ? [
            [hours, 'h'],
            [minutes, 'min'],
          ]
        : [
            [minutes, 'min'],
            [secs, 's'],
          ];
  const shown = parts.filter(([n]) => n > 0).map(([n, unit]) => `${formatNumber(n)} ${unit}`);
  return shown.length > 0 ? shown.join(' ') : '0 s';
}

/** Powers of 1000 a count of bytes is written in, as the API's GB of transfer are. */
const BYTE_UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

/** A count of bytes in the largest unit that keeps it at least 1: `1.68 GB`, `512 bytes`. */
export function bytesWords(bytes: number): string {
  let scaled = Math.max(0, bytes);
  let power = 0;
  while (scaled >= 1000 && power < BYTE_UNITS.length - 1) {
    scaled /= 1000;
    power += 1;
  }
  if (power === 0) return UNIT_WORDS.bytes.value(formatNumber(scaled));
  return `${formatNumber(Math.round(scaled * 100) / 100)} ${BYTE_UNITS[power]}`;
}

/**
 * A node or database type's size as people compare plans: `2 CPU, 4 GB RAM, 80 GB disk`. The
 * API counts memory and disk in MB (API-FACTS-MORE.md §5); whole gigabytes read as GB. Plain
 * text; undefined when nothing of the size is known.
 */
export function typeSizeWords(type: {
  readonly vcpus?: number | undefined;
  readonly memoryMb?: number | undefined;
  readonly diskMb?: number | undefined;
}): string | undefined {
  const parts = [
    type.vcpus === undefined ? undefined : `${numberWords(type.vcpus)} CPU`,
    type.memoryMb === undefined ? undefined : `${megabytesWords(type.memoryMb)} RAM`,
    type.diskMb === undefined ? undefined : `${megabytesWords(type.diskMb)} disk`,
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** `4 GB` for 4096 MB, `512 MB` for what is not a whole gigabyte. */
function megabytesWords(mb: number): string {
  return mb >= 1024 && mb % 1024 === 0
    ? UNIT_WORDS.GB.value(numberWords(mb / 1024))
    : UNIT_WORDS.MB.value(numberWords(mb));
}

/**
 * A scalar as a person reads it, in mrkdwn: dates formatted, booleans as yes/no, null as an em
 * dash, ids as written, quantities with their unit (`50 GB`). Undefined for objects and lists of
 * objects (the caller summarizes those).
 */
export function fieldValue(value: unknown, key?: string, kind?: string): string | undefined {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number')
    return key === undefined ? numberWords(value) : quantityWords(value, key, kind);
  if (typeof value === 'string') {
    if (value === '') return '—';
    if (key !== undefined && isEnumField(key)) return escapeMrkdwn(enumWords(key, value));
    const date = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) ? parseApiDate(value) : undefined;
    return date ? slackDate(date) : escapeMrkdwn(value);
  }
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) {
    // The items of a list of ids are ids too.
    return value.length === 0 ? '—' : value.map((v) => fieldValue(v, key, kind) ?? '').join(', ');
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Maintenance windows

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const ORDINALS = ['1st', '2nd', '3rd', '4th'];

/**
 * A database's `updates` (its patch maintenance window) as a sentence: `Sundays 02:00–05:00 UTC,
 * weekly`, `2nd Sunday of the month, 02:00–05:00 UTC`. From the spec's `updates` object:
 * day_of_week 1..7 with 1 Monday, hour_of_day 0..23 the UTC start hour, duration 1..3 the longest
 * window in hours, frequency weekly (the default) or monthly, week_of_month 1..4 for monthly.
 * Undefined when the object is not such a window (the caller then shows it field by field).
 */
export function maintenanceWindowWords(updates: unknown): string | undefined {
  if (typeof updates !== 'object' || updates === null || Array.isArray(updates)) return undefined;
  const window = updates as Record<string, unknown>;
  const day = window.day_of_week;
  const hour = window.hour_of_day;
  const duration = window.duration;
  const frequency = window.frequency ?? 'weekly';
  if (!isWhole(day, 1, 7) || !isWhole(hour, 0, 23) || !isWhole(duration, 1, 3)) return undefined;
  const weekday = WEEKDAYS[day - 1] ?? '';
  const hours = `${clock(hour)}–${clock((hour + duration) % 24)} UTC`;
  if (frequency === 'weekly') return `${weekday}s ${hours}, weekly`;
  if (frequency === 'monthly') {
    const week = window.week_of_month;
    return isWhole(week, 1, 4)
      ? `${ORDINALS[week - 1]} ${weekday} of the month, ${hours}`
      : `One ${weekday} a month, ${hours}`;
  }
  return undefined;
}

function isWhole(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function clock(hour: number): string {
  return `${String(hour).padStart(2, '0')}:00`;
}

/** Fields whose value reads as one sentence rather than field by field. */
const SENTENCE_FIELDS: Readonly<
  Record<string, { readonly label: string; readonly words: (value: unknown) => string | undefined }>
> = {
  updates: { label: 'Maintenance window', words: maintenanceWindowWords },
};

/** `Maintenance window` and its sentence for `updates`; undefined for other fields. */
export function sentenceField(key: string, value: unknown): readonly [string, string] | undefined {
  const sentence = SENTENCE_FIELDS[key];
  if (sentence === undefined) return undefined;
  const words = sentence.words(value);
  return words === undefined ? undefined : [sentence.label, escapeMrkdwn(words)];
}

// ---------------------------------------------------------------------------------------------
// Managed issues and services

/** What a service is called: its label when known, else `service 9942` (an id, never `9,942`). */
export function serviceName(id: number, label?: string): string {
  return label === undefined || label === '' ? `service ${id}` : label;
}

/**
 * An issue's title, plain text: the ticket's subject when the API gives one, else `Issue 823`.
 * Its id is shown beside it once, never repeated in the title.
 */
export function issueTitle(issue: { readonly id?: unknown; readonly entity?: unknown }): string {
  const entity = issue.entity;
  if (typeof entity === 'object' && entity !== null && !Array.isArray(entity)) {
    const label = (entity as Record<string, unknown>).label;
    if (typeof label === 'string' && label.trim() !== '') return label.trim();
  }
  return typeof issue.id === 'number' || typeof issue.id === 'string' ? `Issue ${issue.id}` : 'Issue';
}

/** A heading for one resource: `Issue 825`, not `Issue: Issue 825`; `Volume: db-data`. */
export function resourceHeading(noun: string, title: string): string {
  const capitalized = noun.charAt(0).toUpperCase() + noun.slice(1);
  return title.toLowerCase().startsWith(`${noun.toLowerCase()} `) ? title : `${capitalized}: ${title}`;
}

/** Whether a title already ends with the id, so a row need not show it again (`Issue 823` `823`). */
export function titleNamesId(title: string, id: string | number): boolean {
  const written = String(id);
  return title === written || title.endsWith(` ${written}`);
}

// ---------------------------------------------------------------------------------------------
// Form fields

/**
 * A form field's label: what the field is, from its description when the schema gives one, else
 * its name in words with its unit (`Size (GB)`), never the flag typed on the command line.
 */
export function formLabel(key: string, shape: FieldShape, kind?: string): string {
  const described = shape.description?.trim();
  if (described) return described.split(/(?<=[.!?])\s/)[0]?.replace(/[.]$/, '') ?? described;
  return fieldLabel(key, kind);
}

/**
 * The hint under a form field, in words: `3 to 32 characters`, `1 to 10,240 GB`, `at least 1`,
 * `one or more, separated by commas (or a JSON list)`. Undefined when there is nothing to say.
 */
export function formHint(key: string, shape: FieldShape, kind?: string): string | undefined {
  const parts: string[] = [];
  const kinds = [...shape.kinds].filter((k) => k !== 'null');
  if (shape.minLength !== undefined || shape.maxLength !== undefined) {
    // A minimum of 1 alone only says "not empty", which the form's required mark says already.
    const min =
      shape.minLength === 0 || (shape.minLength === 1 && shape.maxLength === undefined)
        ? undefined
        : shape.minLength;
    if (min !== undefined || shape.maxLength !== undefined)
      parts.push(`${bounds(min, shape.maxLength, String)} characters`);
  }
  if (shape.minimum !== undefined || shape.maximum !== undefined) {
    const unit = unitOf(key, kind);
    const written = bounds(shape.minimum, shape.maximum, (n) => numberWords(n, key));
    parts.push(unit === undefined ? written : `${written} ${UNIT_WORDS[unit].label}`);
  } else if (kinds.length === 1 && kinds[0] === 'integer') {
    parts.push('a whole number');
  }
  if (kinds.includes('array') && !kinds.includes('string')) {
    parts.push('one or more, separated by commas (or a JSON list)');
  }
  if (kinds.includes('object')) parts.push('a JSON object, e.g. {"key": "value"}');
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

function bounds(min: number | undefined, max: number | undefined, write: (n: number) => string): string {
  if (min !== undefined && max !== undefined)
    return min === max ? write(min) : `${write(min)} to ${write(max)}`;
  if (min !== undefined) return `at least ${write(min)}`;
  return `up to ${write(max ?? 0)}`;
}

/** Characters of a bot-made id (a runbook run, a request, a report) that people are shown. */
export const SHORT_ID_LENGTH = 8;

/**
 * `1a2b3c4d`: a bot-made UUID as people are shown it, the length the reports use; the whole id
 * stays in the data, and commands that take one find it by these characters.
 */
export function shortId(id: string): string {
  return id.slice(0, SHORT_ID_LENGTH);
}

// ---------------------------------------------------------------------------------------------
// List filters

/** The API's filter operators (`X-Filter`) in words. */
const FILTER_OPERATOR_WORDS: Readonly<Record<string, string>> = {
  '+gt': 'is more than',
  '+gte': 'is at least',
  '+lt': 'is less than',
  '+lte': 'is at most',
  '+contains': 'contains',
  '+neq': 'is not',
};

/**
 * A list's filter as words, plain text: `{"label":"db","size":{"+gte":10}}` → `label is db and
 * size is at least 10`; `+or` lists read with `or`, and `+order_by` as `sorted by label, newest…`.
 */
export function filterWords(filter: Readonly<Record<string, unknown>>, kind?: string): string {
  const conditions: string[] = [];
  let order: string | undefined;
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '+order_by') order = `sorted by ${factLabel(String(condition))}`;
    else if (key === '+order') continue;
    else if (key === '+and' || key === '+or') {
      const parts = (Array.isArray(condition) ? condition : [])
        .filter((part): part is Record<string, unknown> => typeof part === 'object' && part !== null)
        .map((part) => filterWords(part, kind))
        .filter((words) => words !== '');
      if (parts.length > 0)
        conditions.push(
          parts.length === 1 ? (parts[0] ?? '') : `(${parts.join(key === '+and' ? ' and ' : ' or ')})`,
        );
    } else conditions.push(...conditionWords(key, condition, kind));
  }
  if (order !== undefined) {
    const direction =
      filter['+order'] === 'desc' ? ', descending' : filter['+order'] === 'asc' ? ', ascending' : '';
    conditions.push(`${order}${direction}`);
  }
  return conditions.join(' and ').replace(/ and (sorted by)/, ', $1');
}

function conditionWords(key: string, condition: unknown, kind: string | undefined): string[] {
  const name = factLabel(key);
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition))
    return [`${name} is ${filterValueWords(condition, key, kind)}`];
  return Object.entries(condition).map(
    ([operator, operand]) =>
      `${name} ${(Object.hasOwn(FILTER_OPERATOR_WORDS, operator) && FILTER_OPERATOR_WORDS[operator]) || operator} ${filterValueWords(operand, key, kind)}`,
  );
}

function filterValueWords(value: unknown, key: string, kind: string | undefined): string {
  if (value === null) return 'empty';
  if (typeof value === 'string') return isEnumField(key) ? enumWords(key, value) : `“${value}”`;
  if (typeof value === 'number') return quantityWords(value, key, kind);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return JSON.stringify(value) ?? String(value);
}
