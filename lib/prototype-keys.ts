/**
 * Names that reach an object's prototype. `obj['__proto__'] = v` replaces the prototype, and a
 * path through `constructor.prototype` ends at `Object.prototype` itself, changing every object of
 * the process. None of them is a field of any API request, so they are refused wherever user text
 * becomes an object key: dotted flag names, map keys, and keys inside JSON values.
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isPrototypeKey(key: string): boolean {
  return PROTOTYPE_KEYS.has(key);
}

/** The path to the first prototype key in a parsed JSON value, at any depth; undefined when none. */
export function prototypeKeyPath(value: unknown): readonly string[] | undefined {
  const pending: { value: unknown; path: readonly string[] }[] = [{ value, path: [] }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop() ?? { value: undefined, path: [] };
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      for (const [index, item] of current.entries())
        pending.push({ value: item, path: [...path, String(index)] });
      continue;
    }
    for (const [key, item] of Object.entries(current)) {
      if (isPrototypeKey(key)) return [...path, key];
      pending.push({ value: item, path: [...path, key] });
    }
  }
  return undefined;
}

/** Why such a name is refused, said after the flag or field it was typed in. */
export const PROTOTYPE_KEY_REASON =
  'uses a reserved name: __proto__, constructor and prototype are never fields';
