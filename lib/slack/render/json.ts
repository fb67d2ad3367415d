import type { KnownBlock } from '@slack/types';
import { type AnyOperation, PAGE_SIZE_MIN } from '../../api/operation.js';
import { SLASH_COMMAND } from '../../commands/registry.js';
import { codeSections, contextBlock, type RenderedMessage } from '../../slack-kit/blocks.js';
import { codeSpan, formatNumber } from '../../slack-kit/text.js';
import { withoutSecretFields } from './items.js';

/** Characters of JSON a message shows at most (escaped), split over sections of at most 3,000. */
export const JSON_BUDGET = 9000;

export interface JsonOptions {
  /** Show secret fields as they are: only for replies that are sent ephemerally. */
  keepSecrets?: boolean;
}

/** A result as pretty-printed JSON (`--json`), cut visibly when it does not fit one message. */
export function renderJson(op: AnyOperation, output: unknown, options: JsonOptions = {}): RenderedMessage {
  const value = options.keepSecrets ? output : withoutSecretFields(output);
  const json = JSON.stringify(value, null, 2) ?? 'null';
  const { sections, complete } = codeSections(json, JSON_BUDGET);
  const title = `${SLASH_COMMAND} ${op.group} ${op.action}`;
  const blocks: KnownBlock[] = [contextBlock(`${codeSpan(title)} as JSON`), ...sections];
  if (!complete) {
    blocks.push(
      contextBlock(
        `:scissors: Cut short: the JSON is ${formatNumber(json.length)} characters and a Slack message holds about ${formatNumber(JSON_BUDGET)}. ${askForLess(op, output)}`,
      ),
    );
  }
  return { text: `${title} as JSON`, blocks };
}

/** Only what the bot accepts: a page size down to the API's least, the file of `--all` for lists. */
function askForLess(op: AnyOperation, output: unknown): string {
  if (!op.paginated) return 'Ask for less to see the rest.';
  const data = (output as { data?: unknown } | null)?.data;
  const shown = Array.isArray(data) ? data.length : 0;
  const smaller =
    op.pageParams && shown > PAGE_SIZE_MIN ? `, a smaller \`--page-size\` (${PAGE_SIZE_MIN} at least)` : '';
  return `Ask for less (a filter${smaller}) to see the rest, or use \`--all\` without \`--json\` for the whole list as a file.`;
}
