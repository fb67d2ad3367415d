import { notFound } from '../errors.js';

/** The record, or 404 naming what was not found. */
export function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw notFound(`${what} not found`);
  return value;
}

export function byId<T extends { id: number }>(records: Iterable<T>): T[] {
  return [...records].sort((a, b) => a.id - b.id);
}
