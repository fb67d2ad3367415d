import { badRequest } from './errors.js';

/**
 * Typed reads of an operation's validated input. The row's schema has already checked the
 * documented field rules; a read that still fails means the row and the handler disagree, which
 * is reported as a 400 on that field rather than a crash.
 */
export class RequestFields {
  readonly #values: Readonly<Record<string, unknown>>;

  constructor(values: Readonly<Record<string, unknown>>) {
    this.#values = values;
  }

  get all(): Readonly<Record<string, unknown>> {
    return this.#values;
  }

  has(name: string): boolean {
    return this.#values[name] !== undefined;
  }

  raw(name: string): unknown {
    return this.#values[name];
  }

  int(name: string): number {
    const value = this.#values[name];
    if (typeof value !== 'number' || !Number.isInteger(value))
      throw badRequest('must be a whole number', name);
    return value;
  }

  optionalInt(name: string): number | undefined {
    return this.has(name) ? this.int(name) : undefined;
  }

  text(name: string): string {
    const value = this.#values[name];
    if (typeof value !== 'string')
      throw badRequest(value === undefined ? 'is required' : 'must be text', name);
    return value;
  }

  optionalText(name: string): string | undefined {
    return this.has(name) ? this.text(name) : undefined;
  }

  /** undefined: not sent; null: sent as null. */
  nullableText(name: string): string | null | undefined {
    const value = this.#values[name];
    if (value === null) return null;
    return value === undefined ? undefined : this.text(name);
  }

  optionalBool(name: string): boolean | undefined {
    const value = this.#values[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') throw badRequest('must be true or false', name);
    return value;
  }

  optionalTextList(name: string): string[] | undefined {
    const value = this.#values[name];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
      throw badRequest('must be a list of text', name);
    }
    return value;
  }

  optionalIntList(name: string): number[] | undefined {
    const value = this.#values[name];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'number' && Number.isInteger(v))) {
      throw badRequest('must be a list of whole numbers', name);
    }
    return value;
  }

  optionalObject(name: string): Record<string, unknown> | undefined {
    const value = this.#values[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) throw badRequest('must be an object', name);
    return value as Record<string, unknown>;
  }

  optionalList(name: string): unknown[] | undefined {
    const value = this.#values[name];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) throw badRequest('must be a list', name);
    return value;
  }
}
