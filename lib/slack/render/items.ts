/**
 * Reading fields of API resources for display. Renderers receive results already parsed by the
 * operation's schema, but they are written for any shape (the generic fallback), so every read
 * checks the type instead of trusting it.
 */

export type Item = Record<string, unknown>;

export function isItem(value: unknown): value is Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A nested value by dotted path (`backups.schedule.day`, `engines.mysql.0.price`). */
export function valueAt(item: Item, path: string): unknown {
  let current: unknown = item;
  for (const key of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isItem(current)) current = current[key];
    else return undefined;
  }
  return current;
}

export function stringAt(item: Item, path: string): string | undefined {
  const value = valueAt(item, path);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function numberAt(item: Item, path: string): number | undefined {
  const value = valueAt(item, path);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function booleanAt(item: Item, path: string): boolean | undefined {
  const value = valueAt(item, path);
  return typeof value === 'boolean' ? value : undefined;
}

export function stringsAt(item: Item, path: string): string[] {
  const value = valueAt(item, path);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The id of a resource: numbers for most, strings for images, engines and types. */
export function idOf(item: Item): string | number | undefined {
  const id = item.id;
  return typeof id === 'number' || (typeof id === 'string' && id !== '') ? id : undefined;
}

/** What a person calls a resource: its label, name or username, else its id. */
export function titleOf(item: Item): string | undefined {
  for (const key of ['label', 'name', 'username', 'question']) {
    const value = stringAt(item, key);
    if (value) return value;
  }
  const id = idOf(item);
  return id === undefined ? undefined : String(id);
}

/**
 * Fields that hold secrets or one-time codes. Outside the sensitive renderers they are never
 * shown, whatever the shape: a token listing carries the first 16 characters of every token.
 */
const SECRET_FIELD = /(?:^|_)(?:token|password|secret|scratch|root_pass|otp_code|tfa_code)$/i;

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/** A deep copy without secret fields, for JSON output of results that are not sensitive. */
export function withoutSecretFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecretFields);
  if (!isItem(value)) return value;
  const copy: Item = {};
  for (const [key, field] of Object.entries(value)) {
    copy[key] =
      isSecretField(key) && field !== null && field !== undefined ? '[hidden]' : withoutSecretFields(field);
  }
  return copy;
}
