import * as z from 'zod';
import { OPERATION_CLASSES } from '../../api/operation.js';
import { ApprovalPolicySchema } from '../../store/approval-policy.js';
import { ApprovalRuleSchema, RULE_KEY_PATTERN } from '../../store/channel-policy.js';
import { COMMAND_NAME_PATTERN } from '../../store/keys.js';
import { REPORT_KIND_NAMES } from '../../store/report-kind-names.js';
import { BURST_AT_BOUNDS, FLAP_MINUTES_BOUNDS } from '../../store/report-noise-bounds.js';
import '../../zod-settings.js';

/**
 * The settings document of a workspace as people write it: YAML (`yaml-text.ts`) of this shape,
 * with names where people write them (`#ops`, `@alice`, `@oncall`), which `names.ts` resolves to
 * the ids the store keeps. It is the whole of what the workspace shares: what it leaves out is
 * removed, or back to its default, when it is applied. Never a token or a secret: a report names
 * whose token it runs with (its owner and profile), never the token.
 *
 * Every object is strict, so a misspelt key is an error with its line, not a setting ignored.
 * `npm run generate` publishes the JSON Schema of this shape for editors (`docs/settings.schema.json`,
 * through `jsonSchemaOf` in `lib/commands/field-shapes.ts`, the one reader of zod schemas).
 */

/** The format of the document; a later one would be read by its own schema. */
export const SETTINGS_FORMAT = 1;

/** How a person is written: `@alice`, `<@U0123ABC>` or the id `U0123ABC`. */
const PersonSchema = z.string().min(1).max(100).describe('A person: @handle, <@U…> or the user id U…');
/** How a user group is written: `@oncall`, `<!subteam^S0123|@oncall>` or the id `S0123`. */
const GroupSchema = z
  .string()
  .min(1)
  .max(100)
  .describe('A user group: @handle, <!subteam^S…> or the group id S…');
/** How a channel is written: `#ops`, `<#C0123ABC|ops>` or the id `C0123ABC`. */
export const ChannelNameSchema = z
  .string()
  .min(1)
  .max(100)
  .describe('A channel: #name, <#C…> or the channel id C…');

const CommandNameSchema = z
  .string()
  .regex(COMMAND_NAME_PATTERN, 'a name of lowercase letters, digits and dashes');

const AliasesSchema = z
  .record(CommandNameSchema, z.string().min(1).max(500))
  .describe('Alias name → the command it runs, without the slash command: `volumes delete $1`.');

const RunbooksSchema = z
  .record(CommandNameSchema, z.array(z.string().min(1).max(500)).min(1).max(20))
  .describe('Runbook name → its steps, each a command with $1…$9 for the run’s arguments.');

// The values the store keeps take the store's own bounds and defaults; the document names people.
const stored = ApprovalPolicySchema.shape;
const storedRule = ApprovalRuleSchema.shape;

export const ApprovalsSchema = z.strictObject({
  approvers: z.array(PersonSchema).max(100).default([]),
  approverGroup: GroupSchema.nullable().default(null),
  required: stored.requiredApprovals,
  selfApproval: stored.allowSelfApproval,
  expiryMinutes: stored.expiryMinutes,
  stepUp: stored.stepUp,
  requireReason: stored.requireReason,
  /** Who may change the workspace's settings, besides the deployment's admins. */
  admins: z.array(PersonSchema).max(100).default([]),
});

/** A rule overrides only what it sets; the rest comes from the class rule, then the workspace. */
const RuleSchema = z.strictObject({
  required: storedRule.requiredApprovals,
  approvers: z.array(PersonSchema).max(100).optional(),
  approverGroup: GroupSchema.nullable().optional(),
  selfApproval: storedRule.allowSelfApproval,
  expiryMinutes: storedRule.expiryMinutes,
  stepUp: storedRule.stepUp,
  requireReason: storedRule.requireReason,
});

const RuleKeySchema = z
  .string()
  .regex(RULE_KEY_PATTERN, 'a class (read, change, costs, destructive) or an operation id');

/** `every 15m`, `every 1h30m`, or `daily 09:00 Europe/Berlin` (each part read by `lib/reports/schedule.ts`). */
export const SCHEDULE_PATTERN = /^(every (\S{1,20})|daily (\S{1,5}) (\S{1,64}))$/;

/** `22:00-07:00 Europe/Berlin`: may wrap midnight. */
export const QUIET_HOURS_PATTERN = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d) (\S{1,64})$/;

const ReportSchema = z.strictObject({
  /** The subscription's id, as `/cloud reports list` shows it. */
  id: z.uuid(),
  kind: z.enum(REPORT_KIND_NAMES),
  /** Whose linked token the report runs with: only they subscribe with it, so it never changes here. */
  owner: PersonSchema,
  profile: z.string().min(1).max(32),
  schedule: z.string().regex(SCHEDULE_PATTERN, 'every 15m, every 1h30m, or daily 09:00 Europe/Berlin'),
  filter: z
    .record(z.string().regex(/^[a-z][a-z-]{0,39}$/), z.array(z.string().min(1).max(100)).max(50))
    .optional(),
  paused: z.boolean().default(false),
  quietHours: z
    .string()
    .regex(QUIET_HOURS_PATTERN, 'HH:MM-HH:MM and a time zone: 22:00-07:00 Europe/Berlin')
    .nullable()
    .optional(),
  /** New alerts in one run at or above which they post as one message with a thread. */
  burstAt: z.number().int().min(BURST_AT_BOUNDS.min).max(BURST_AT_BOUNDS.max).optional(),
  /** An issue closed and reopened within this many minutes is flapping, not new. */
  flapMinutes: z.number().int().min(FLAP_MINUTES_BOUNDS.min).max(FLAP_MINUTES_BOUNDS.max).optional(),
});

export const ChannelSettingsSchema = z.strictObject({
  /** Which classes of operations may run here; with any policy key, the channel has its own policy. */
  allow: z.array(z.enum(OPERATION_CLASSES)).min(1).optional(),
  rules: z.record(RuleKeySchema, RuleSchema).optional(),
  breakGlass: z
    .strictObject({ enabled: z.boolean(), people: z.array(PersonSchema).max(50).default([]) })
    .optional(),
  /** Where break-glass runs are announced besides the channel. */
  auditChannel: ChannelNameSchema.nullable().optional(),
  aliases: AliasesSchema.optional(),
  runbooks: RunbooksSchema.optional(),
  reports: z.array(ReportSchema).max(20).optional(),
});

export const SettingsDocumentSchema = z
  .strictObject({
    settings: z.literal(SETTINGS_FORMAT),
    workspace: z
      .strictObject({
        approvals: ApprovalsSchema.default(ApprovalsSchema.parse({})),
        aliases: AliasesSchema.default({}),
        runbooks: RunbooksSchema.default({}),
      })
      .default({ approvals: ApprovalsSchema.parse({}), aliases: {}, runbooks: {} }),
    channels: z.record(ChannelNameSchema, ChannelSettingsSchema).default({}),
  })
  .describe('The settings of one workspace of the cloud ChatOps bot.');

export type SettingsDocument = z.infer<typeof SettingsDocumentSchema>;
export type ChannelSettingsDocument = z.infer<typeof ChannelSettingsSchema>;
export type ReportDocument = z.infer<typeof ReportSchema>;
export type RuleDocument = z.infer<typeof RuleSchema>;
export type ApprovalsDocument = z.infer<typeof ApprovalsSchema>;
