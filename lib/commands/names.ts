/**
 * How a typed word is matched to a field and how a path parameter is shown, with nothing else
 * attached: the bot's own commands and the help of groups need these without the field shapes.
 */

/** `node_id`, `node-id`, `nodeId`, `Node-ID` → `node_id`: how flags are matched to fields. */
export function normalizeName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/-/g, '_');
}

/** `volumeId` → `<volumeId>`: a positional argument in usage lines and help. */
export function positionalName(param: string): string {
  return `<${param}>`;
}
