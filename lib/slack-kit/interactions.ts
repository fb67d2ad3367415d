import * as z from 'zod';
import { prototypeKeyPath } from '../prototype-keys.js';
import {
  type ApprovalPayload,
  type ExportPayload,
  type PagePayload,
  type RunPayload,
  PAYLOAD_WIRE_KEYS as WIRE,
} from './interaction-ids.js';
import '../zod-settings.js';

/**
 * The contract between what the bot renders (buttons, menus, modals) and what its listeners
 * accept back from Slack. Every interactive element the renderers produce uses one of these
 * action ids and encodes its value with `encodeActionValue`; the listeners decode with the
 * matching schema, so a forged or stale payload is rejected at the boundary. The schemas read
 * the one-letter wire keys (`PAYLOAD_WIRE_KEYS`) and hand on the named payloads.
 */
export {
  ActionId,
  type ActionPayload,
  type ApprovalPayload,
  CallbackId,
  type ExportPayload,
  encodeActionValue,
  type PagePayload,
  type RunPayload,
} from './interaction-ids.js';

const RunWireSchema = z.object({
  [WIRE.operationId]: z.string().min(1).max(100),
  [WIRE.input]: z.record(z.string(), z.unknown()).default({}),
});

/** Run an operation: its id and its input. */
export const RunPayloadSchema = RunWireSchema.transform(
  (wire): RunPayload => ({ operationId: wire[WIRE.operationId], input: wire[WIRE.input] }),
);

/** Highest page number and item position a paging button may carry: far past any real list. */
export const PAGE_POSITION_MAX = 10_000_000;

/**
 * Page through a list: the run payload plus the page the person will see, where it starts in the
 * whole list, where the page before it starts, the filter and the `--all` mark. A page holds at
 * least one item, so page `p` starts at `p - 1` or later, and the page before starts before it.
 */
export const PagePayloadSchema = RunWireSchema.extend({
  [WIRE.page]: z.number().int().min(1).max(PAGE_POSITION_MAX),
  [WIRE.start]: z.number().int().min(0).max(PAGE_POSITION_MAX).optional(),
  [WIRE.previousStart]: z.number().int().min(0).max(PAGE_POSITION_MAX).optional(),
  [WIRE.filter]: z.record(z.string(), z.unknown()).optional(),
  [WIRE.compact]: z.literal(1).optional(),
})
  .refine((v) => v.k === undefined || v.k >= v.p - 1, { message: 'page starts before its number allows' })
  .refine((v) => v.b === undefined || (v.k !== undefined && v.b < v.k && v.b >= v.p - 2), {
    message: 'previous page does not come before this one',
  })
  .transform((wire): PagePayload => {
    const start = wire[WIRE.start];
    const previousStart = wire[WIRE.previousStart];
    const filter = wire[WIRE.filter];
    return {
      operationId: wire[WIRE.operationId],
      input: wire[WIRE.input],
      page: wire[WIRE.page],
      ...(start === undefined ? {} : { start }),
      ...(previousStart === undefined ? {} : { previousStart }),
      ...(filter === undefined ? {} : { filter }),
      ...(wire[WIRE.compact] === undefined ? {} : { compact: true }),
    };
  });

/** A whole list as a file: the run payload plus the filter and the format. */
export const ExportPayloadSchema = RunWireSchema.extend({
  [WIRE.filter]: z.record(z.string(), z.unknown()).optional(),
  [WIRE.format]: z.enum(['csv', 'json']),
}).transform((wire): ExportPayload => {
  const filter = wire[WIRE.filter];
  return {
    operationId: wire[WIRE.operationId],
    input: wire[WIRE.input],
    ...(filter === undefined ? {} : { filter }),
    format: wire[WIRE.format],
  };
});

export const ApprovalPayloadSchema = z
  .object({ [WIRE.approvalId]: z.string().min(1).max(100) })
  .transform((wire): ApprovalPayload => ({ approvalId: wire[WIRE.approvalId] }));

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
