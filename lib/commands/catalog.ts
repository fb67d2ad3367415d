import { CATALOG_OPERATIONS } from './catalog.generated.js';
import { type CommandOperation, type CommandRegistry, createRegistry } from './registry.js';

/**
 * The commands as the Slack function first meets them: every group and action with what help and
 * guardrails need, built from the generated catalog instead of the operations table, so `/cloud
 * help` and the bot's own commands load neither the table nor zod. Built like the full registry
 * (`operation-registry.ts`) from the same rows, it finds and suggests the same names.
 */
export const catalog: CommandRegistry<CommandOperation> =
  createRegistry<CommandOperation>(CATALOG_OPERATIONS);
