import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { StoreError } from './errors.js';
import { parseItem } from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import '../zod-settings.js';

/**
 * The audit trail of every change made through the bot: who, what, on which target, under which
 * approval, and how it ended. Entries sort by time within a team, so the newest come first
 * without an index. Details are short texts written by the caller, never API payloads.
 */

export const AUDIT_RESULTS = [
  'requested',
  'approved',
  'denied',
  'cancelled',
  'expired',
  'succeeded',
  'failed',
  /** Sent, no clear answer: the bot is reading the target to find out. */
  'in_doubt',
  /** Still not known whether it happened when the bot stopped checking. */
  'unknown',
  /** Approved, but never started: nothing was run. */
  'not_run',
  /** Run without waiting for approvals, with a reason. */
  'break_glass',
] as const;
export type AuditResult = (typeof AUDIT_RESULTS)[number];

export interface AuditEntry {
  readonly id: string;
  readonly team: string;
  readonly at: Date;
  /** Slack user id of who did it. */
  readonly actor: string;
  /** Operation id (`volumes.delete`) or bot action (`login`, `policy.update`). */
  readonly action: string;
  /** What it acted on, e.g. `volume 12`. */
  readonly target: string | null;
  readonly approvalId: string | null;
  readonly result: AuditResult;
  readonly detail: string | null;
  /** The agent that acted for the actor (its client's name), when it came through one. */
  readonly viaAgent?: string | null;
}

export interface NewAuditEntry {
  readonly team: string;
  readonly actor: string;
  readonly action: string;
  readonly target?: string;
  readonly approvalId?: string;
  readonly result: AuditResult;
  readonly detail?: string;
  readonly viaAgent?: string | undefined;
}

export interface AuditPage {
  readonly entries: AuditEntry[];
  /** Pass back to `list` for the next (older) page; absent on the last page. */
  readonly nextCursor?: string;
}

const AuditItemSchema = z.object({
  kind: z.literal('audit_entry'),
  id: z.string(),
  team_id: z.string(),
  at: z.iso.datetime(),
  actor_user: z.string(),
  action: z.string(),
  target: z.string().nullable(),
  approval_id: z.string().nullable(),
  result: z.enum(AUDIT_RESULTS),
  detail: z.string().nullable(),
  via_agent: z.string().optional(),
  expires_at: z.number(),
});
type AuditItem = z.infer<typeof AuditItemSchema>;

const CursorSchema = z.object({ pk: z.string(), sk: z.string() });

const MAX_DETAIL_LENGTH = 1_000;
const MAX_AGENT_NAME_LENGTH = 100;
const DEFAULT_RETENTION_DAYS = 365;

export class AuditLogRepository {
  readonly #ctx: StoreContext;
  readonly #retentionSeconds: number;

  constructor(ctx: StoreContext, options: { retentionDays?: number } = {}) {
    this.#ctx = ctx;
    this.#retentionSeconds = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * 86_400;
  }

  async append(entry: NewAuditEntry): Promise<AuditEntry> {
    const at = this.#ctx.now();
    const id = randomUUID();
    const item = {
      pk: keys.team(entry.team),
      sk: keys.audit(at, id),
      kind: 'audit_entry',
      id,
      team_id: entry.team,
      at: at.toISOString(),
      actor_user: entry.actor,
      action: entry.action,
      target: entry.target ?? null,
      approval_id: entry.approvalId ?? null,
      result: entry.result,
      detail: entry.detail?.slice(0, MAX_DETAIL_LENGTH) ?? null,
      ...(entry.viaAgent === undefined ? {} : { via_agent: entry.viaAgent.slice(0, MAX_AGENT_NAME_LENGTH) }),
      expires_at: epochSeconds(at) + this.#retentionSeconds,
    } satisfies AuditItem & Record<string, unknown>;
    await this.#ctx.table.put({ TableName: this.#ctx.tableName, Item: item });
    return toEntry(item);
  }

  /** A team's entries, newest first. A page may hold fewer than `limit` when some are past retention. */
  async list(team: string, options: { limit?: number; cursor?: string } = {}): Promise<AuditPage> {
    const pk = keys.team(team);
    const result = await this.#ctx.table.query({
      TableName: this.#ctx.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': keys.auditPrefix },
      ScanIndexForward: false,
      Limit: options.limit ?? 20,
      ExclusiveStartKey: options.cursor === undefined ? undefined : decodeCursor(options.cursor, pk),
    });
    const now = epochSeconds(this.#ctx.now());
    const entries = (result.Items ?? [])
      .map((raw) => parseItem(AuditItemSchema, raw, 'audit entry'))
      // Past retention but not yet removed by TTL.
      .filter((item) => item.expires_at > now)
      .map(toEntry);
    const last = result.LastEvaluatedKey;
    return last ? { entries, nextCursor: encodeCursor(last) } : { entries };
  }
}

function toEntry(item: AuditItem): AuditEntry {
  return {
    id: item.id,
    team: item.team_id,
    at: new Date(item.at),
    actor: item.actor_user,
    action: item.action,
    target: item.target,
    approvalId: item.approval_id,
    result: item.result,
    detail: item.detail,
    viaAgent: item.via_agent ?? null,
  };
}

function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(CursorSchema.parse(key))).toString('base64url');
}

/** Cursors travel through Slack buttons: one naming another team's entries is refused. */
function decodeCursor(cursor: string, pk: string): z.infer<typeof CursorSchema> {
  try {
    const key = CursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (key.pk === pk && key.sk.startsWith(keys.auditPrefix)) return key;
  } catch {
    // Reported below, the same way as a cursor of another team.
  }
  throw new StoreError('invalid_key_part', 'Invalid audit cursor.');
}
