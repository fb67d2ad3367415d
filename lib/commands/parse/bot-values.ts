import { BOOLEAN_SHAPE } from '../../api/field-shape.js';
import { isReportKind, REPORT_KIND_SPECS } from '../../reports/kinds.js';
import { PROFILE_NAME_PATTERN } from '../../store/keys.js';
import type { BotValueKind } from '../bot-command-specs.js';
import { convertText } from '../field-values.js';
import { exampleOf, MAX_LISTED_PEOPLE, readSlackId } from '../slack-ids.js';
import { type BotValue, clip } from './result.js';

/**
 * Typed text of bot-command flags and words: each kind reads its text into the value the handler
 * uses (ids, numbers, on/off), or says what is wrong and how to write it. The text itself is only
 * ever repeated clipped: it may be long, or a token pasted in the wrong place.
 */

export type ValueReading =
  | { readonly ok: true; readonly value: BotValue }
  | { readonly ok: false; readonly problem: string };

const ok = (value: BotValue): ValueReading => ({ ok: true, value });
const problem = (text: string): ValueReading => ({ ok: false, problem: text });

/**
 * Reads `text` as `kind`. `flag` is how the value is named in a problem (`--approvers` or
 * `PROFILE`); `previous` is what earlier copies of a list flag collected.
 */
export function readBotValue(
  kind: BotValueKind,
  text: string,
  flag: string,
  previous?: BotValue,
): ValueReading {
  switch (kind.type) {
    case 'switch': {
      const converted = convertText(text, BOOLEAN_SHAPE, { secret: false });
      return converted.ok ? ok(converted.value === true) : problem(`\`${flag}\`: ${converted.reason}`);
    }
    case 'text':
      return ok(text);
    case 'on-off': {
      const word = text.trim().toLowerCase();
      return word === 'on' || word === 'off'
        ? ok(word === 'on')
        : problem(`\`${flag}\` is \`on\` or \`off\`.`);
    }
    case 'count':
      return readWholeNumber(text, flag, kind.min, kind.max, '');
    case 'minutes':
      return readWholeNumber(text, flag, kind.min, kind.max, 'in minutes, ');
    case 'profile':
      return PROFILE_NAME_PATTERN.test(text)
        ? ok(text)
        : problem(
            `\`${flag}\`: a profile name is 1 to 32 letters, digits, \`.\`, \`-\` or \`_\`, starting with a letter or digit, e.g. \`staging\`.`,
          );
    case 'report-kind': {
      const word = text.trim().toLowerCase();
      if (isReportKind(word)) return ok(word);
      const choices = REPORT_KIND_SPECS.map((spec) => `\`${spec.kind}\` (${spec.usage})`);
      return problem(
        `\`${clip(text)}\` is not a report. Choose ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}, e.g. \`reports add issues --daily 09:00 --tz Europe/Berlin\`.`,
      );
    }
    case 'words':
      return readWords(text, flag);
    case 'people':
      return readPeople(text, flag, previous);
    case 'channel':
    case 'usergroup':
      return readOneId(kind.type, text, flag);
    case 'choice': {
      const word = text.trim().toLowerCase();
      if (kind.words.includes(word)) return ok(word);
      const choices = kind.words.map((choice) => `\`${choice}\``);
      return problem(`\`${flag}\` is ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}.`);
    }
  }
}

function readWholeNumber(text: string, flag: string, min: number, max: number, unit: string): ValueReading {
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    return problem(
      `\`${flag}\` is ${unit}a whole number from ${min} to ${max}, e.g. \`${flag} ${min + 1}\`.`,
    );
  }
  return ok(n);
}

/** `@alice,@bob`, repeated or comma-separated; `none` alone is the empty list. */
function readPeople(text: string, flag: string, previous: BotValue | undefined): ValueReading {
  const collected = Array.isArray(previous) ? previous : [];
  const pieces = text
    .split(',')
    .map((piece) => piece.trim())
    .filter((piece) => piece.length > 0);
  if (pieces.length === 1 && pieces[0]?.toLowerCase() === 'none') return ok(collected);
  const how = `e.g. \`${flag} ${exampleOf('user')},@bob\` (or \`none\`)`;
  const ids: string[] = [...collected];
  for (const piece of pieces) {
    const read = readSlackId('user', piece);
    if (!read.ok)
      return problem(`\`${flag}\`: \`${clip(piece)}\`: ${read.why}. Name people as mentions, ${how}.`);
    if (!ids.includes(read.id)) ids.push(read.id);
  }
  if (ids.length > MAX_LISTED_PEOPLE) {
    return problem(
      `\`${flag}\` names at most ${MAX_LISTED_PEOPLE} people, ${ids.length} were given; ${how}.`,
    );
  }
  return ok(ids);
}

/** At most this many words in one list: a filter of more is more likely a mistake. */
const MAX_WORDS = 20;

/**
 * `node_reboot,volume_delete`, `us-east,eu-west`: comma-separated words of letters, digits, `_`
 * and `-` (not at either end), lowercased.
 */
function readWords(text: string, flag: string): ValueReading {
  const words = text
    .split(',')
    .map((word) => word.trim().toLowerCase())
    .filter((word) => word.length > 0);
  const how = `e.g. \`${flag} node_reboot,volume_delete\``;
  const bad = words.find((word) => !/^[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?$/.test(word));
  if (bad !== undefined)
    return problem(
      `\`${flag}\`: \`${clip(bad)}\` is not a word of letters, digits, \`_\` and \`-\`; ${how}.`,
    );
  if (words.length === 0) return problem(`\`${flag}\` needs at least one word, ${how}.`);
  if (words.length > MAX_WORDS)
    return problem(`\`${flag}\` takes at most ${MAX_WORDS} words, ${words.length} were given.`);
  return ok([...new Set(words)]);
}

function readOneId(kind: 'channel' | 'usergroup', text: string, flag: string): ValueReading {
  if (text.trim().toLowerCase() === 'none') return ok(null);
  const read = readSlackId(kind, text);
  if (read.ok) return ok(read.id);
  return problem(
    `\`${flag}\`: \`${clip(text.trim())}\`: ${read.why}; e.g. \`${flag} ${exampleOf(kind)}\` (or \`none\`).`,
  );
}
