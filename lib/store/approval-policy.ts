import * as z from 'zod';
import { getParsed, parseItem } from './items.js';
import { keys } from './keys.js';
import { STEP_UP_REQUIREMENTS } from './step-up-requirements.js';
import type { StoreContext } from './store-context.js';
import type { ReadAhead } from './table.js';
import '../zod-settings.js';

/**
 * A workspace's approval policy: who may approve destructive operations, how many approvals
 * they need, whether requesters may approve their own requests, and how long a request waits.
 * A workspace that never set one gets the defaults.
 */

export { STEP_UP_REQUIREMENTS, type StepUpRequirement } from './step-up-requirements.js';

const SlackUserIdSchema = z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'a Slack user id (U… or W…)');

export const ApprovalPolicySchema = z.object({
  /** Users who may approve; with `approverGroup`, members of either may. */
  approverUsers: z.array(SlackUserIdSchema).max(100).default([]),
  /** A Slack user group id (`S…`) whose members may approve. */
  approverGroup: z
    .string()
    .regex(/^S[A-Z0-9]{2,}$/, 'a Slack user group id (S…)')
    .nullable()
    .default(null),
  requiredApprovals: z.number().int().min(1).max(10).default(1),
  allowSelfApproval: z.boolean().default(false),
  expiryMinutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .default(15),
  /** Users who may change this policy, besides the deployment's configured admins. */
  admins: z.array(SlackUserIdSchema).max(100).default([]),
  /** What proof a click on Approve, Deny or break-glass needs besides the click itself. */
  stepUp: z.enum(STEP_UP_REQUIREMENTS).default('none'),
  /** Whether a request must say why (`--reason`). */
  requireReason: z.boolean().default(false),
});
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = ApprovalPolicySchema.parse({});

const PolicyItemSchema = z.object({
  kind: z.literal('approval_policy'),
  approver_users: z.array(z.string()),
  approver_group: z.string().nullable(),
  required_approvals: z.number(),
  allow_self_approval: z.boolean(),
  expiry_minutes: z.number(),
  admins: z.array(z.string()),
  step_up: z.enum(STEP_UP_REQUIREMENTS).optional(),
  require_reason: z.boolean().optional(),
  updated_at: z.iso.datetime(),
  updated_by: z.string(),
});

export class ApprovalPolicyRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** The workspace's policy; from `read` when it asked for it (`Store.readAhead`). */
  async get(team: string, read?: ReadAhead): Promise<ApprovalPolicy> {
    const key = { pk: keys.team(team), sk: keys.policy };
    const item = await getParsed(this.#ctx, key, PolicyItemSchema, 'approval policy', read);
    if (item === undefined) return DEFAULT_APPROVAL_POLICY;
    return parseItem(
      ApprovalPolicySchema,
      {
        approverUsers: item.approver_users,
        approverGroup: item.approver_group,
        requiredApprovals: item.required_approvals,
        allowSelfApproval: item.allow_self_approval,
        expiryMinutes: item.expiry_minutes,
        admins: item.admins,
        stepUp: item.step_up ?? 'none',
        requireReason: item.require_reason ?? false,
      },
      'approval policy',
    );
  }

  /** Replaces the policy; fields left out take their defaults. Throws a `ZodError` on invalid input. */
  async put(
    team: string,
    policy: z.input<typeof ApprovalPolicySchema>,
    updatedBy: string,
  ): Promise<ApprovalPolicy> {
    const valid = ApprovalPolicySchema.parse(policy);
    await this.#ctx.table.put({
      TableName: this.#ctx.tableName,
      Item: {
        pk: keys.team(team),
        sk: keys.policy,
        kind: 'approval_policy',
        approver_users: valid.approverUsers,
        approver_group: valid.approverGroup,
        required_approvals: valid.requiredApprovals,
        allow_self_approval: valid.allowSelfApproval,
        expiry_minutes: valid.expiryMinutes,
        admins: valid.admins,
        step_up: valid.stepUp,
        require_reason: valid.requireReason,
        updated_at: this.#ctx.now().toISOString(),
        updated_by: updatedBy,
      },
    });
    return valid;
  }
}
