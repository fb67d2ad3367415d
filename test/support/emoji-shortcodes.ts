import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LIB = fileURLToPath(new URL('../../lib/', import.meta.url));

/**
 * A shortcode as Slack reads one (`:white_check_mark:`), standing alone: not a piece of a time
 * (`10:30:00`), an IPv6 address (`::ffff:`), a URL (`Exception:http:`) or an id (`op:run:2`).
 */
const SHORTCODE = /(?<![\w:]):([a-z0-9_+-]+):(?![\w:])/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Every emoji shortcode written anywhere in `lib/`, as a grep of the source would find it, so a
 * new one is found the day it is written. `\n` and `\t` escapes in string literals count as the
 * breaks they stand for (`\n:warning: …` starts a line with the emoji).
 */
export function shortcodesInLib(): string[] {
  const names = new Set<string>();
  for (const file of sourceFiles(LIB)) {
    const source = readFileSync(file, 'utf8').replace(/\\[nt]/g, ' ');
    for (const match of source.matchAll(SHORTCODE)) if (match[1]) names.add(match[1]);
  }
  return [...names].sort();
}
