import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { StoreError } from './errors.js';
import { getParsed, isConditionFailure, listPrefixed, putNew, updateIf } from './items.js';
import { keys } from './keys.js';
import { epochSeconds, type StoreContext } from './store-context.js';
import '../zod-settings.js';

/**
 * Runbooks of a channel (a name and its ordered command lines) and their runs. A run is one item
 * replaced whole under a version condition: the run's state machine (`lib/changes/runbooks.ts`)
 * computes the next state, and only the writer that read the current version lands it, so a
 * step starts once however many events race to start it. Links from an approval request or a
 * status watch back to the step waiting on it are items of their own, so the approval and watch
 * records stay as they are.
 */

export const RUNBOOK_STEP_STATES = [
  'pending',
  'starting',
  'awaiting_approval',
  'running',
  'succeeded',
  'failed',
  'in_doubt',
  'cancelled',
  'skipped',
] as const;
export type RunbookStepState = (typeof RUNBOOK_STEP_STATES)[number];

export const RUNBOOK_RUN_STATES = ['running', 'succeeded', 'failed', 'cancelled'] as const;
export type RunbookRunState = (typeof RUNBOOK_RUN_STATES)[number];

export interface Runbook {
  readonly team: string;
  /** The channel whose runbook it is; null for the workspace's, found in every channel. */
  readonly channel: string | null;
  readonly name: string;
  readonly steps: readonly string[];
  readonly createdBy: string;
  readonly createdAt: Date;
}

export interface RunbookStep {
  /** The command line with the run's arguments in place of `$1`…`$9`. */
  readonly command: string;
  readonly state: RunbookStepState;
  /** Why it ended as it did, in words the thread shows. */
  readonly detail: string | null;
  readonly approvalId: string | null;
  readonly watchId: string | null;
}

export interface RunbookRun {
  readonly id: string;
  readonly team: string;
  readonly channel: string;
  readonly runbook: string;
  readonly args: readonly string[];
  readonly user: string;
  /** The run's message; every step speaks in its thread. */
  readonly threadTs: string | null;
  readonly state: RunbookRunState;
  /** The step now under way (or the one that ended the run). */
  readonly current: number;
  readonly steps: readonly RunbookStep[];
  readonly cancelledBy: string | null;
  readonly version: number;
  readonly startedAt: Date;
}

export interface RunbookStepLink {
  readonly runId: string;
  readonly step: number;
}

/** Runs stay readable for 30 days after they start, then TTL removes them. */
const RUN_RETENTION_SECONDS = 30 * 24 * 3600;

const RunbookItemSchema = z.object({
  kind: z.literal('runbook'),
  team_id: z.string(),
  channel_id: z.string().nullable(),
  name: z.string(),
  steps: z.array(z.string()).min(1),
  created_by: z.string(),
  created_at: z.iso.datetime(),
});

const StepSchema = z.object({
  command: z.string(),
  state: z.enum(RUNBOOK_STEP_STATES),
  detail: z.string().nullable(),
  approval_id: z.string().nullable(),
  watch_id: z.string().nullable(),
});

const RunItemSchema = z.object({
  kind: z.literal('runbook_run'),
  id: z.string(),
  team_id: z.string(),
  channel_id: z.string(),
  runbook: z.string(),
  args: z.array(z.string()),
  user_id: z.string(),
  thread_ts: z.string().nullable(),
  state: z.enum(RUNBOOK_RUN_STATES),
  current: z.number().int().min(0),
  steps: z.array(StepSchema).min(1),
  cancelled_by: z.string().nullable(),
  version: z.number().int().min(0),
  started_at: z.iso.datetime(),
});

const LinkItemSchema = z.object({
  kind: z.literal('runbook_link'),
  run_id: z.string(),
  step: z.number().int().min(0),
});

function runbookKey(channel: string | null, name: string): string {
  return channel === null ? keys.workspaceRunbook(name) : keys.runbook(channel, name);
}

function toRunbook(item: z.infer<typeof RunbookItemSchema>): Runbook {
  return {
    team: item.team_id,
    channel: item.channel_id,
    name: item.name,
    steps: item.steps,
    createdBy: item.created_by,
    createdAt: new Date(item.created_at),
  };
}

function toRun(item: z.infer<typeof RunItemSchema>): RunbookRun {
  return {
    id: item.id,
    team: item.team_id,
    channel: item.channel_id,
    runbook: item.runbook,
    args: item.args,
    user: item.user_id,
    threadTs: item.thread_ts,
    state: item.state,
    current: item.current,
    steps: item.steps.map((s) => ({
      command: s.command,
      state: s.state,
      detail: s.detail,
      approvalId: s.approval_id,
      watchId: s.watch_id,
    })),
    cancelledBy: item.cancelled_by,
    version: item.version,
    startedAt: new Date(item.started_at),
  };
}

function runFields(run: RunbookRun) {
  return {
    thread_ts: run.threadTs,
    state: run.state,
    current: run.current,
    steps: run.steps.map((s) => ({
      command: s.command,
      state: s.state,
      detail: s.detail,
      approval_id: s.approvalId,
      watch_id: s.watchId,
    })),
    cancelled_by: run.cancelledBy,
  };
}

export class RunbookRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** Adds a runbook; false when the channel has one by that name already. */
  async add(runbook: Omit<Runbook, 'createdAt'>): Promise<boolean> {
    try {
      await this.#ctx.table.put({
        TableName: this.#ctx.tableName,
        Item: this.#item(runbook),
        ConditionExpression: 'attribute_not_exists(pk)',
      });
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** The runbook of exactly this scope: a channel's, or the workspace's (`channel` null). */
  async get(team: string, channel: string | null, name: string): Promise<Runbook | undefined> {
    const key = { pk: keys.team(team), sk: runbookKey(channel, name) };
    const item = await getParsed(this.#ctx, key, RunbookItemSchema, 'runbook');
    return item && toRunbook(item);
  }

  /** The runbook `name` as `channel` sees it: its own, else the workspace's. */
  async find(team: string, channel: string, name: string): Promise<Runbook | undefined> {
    const [own, workspace] = await Promise.all([this.get(team, channel, name), this.get(team, null, name)]);
    return own ?? workspace;
  }

  /** A channel's runbooks, or the workspace's (`channel` null). */
  async list(team: string, channel: string | null): Promise<Runbook[]> {
    return this.#listPrefix(
      team,
      channel === null ? keys.workspaceRunbookPrefix : keys.runbookPrefix(channel),
    );
  }

  /** Every runbook of the team, the channels' and the workspace's (the settings document). */
  async listEvery(team: string): Promise<Runbook[]> {
    const [channels, workspace] = await Promise.all([
      this.#listPrefix(team, keys.channelRunbooksPrefix),
      this.#listPrefix(team, keys.workspaceRunbookPrefix),
    ]);
    return [...channels, ...workspace];
  }

  /** Sets a runbook's steps, adding it or replacing the one of that name in its scope. */
  async replace(runbook: Omit<Runbook, 'createdAt'>): Promise<void> {
    await this.#ctx.table.put({ TableName: this.#ctx.tableName, Item: this.#item(runbook) });
  }

  #item(runbook: Omit<Runbook, 'createdAt'>) {
    return {
      pk: keys.team(runbook.team),
      sk: runbookKey(runbook.channel, runbook.name),
      kind: 'runbook',
      team_id: runbook.team,
      channel_id: runbook.channel,
      name: runbook.name,
      steps: [...runbook.steps],
      created_by: runbook.createdBy,
      created_at: this.#ctx.now().toISOString(),
    };
  }

  async #listPrefix(team: string, prefix: string): Promise<Runbook[]> {
    const items = await listPrefixed(
      this.#ctx,
      { pk: keys.team(team), prefix },
      RunbookItemSchema,
      'runbook',
    );
    return items.map(toRunbook);
  }

  /** True when there was one to remove. */
  async remove(team: string, channel: string | null, name: string): Promise<boolean> {
    const result = await this.#ctx.table.delete({
      TableName: this.#ctx.tableName,
      Key: { pk: keys.team(team), sk: runbookKey(channel, name) },
      ReturnValues: 'ALL_OLD',
    });
    return result.Attributes !== undefined;
  }

  async createRun(
    input: Pick<RunbookRun, 'team' | 'channel' | 'runbook' | 'args' | 'user'> & {
      commands: readonly string[];
    },
  ): Promise<RunbookRun> {
    const id = randomUUID();
    const startedAt = this.#ctx.now();
    const item = {
      pk: keys.team(input.team),
      sk: keys.runbookRun(id),
      kind: 'runbook_run',
      id,
      team_id: input.team,
      channel_id: input.channel,
      runbook: input.runbook,
      args: [...input.args],
      user_id: input.user,
      thread_ts: null,
      state: 'running',
      current: 0,
      steps: input.commands.map((command) => ({
        command,
        state: 'pending',
        detail: null,
        approval_id: null,
        watch_id: null,
      })),
      cancelled_by: null,
      version: 0,
      started_at: startedAt.toISOString(),
      ttl: epochSeconds(startedAt) + RUN_RETENTION_SECONDS,
    };
    await putNew(this.#ctx, item);
    return toRun(RunItemSchema.parse(item));
  }

  async getRun(team: string, id: string): Promise<RunbookRun | undefined> {
    const key = { pk: keys.team(team), sk: keys.runbookRun(id) };
    const item = await getParsed(this.#ctx, key, RunItemSchema, 'runbook run');
    return item && toRun(item);
  }

  /**
   * The run whose id starts with `prefix` (people are shown its first 8 characters), when exactly
   * one of the team's runs does; undefined when none or several do.
   */
  async findRun(team: string, prefix: string): Promise<RunbookRun | undefined> {
    const result = await this.#ctx.table.query({
      TableName: this.#ctx.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.team(team), ':prefix': keys.runbookRun(prefix) },
      ProjectionExpression: 'pk, sk',
      Limit: 2,
    });
    const found = result.Items ?? [];
    const only = found.length === 1 ? found[0] : undefined;
    const id = typeof only?.sk === 'string' ? only.sk.slice(keys.runbookRunPrefix.length) : undefined;
    return id === undefined ? undefined : this.getRun(team, id);
  }

  /**
   * Writes `next` in place of the run as it was at `next.version - 1`; false when another writer
   * got there first (the caller reads the run again, or leaves it to whoever won).
   */
  async replaceRun(next: RunbookRun): Promise<boolean> {
    if (next.version < 1) throw new StoreError('invalid_key_part', 'A replaced run has a later version.');
    const fields = runFields(next);
    const names: Record<string, string> = { '#version': 'version' };
    const values: Record<string, unknown> = { ':version': next.version, ':previous': next.version - 1 };
    const sets = ['#version = :version'];
    for (const [field, value] of Object.entries(fields)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    return updateIf(
      this.#ctx,
      { pk: keys.team(next.team), sk: keys.runbookRun(next.id) },
      {
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: '#version = :previous',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    );
  }

  /** Marks an approval request or a status watch as one a run's step waits on. */
  async link(team: string, target: 'approval' | 'watch', id: string, link: RunbookStepLink): Promise<void> {
    await this.#ctx.table.put({
      TableName: this.#ctx.tableName,
      Item: {
        pk: keys.team(team),
        sk: keys.runbookLink(target, id),
        kind: 'runbook_link',
        run_id: link.runId,
        step: link.step,
        ttl: epochSeconds(this.#ctx.now()) + RUN_RETENTION_SECONDS,
      },
    });
  }

  async linkOf(team: string, target: 'approval' | 'watch', id: string): Promise<RunbookStepLink | undefined> {
    const key = { pk: keys.team(team), sk: keys.runbookLink(target, id) };
    const item = await getParsed(this.#ctx, key, LinkItemSchema, 'runbook link');
    return item && { runId: item.run_id, step: item.step };
  }
}
