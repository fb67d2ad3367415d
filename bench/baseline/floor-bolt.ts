import { loadConfig } from '../../lib/config.js';
import { openTable } from '../../lib/runtime.js';
import { floorHandler } from './floor-app.js';

/**
 * The floor of the bot's cold start: the minimal Bolt app plus only what the bot cannot answer
 * `/cloud help` without — its configuration, checked by the bot's own `loadConfig`, and the
 * delivery claim, one conditional write through the bot's table client. Neither the commands,
 * the operations table nor the help text: whatever the bot's `/cloud help` costs above this
 * floor is what loading less of the bot could still save.
 */

const config = loadConfig(process.env);
export const handler = floorHandler(config, openTable(config, 'slack'));
