import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type * as z from 'zod';
import { createLogger } from '../observability/logger.js';
import { StoreError } from './errors.js';
import type { StoreContext } from './store-context.js';
import type { ItemKey, ReadAhead, TableItem } from './table.js';

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

const skipLog = createLogger('store');

/**
 * An item of a listing, or undefined when it is malformed: one bad item (an older release's, or
 * one written by hand) must not hide all the others. The skip is logged with the item's keys and
 * the failing field paths only.
 */
export function parseListedItem<S extends z.ZodType>(
  schema: S,
  item: Record<string, unknown>,
  kind: string,
): z.infer<S> | undefined {
  try {
    return parseItem(schema, item, kind);
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    skipLog.warn('malformed item skipped in a listing', {
      kind,
      pk: String(item.pk),
      sk: String(item.sk),
      problem: error.message,
    });
    return undefined;
  }
}

/**
 * Every item under `pk` whose sort key begins with `prefix`, page after page, each parsed as a
 * listing's item (`parseListedItem`: a malformed one is logged and left out). Read consistently
 * unless `consistentRead` is false.
 */
export async function listPrefixed<S extends z.ZodType>(
  ctx: StoreContext,
  where: { readonly pk: string; readonly prefix: string; readonly consistentRead?: boolean },
  schema: S,
  kind: string,
): Promise<z.infer<S>[]> {
  const found: z.infer<S>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await ctx.table.query({
      TableName: ctx.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': where.pk, ':prefix': where.prefix },
      ...(where.consistentRead === false ? {} : { ConsistentRead: true }),
      ...(startKey ? { ExclusiveStartKey: startKey } : {}),
    });
    for (const raw of page.Items ?? []) {
      const item = parseListedItem(schema, raw, kind);
      if (item !== undefined) found.push(item);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return found;
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

/** By name: the table client names DynamoDB's errors as the SDK does (`http-table.ts`). */
export function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** A transaction DynamoDB refused as a whole: one of its conditions failed, or it met another write. */
export function isTransactionCanceled(error: unknown): boolean {
  return error instanceof Error && error.name === 'TransactionCanceledException';
}

/**
 * Writes a new item; fails if one with its key exists (ids are generated, so that is a bug). When
 * an attempt's answer was lost and the client's retry finds the item already there, the item it
 * finds is compared with this one: the same item is this write, landed, not a collision.
 */
export async function putNew(ctx: StoreContext, item: ItemKey & Record<string, unknown>): Promise<void> {
  try {
    await ctx.table.put({
      TableName: ctx.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  } catch (error) {
    const existing = itemOfFailedCondition(error);
    if (existing && isDeepStrictEqual(existing, item)) return;
    throw error;
  }
}

/**
 * Reads one item, strongly consistent, as stored: from `read` when that read asked for its key
 * (`Store.readAhead`, sent with the request's claim), otherwise from the table now.
 */
export async function readItem(
  ctx: StoreContext,
  key: ItemKey,
  read?: ReadAhead,
): Promise<TableItem | undefined> {
  const ahead = read?.itemAt(key);
  if (ahead) return ahead;
  return (await ctx.table.get({ TableName: ctx.tableName, Key: key, ConsistentRead: true })).Item;
}

/**
 * Deletes an item; true when it was there. Read first, strongly consistent: a delete whose answer
 * was lost is sent again by the table client, and the resend finds nothing, so its own answer
 * (`ReturnValues`) would say that nothing was there when this call removed it.
 */
export async function deleteExisting(ctx: StoreContext, key: ItemKey): Promise<boolean> {
  if ((await readItem(ctx, key)) === undefined) return false;
  await ctx.table.delete({ TableName: ctx.tableName, Key: key });
  return true;
}

/** Reads one item (`readItem`), parsed with `schema`. */
export async function getParsed<S extends z.ZodType>(
  ctx: StoreContext,
  key: ItemKey,
  schema: S,
  kind: string,
  read?: ReadAhead,
): Promise<z.infer<S> | undefined> {
  const item = await readItem(ctx, key, read);
  return item === undefined ? undefined : parseItem(schema, item, kind);
}

export interface ConditionalUpdate {
  readonly UpdateExpression: string;
  readonly ConditionExpression: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
  readonly ExpressionAttributeValues: Record<string, unknown>;
}

/**
 * A conditional update that names itself, so it counts once however often it is sent. The table
 * client sends a write again when its answer was lost, and that resend's condition fails on the
 * first write (or, for a count, would add again). Here the write sets `write_id` to an id of its
 * own and refuses to apply where that id already is. Found by `isOwn` in the item a failed
 * condition saw, that item is this write's result, not a race lost to another writer.
 */
function namedUpdate(update: ConditionalUpdate): {
  readonly params: ConditionalUpdate & { readonly ReturnValuesOnConditionCheckFailure: 'ALL_OLD' };
  readonly isOwn: (item: TableItem) => boolean;
} {
  const writeId = randomUUID();
  const set = /\bSET\s/;
  return {
    params: {
      ...update,
      UpdateExpression: set.test(update.UpdateExpression)
        ? update.UpdateExpression.replace(set, 'SET write_id = :writeId, ')
        : `SET write_id = :writeId ${update.UpdateExpression}`,
      ConditionExpression: `(${update.ConditionExpression}) AND (attribute_not_exists(write_id) OR write_id <> :writeId)`,
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':writeId': writeId },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
    isOwn: (item) => item.write_id === writeId,
  };
}

/**
 * Applies `update` (named, as `namedUpdate`) if its condition holds, and answers the item: as the
 * update left it, or, when the condition failed, as the condition saw it (`null`: there was none).
 */
export async function updateReturning(
  ctx: StoreContext,
  key: ItemKey,
  update: ConditionalUpdate,
): Promise<{ ok: true; item: TableItem } | { ok: false; item: TableItem | null }> {
  const named = namedUpdate(update);
  try {
    const result = await ctx.table.update({
      TableName: ctx.tableName,
      Key: key,
      ...named.params,
      ReturnValues: 'ALL_NEW',
    });
    // ALL_NEW always answers the item; its parser refuses a missing one.
    return { ok: true, item: result.Attributes ?? {} };
  } catch (error) {
    const old = itemOfFailedCondition(error);
    if (old === undefined) throw error;
    return old !== null && named.isOwn(old) ? { ok: true, item: old } : { ok: false, item: old };
  }
}

/** Applies `update` if its condition holds: true when it did, false when another writer won. */
export async function updateIf(ctx: StoreContext, key: ItemKey, update: ConditionalUpdate): Promise<boolean> {
  const named = namedUpdate(update);
  try {
    await ctx.table.update({ TableName: ctx.tableName, Key: key, ...named.params });
    return true;
  } catch (error) {
    const old = itemOfFailedCondition(error);
    if (old === undefined) throw error;
    return old !== null && named.isOwn(old);
  }
}
