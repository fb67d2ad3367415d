// @ts-check
// A tool's arguments as typed in the Slackbot panel, checked as the page's server checks them
// (`slackbot-panel.ts`), so a refusal comes before anything is sent. No document: tests import it.

// As the page's server counts them.
const MAX_ARGUMENTS_CHARS = 16_384;
const MAX_ARGUMENTS_DEPTH = 16;
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The arguments as the page's server will take them, or why not: the same checks, sooner.
 * @param {string} text
 * @returns {{ ok: true } | { ok: false; error: string }}
 */
export function checkArguments(text) {
  if (text.length > MAX_ARGUMENTS_CHARS)
    return {
      ok: false,
      error: `The arguments are ${text.length} characters long; at most ${MAX_ARGUMENTS_CHARS} are sent.`,
    };
  if (text.trim() === '') return { ok: true };
  /** @type {unknown} */
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: `The arguments are not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return {
      ok: false,
      error: 'The arguments must be one JSON object, such as {"operation": "volumes.list"}.',
    };
  /** @type {{ value: unknown; depth: number; path: string }[]} */
  const pending = [{ value, depth: 1, path: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > MAX_ARGUMENTS_DEPTH)
      return { ok: false, error: `The arguments nest more than ${MAX_ARGUMENTS_DEPTH} levels deep.` };
    if (typeof next.value !== 'object' || next.value === null) continue;
    for (const [key, item] of Object.entries(next.value)) {
      const path = next.path ? `${next.path}.${key}` : key;
      if (!Array.isArray(next.value) && RESERVED_KEYS.has(key))
        return {
          ok: false,
          error: `The arguments' field ${path} uses a reserved name: __proto__, constructor and prototype are never fields.`,
        };
      if (typeof item === 'object' && item !== null)
        pending.push({ value: item, depth: next.depth + 1, path });
    }
  }
  return { ok: true };
}
