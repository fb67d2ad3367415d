import * as z from 'zod';
import { OPERATION_CLASSES } from '../api/operation.js';
import { getParsed, listPrefixed, updateIf } from './items.js';
import { keys } from './keys.js';
import { STEP_UP_REQUIREMENTS } from './step-up-requirements.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import type { ReadAhead } from './table.js';
import '../zod-settings.js';

/**
 * Guardrails of one channel: which classes of operations may run there, approval rules per class
 * or per operation (each falling back to the workspace policy), and break-glass. A channel
 * without a policy allows everything under the workspace policy.
 */

const SlackUserIdSchema = z.string().regex(/^[UW][A-Z0-9]{2,}$/);

/** A rule overrides only what it sets; the rest comes from the class rule, then the workspace. */
export const ApprovalRuleSchema = z.object({
  requiredApprovals: z.number().int().min(1).max(10).optional(),
  approverUsers: z.array(SlackUserIdSchema).max(100).optional(),
  approverGroup: z
    .string()
    .regex(/^S[A-Z0-9]{2,}$/)
    .nullable()
    .optional(),
  allowSelfApproval: z.boolean().optional(),
  expiryMinutes: z.number().int().min(1).max(1440).optional(),
  stepUp: z.enum(STEP_UP_REQUIREMENTS).optional(),
  requireReason: z.boolean().optional(),
});
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

/** Keys of `rules`: a class name or an operation id (`volumes.delete`). */
export const RULE_KEY_PATTERN = /^(read|change|costs|destructive|[a-z]+\.[a-z0-9-]+)$/;
const RuleKeySchema = z.string().regex(RULE_KEY_PATTERN);

export const ChannelPolicySchema = z.object({
  allowedClasses: z.array(z.enum(OPERATION_CLASSES)).default([...OPERATION_CLASSES]),
  rules: z.record(RuleKeySchema, ApprovalRuleSchema).default({}),
  breakGlass: z
    .object({ enabled: z.boolean(), users: z.array(SlackUserIdSchema).max(50) })
    .default({ enabled: false, users: [] }),
  /** Where break-glass runs are announced besides this channel. */
  auditChannel: z
    .string()
    .regex(/^[CG][A-Z0-9]{2,}$/)
    .nullable()
    .default(null),
});
export type ChannelPolicy = z.infer<typeof ChannelPolicySchema>;

export interface StoredChannelPolicy extends ChannelPolicy {
  readonly channel: string;
  readonly updatedBy: string;
  readonly updatedAt: Date;
}

const ChannelPolicyItemSchema = z.object({
  kind: z.literal('channel_policy'),
  channel_id: z.string(),
  policy: ChannelPolicySchema,
  updated_by: z.string(),
  updated_at: z.iso.datetime(),
});

export class ChannelPolicyRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** The channel's policy; from `read` when it asked for it (`Store.readAhead`). */
  async get(team: string, channel: string, read?: ReadAhead): Promise<StoredChannelPolicy | undefined> {
    const item = await getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.channelPolicy(channel) },
      ChannelPolicyItemSchema,
      'channel policy',
      read,
    );
    return item && toPolicy(item);
  }

  /** Every channel of the team that has a policy (to say where a refused command is allowed). */
  async list(team: string): Promise<StoredChannelPolicy[]> {
    const items = await listPrefixed(
      this.#ctx,
      { pk: keys.team(team), prefix: keys.channelPolicyPrefix, consistentRead: false },
      ChannelPolicyItemSchema,
      'channel policy',
    );
    return items.map(toPolicy);
  }

  /** Validates before writing: a malformed policy never reaches the table. */
  async put(
    team: string,
    channel: string,
    policy: z.input<typeof ChannelPolicySchema>,
    by: string,
  ): Promise<StoredChannelPolicy> {
    const parsed = ChannelPolicySchema.parse(policy);
    const item = {
      pk: keys.team(team),
      sk: keys.channelPolicy(channel),
      kind: 'channel_policy' as const,
      channel_id: channel,
      policy: parsed,
      updated_by: by,
      updated_at: this.#ctx.now().toISOString(),
    };
    await this.#ctx.table.put({ TableName: this.#ctx.tableName, Item: item });
    return toPolicy(item);
  }

  /**
   * Counts one break-glass use of `user` in the current hour; false when the user has already
   * used `limit` this hour (nothing counted then). One conditional update, so racing uses cannot
   * both take the last one.
   */
  async useBreakGlass(team: string, user: string, limit: number): Promise<boolean> {
    const now = this.#ctx.now();
    const hour = now.toISOString().slice(0, 13);
    // Named (`updateIf`): a resend after a lost answer neither counts the use twice nor refuses it.
    return updateIf(
      this.#ctx,
      { pk: keys.team(team), sk: keys.breakGlassUses(user, hour) },
      {
        UpdateExpression: 'SET kind = :kind, expires_at = :expires ADD uses :one',
        ConditionExpression: 'attribute_not_exists(uses) OR uses < :limit',
        ExpressionAttributeValues: {
          ':kind': 'break_glass_uses',
          ':expires': epochSeconds(now) + 2 * 3600,
          ':one': 1,
          ':limit': limit,
        },
      },
    );
  }

  async clear(team: string, channel: string): Promise<void> {
    await this.#ctx.table.delete({
      TableName: this.#ctx.tableName,
      Key: { pk: keys.team(team), sk: keys.channelPolicy(channel) },
    });
  }
}

function toPolicy(item: z.infer<typeof ChannelPolicyItemSchema>): StoredChannelPolicy {
  return {
    ...item.policy,
    channel: item.channel_id,
    updatedBy: item.updated_by,
    updatedAt: new Date(item.updated_at),
  };
}
