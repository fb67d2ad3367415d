import type { SlackStore, StoredMessage } from '../../infra/local/slack/store.js';

/**
 * The last message posted at the top of `channel` (not in a thread) whose blocks contain `text`:
 * an approval card by its action id (`ActionId.approve`), or a card by what it names.
 */
export function lastCardWith(store: SlackStore, channel: string, text: string): StoredMessage | undefined {
  return store
    .messages(channel)
    .filter((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(text))
    .at(-1);
}
