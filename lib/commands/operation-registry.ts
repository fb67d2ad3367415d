import { operations } from '../api/operations/index.js';
import { type CommandRegistry, createRegistry } from './registry.js';

/**
 * The registry of the whole operations table and the bot's own commands: what parsing an
 * operation's arguments, its help with flags and its form start from. Loading it loads the table
 * and zod, so the Slack function reaches it only once a command names an operation.
 */
export const registry: CommandRegistry = createRegistry(operations);
