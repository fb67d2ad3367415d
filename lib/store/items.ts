import type { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { z } from 'zod';
import { StoreError } from './errors.js';

/**
 * Items are parsed where they leave the table, like any other input. The error names the kind
 * and the field paths only: item values (ciphertexts, inputs) stay out of messages.
 */
export function parseItem<S extends z.ZodType>(schema: S, item: unknown, kind: string): z.infer<S> {
  const result = schema.safeParse(item);
  if (result.success) return result.data;
  const fields = [...new Set(result.error.issues.map((issue) => issue.path.join('.') || '(item)'))];
  throw new StoreError('malformed_item', `A stored ${kind} item is malformed (${fields.join(', ')}).`, {
    cause: result.error,
  });
}

/**
 * When `error` says a write's condition failed, returns the item as it was when the condition
 * was checked (the write asked for `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), or `null`
 * when there was no item. Returns `undefined` for any other error, which the caller rethrows.
 */
export function itemOfFailedCondition(error: unknown): Record<string, unknown> | null | undefined {
  if (!isConditionFailure(error)) return undefined;
  // The document client does not translate errors, so the old item is still in wire format.
  return error.Item === undefined ? null : unmarshall(error.Item);
}

/** By name: a second copy of the SDK in the bundle would defeat `instanceof`. */
export function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
