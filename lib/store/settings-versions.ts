import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { StoreError } from './errors.js';
import { getParsed, isConditionFailure, isTransactionCanceled, parseListedItem, putNew } from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import '../zod-settings.js';

/**
 * The versions of a workspace's settings document (`lib/core/settings/`): each applied document is
 * kept whole, numbered from 1, with who applied it, how, and under which request; the head names
 * the newest. A version is written in one transaction with the head moving from the version the
 * writer read, so two applies racing cannot both land as the same number. A proposal is a document
 * waiting for its request's approval, kept apart so the request stores only its id.
 *
 * Documents are stored as the core's canonical JSON text (ids, not names): what the store keeps is
 * what was applied, byte for byte, and its digest says whether today's settings are still it.
 */

/** A document larger than this is refused before it is stored (an item holds at most 400 KB). */
export const MAX_SETTINGS_BYTES = 300_000;

/**
 * How a version came: applied from Slack, from CI, a rollback, or the settings as the commands had
 * left them, kept just before an apply so that a rollback can return to them.
 */
export const SETTINGS_SOURCES = ['slack', 'ci', 'rollback', 'commands'] as const;
export type SettingsSource = (typeof SETTINGS_SOURCES)[number];

export interface SettingsVersion {
  readonly version: number;
  /** The canonical JSON of the settings as applied. */
  readonly settings: string;
  readonly digest: string;
  readonly appliedBy: string;
  readonly appliedAt: Date;
  readonly source: SettingsSource;
  /** The request whose approval applied it (Slack and rollbacks). */
  readonly approvalId: string | null;
  /** The version a rollback restored. */
  readonly rollbackOf: number | null;
  /** How many settings it changed. */
  readonly changes: number;
}

export interface SettingsProposal {
  readonly id: string;
  readonly settings: string;
  /** The digest of the settings the proposal was planned against. */
  readonly baseDigest: string;
  readonly proposedBy: string;
  readonly rollbackOf: number | null;
  readonly createdAt: Date;
}

/** Proposals wait at most as long as a request may (a day), and a day more for the run. */
const PROPOSAL_RETENTION_SECONDS = 2 * 24 * 3600;

const HeadItemSchema = z.object({
  kind: z.literal('settings_head'),
  version: z.number().int().min(1),
});

const VersionItemSchema = z.object({
  kind: z.literal('settings_version'),
  version: z.number().int().min(1),
  settings: z.string().max(MAX_SETTINGS_BYTES),
  digest: z.string().regex(/^[a-f0-9]{64}$/),
  applied_by: z.string(),
  applied_at: z.iso.datetime(),
  source: z.enum(SETTINGS_SOURCES),
  approval_id: z.string().nullable(),
  rollback_of: z.number().int().min(1).nullable(),
  changes: z.number().int().min(0),
});

const ProposalItemSchema = z.object({
  kind: z.literal('settings_proposal'),
  id: z.string(),
  settings: z.string().max(MAX_SETTINGS_BYTES),
  base_digest: z.string().regex(/^[a-f0-9]{64}$/),
  proposed_by: z.string(),
  rollback_of: z.number().int().min(1).nullable(),
  created_at: z.iso.datetime(),
});

export type NewSettingsVersion = Omit<SettingsVersion, 'version' | 'appliedAt'>;

export class SettingsVersionRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** The newest version's number; 0 when no document was ever applied. */
  async headVersion(team: string): Promise<number> {
    const head = await getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.settingsHead },
      HeadItemSchema,
      'settings head',
    );
    return head?.version ?? 0;
  }

  async get(team: string, version: number): Promise<SettingsVersion | undefined> {
    const item = await getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.settingsVersion(version) },
      VersionItemSchema,
      'settings version',
    );
    return item && toVersion(item);
  }

  /** The newest versions first, at most `limit`. */
  async list(team: string, limit: number): Promise<SettingsVersion[]> {
    const page = await this.#ctx.table.query({
      TableName: this.#ctx.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.team(team), ':prefix': keys.settingsVersionPrefix },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    });
    return (page.Items ?? []).flatMap((raw) => {
      const item = parseListedItem(VersionItemSchema, raw, 'settings version');
      return item ? [toVersion(item)] : [];
    });
  }

  /**
   * Records `next` as the version after `after` (0: the first), in one transaction with the head:
   * false when another version was recorded since `after` was read, and nothing is written then.
   */
  async record(team: string, after: number, next: NewSettingsVersion): Promise<SettingsVersion | false> {
    if (Buffer.byteLength(next.settings) > MAX_SETTINGS_BYTES) {
      throw new StoreError('invalid_key_part', 'A settings document is too large to keep.');
    }
    const version = after + 1;
    const appliedAt = this.#ctx.now();
    const item = {
      pk: keys.team(team),
      sk: keys.settingsVersion(version),
      kind: 'settings_version' as const,
      version,
      settings: next.settings,
      digest: next.digest,
      applied_by: next.appliedBy,
      applied_at: appliedAt.toISOString(),
      source: next.source,
      approval_id: next.approvalId,
      rollback_of: next.rollbackOf,
      changes: next.changes,
    };
    try {
      await this.#ctx.table.transactWrite({
        TransactItems: [
          {
            Update: {
              TableName: this.#ctx.tableName,
              Key: { pk: keys.team(team), sk: keys.settingsHead },
              UpdateExpression: 'SET kind = :kind, version = :version',
              ConditionExpression: after === 0 ? 'attribute_not_exists(version)' : 'version = :after',
              ExpressionAttributeValues: {
                ':kind': 'settings_head',
                ':version': version,
                ...(after === 0 ? {} : { ':after': after }),
              },
            },
          },
          {
            Put: {
              TableName: this.#ctx.tableName,
              Item: item,
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      });
    } catch (error) {
      if (isTransactionConflict(error)) {
        // A resend of this very write after a lost answer finds its own version in place.
        const landed = await this.get(team, version);
        if (landed && landed.digest === next.digest && landed.approvalId === next.approvalId) return landed;
        return false;
      }
      throw error;
    }
    return toVersion(item);
  }

  /** Keeps a document waiting for its request's approval; answers its id. */
  async propose(team: string, proposal: Omit<SettingsProposal, 'id' | 'createdAt'>): Promise<string> {
    if (Buffer.byteLength(proposal.settings) > MAX_SETTINGS_BYTES) {
      throw new StoreError('invalid_key_part', 'A settings document is too large to keep.');
    }
    const id = randomUUID();
    const now = this.#ctx.now();
    await putNew(this.#ctx, {
      pk: keys.team(team),
      sk: keys.settingsProposal(id),
      kind: 'settings_proposal',
      id,
      settings: proposal.settings,
      base_digest: proposal.baseDigest,
      proposed_by: proposal.proposedBy,
      rollback_of: proposal.rollbackOf,
      created_at: now.toISOString(),
      expires_at: epochSeconds(now) + PROPOSAL_RETENTION_SECONDS,
    });
    return id;
  }

  async proposal(team: string, id: string): Promise<SettingsProposal | undefined> {
    const item = await getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: keys.settingsProposal(id) },
      ProposalItemSchema,
      'settings proposal',
    );
    return (
      item && {
        id: item.id,
        settings: item.settings,
        baseDigest: item.base_digest,
        proposedBy: item.proposed_by,
        rollbackOf: item.rollback_of,
        createdAt: new Date(item.created_at),
      }
    );
  }
}

/** A transaction refused because a condition failed (DynamoDB names each item's reason). */
function isTransactionConflict(error: unknown): boolean {
  return isConditionFailure(error) || isTransactionCanceled(error);
}

function toVersion(item: z.infer<typeof VersionItemSchema>): SettingsVersion {
  return {
    version: item.version,
    settings: item.settings,
    digest: item.digest,
    appliedBy: item.applied_by,
    appliedAt: new Date(item.applied_at),
    source: item.source,
    approvalId: item.approval_id,
    rollbackOf: item.rollback_of,
    changes: item.changes,
  };
}
