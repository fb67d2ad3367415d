import { z } from 'zod';
import { prototypeKeyPath } from '../commands/prototype-keys.js';

/**
 * The contract between what the bot renders (buttons, menus, modals) and what its listeners
 * accept back from Slack. Every interactive element the renderers produce uses one of these
 * action ids and encodes its value with `encodeActionValue`; the listeners decode with the
 * matching schema, so a forged or stale payload is rejected at the boundary.
 */
export { ActionId, CallbackId, encodeActionValue } from './interaction-ids.js';

/** Run an operation: `o` operation id, `i` its input. Short keys: button values hold 2000 characters. */
export const RunPayloadSchema = z.object({
  o: z.string().min(1).max(100),
  i: z.record(z.string(), z.unknown()).default({}),
});
export type RunPayload = z.infer<typeof RunPayloadSchema>;

/** Highest page number and item position a paging button may carry: far past any real list. */
export const PAGE_POSITION_MAX = 10_000_000;

/**
 * Page through a list: the run payload plus `p` the page the person will see, `k` where it
 * starts in the whole list, `b` where the page before it starts, `f` the filter and `c` for the
 * one-line-an-item `--all` view. Without `k` the page is found by packing from the top. A page
 * holds at least one item, so page `p` starts at `p - 1` or later, and the page before starts
 * before it.
 */
export const PagePayloadSchema = RunPayloadSchema.extend({
  p: z.number().int().min(1).max(PAGE_POSITION_MAX),
  k: z.number().int().min(0).max(PAGE_POSITION_MAX).optional(),
  b: z.number().int().min(0).max(PAGE_POSITION_MAX).optional(),
  f: z.record(z.string(), z.unknown()).optional(),
  c: z.literal(1).optional(),
})
  .refine((v) => v.k === undefined || v.k >= v.p - 1, { message: 'page starts before its number allows' })
  .refine((v) => v.b === undefined || (v.k !== undefined && v.b < v.k && v.b >= v.p - 2), {
    message: 'previous page does not come before this one',
  });
export type PagePayload = z.infer<typeof PagePayloadSchema>;

/** A whole list as a file: the run payload plus the filter and the format. */
export const ExportPayloadSchema = RunPayloadSchema.extend({
  f: z.record(z.string(), z.unknown()).optional(),
  x: z.enum(['csv', 'json']),
});
export type ExportPayload = z.infer<typeof ExportPayloadSchema>;

export const ApprovalPayloadSchema = z.object({ a: z.string().min(1).max(100) });
export type ApprovalPayload = z.infer<typeof ApprovalPayloadSchema>;

export function decodeActionValue<T extends z.ZodType>(
  schema: T,
  value: string | undefined,
): z.output<T> | undefined {
  if (value === undefined) return undefined;
  try {
    const json: unknown = JSON.parse(value);
    // The bot never encodes these keys; a payload that has them was not made by it.
    if (prototypeKeyPath(json) !== undefined) return undefined;
    const parsed = schema.safeParse(json);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
