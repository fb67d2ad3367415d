import * as z from 'zod';
import { getParsed, listPrefixed } from './items.js';
import { COMMAND_NAME_PATTERN, keys } from './keys.js';
import type { StoreContext } from './store-context.js';
import '../zod-settings.js';

/**
 * Aliases of a channel and of the whole workspace (`/cloud alias add`). A channel's alias wins
 * over the workspace's of the same name. The name and expansion were checked by
 * `lib/commands/aliases.ts` before they reach here; the item schema bounds them again on the way
 * out, like every item.
 */

export type AliasScope =
  | { readonly kind: 'channel'; readonly channel: string }
  | { readonly kind: 'workspace' };

export interface StoredAlias {
  readonly name: string;
  readonly expansion: string;
  readonly scope: AliasScope;
  readonly createdBy: string;
  readonly createdAt: Date;
}

const AliasItemSchema = z.object({
  kind: z.literal('alias'),
  name: z.string().regex(COMMAND_NAME_PATTERN),
  expansion: z.string().min(1).max(500),
  channel_id: z.string().nullable(),
  created_by: z.string(),
  created_at: z.iso.datetime(),
});
type AliasItem = z.infer<typeof AliasItemSchema>;

export class AliasRepository {
  readonly #ctx: StoreContext;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  /** The alias `name` as `channel` sees it: its own, else the workspace's. */
  async find(team: string, channel: string, name: string): Promise<StoredAlias | undefined> {
    const [own, workspace] = await Promise.all([
      this.get(team, { kind: 'channel', channel }, name),
      this.get(team, { kind: 'workspace' }, name),
    ]);
    return own ?? workspace;
  }

  async get(team: string, scope: AliasScope, name: string): Promise<StoredAlias | undefined> {
    const item = await getParsed(
      this.#ctx,
      { pk: keys.team(team), sk: sortKey(scope, name) },
      AliasItemSchema,
      'alias',
    );
    return item && toAlias(item);
  }

  /** The channel's aliases and the workspace's, each sorted by name. */
  async list(team: string, channel: string): Promise<{ channel: StoredAlias[]; workspace: StoredAlias[] }> {
    const [own, workspace] = await Promise.all([
      this.#listPrefix(team, keys.channelAliasPrefix(channel)),
      this.#listPrefix(team, keys.workspaceAliasPrefix),
    ]);
    return { channel: own, workspace };
  }

  /** Every alias of the team, the channels' and the workspace's (the settings document). */
  async listEvery(team: string): Promise<StoredAlias[]> {
    return this.#listPrefix(team, keys.aliasPrefix);
  }

  /** Adds or replaces. */
  async put(
    team: string,
    scope: AliasScope,
    name: string,
    expansion: string,
    by: string,
  ): Promise<StoredAlias> {
    const item = {
      pk: keys.team(team),
      sk: sortKey(scope, name),
      kind: 'alias' as const,
      name,
      expansion,
      channel_id: scope.kind === 'channel' ? scope.channel : null,
      created_by: by,
      created_at: this.#ctx.now().toISOString(),
    };
    // A malformed alias never reaches the table.
    AliasItemSchema.parse(item);
    await this.#ctx.table.put({ TableName: this.#ctx.tableName, Item: item });
    return toAlias(item);
  }

  /** True when there was such an alias. */
  async remove(team: string, scope: AliasScope, name: string): Promise<boolean> {
    const result = await this.#ctx.table.delete({
      TableName: this.#ctx.tableName,
      Key: { pk: keys.team(team), sk: sortKey(scope, name) },
      ReturnValues: 'ALL_OLD',
    });
    return result.Attributes !== undefined;
  }

  async #listPrefix(team: string, prefix: string): Promise<StoredAlias[]> {
    const items = await listPrefixed(this.#ctx, { pk: keys.team(team), prefix }, AliasItemSchema, 'alias');
    return items.map(toAlias).sort((a, b) => a.name.localeCompare(b.name));
  }
}

function sortKey(scope: AliasScope, name: string): string {
  return scope.kind === 'channel' ? keys.channelAlias(scope.channel, name) : keys.workspaceAlias(name);
}

function toAlias(item: AliasItem): StoredAlias {
  return {
    name: item.name,
    expansion: item.expansion,
    scope: item.channel_id === null ? { kind: 'workspace' } : { kind: 'channel', channel: item.channel_id },
    createdBy: item.created_by,
    createdAt: new Date(item.created_at),
  };
}
