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

/** Page through a list: the run payload plus page, page size and filter. */
export const PagePayloadSchema = RunPayloadSchema.extend({
  p: z.number().int().min(1),
  s: z.number().int().min(25).max(500).optional(),
  f: z.record(z.string(), z.unknown()).optional(),
});
export type PagePayload = z.infer<typeof PagePayloadSchema>;

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
