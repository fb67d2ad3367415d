import { expect } from 'vitest';
import type { StoredMessage } from '../../infra/local/slack/store.js';
import { lastCardWith } from './cards.js';
import { CHANNEL, type E2E } from './e2e.js';

/**
 * `user` (an admin) exports the workspace's settings, lengthens the approval expiry by five
 * minutes and imports the document through the form: the approval card it posted in CHANNEL.
 */
export async function requestLongerExpiry(e2e: E2E, user: string): Promise<StoredMessage> {
  const files = () => e2e.stack.standIn.store.files().filter((f) => f.name.startsWith('settings-'));
  await e2e.command(user, 'settings export');
  const exported = files().at(-1)?.bytes?.toString('utf8');
  if (!exported) throw new Error(`no settings file sent to ${user}`);
  const minutes = Number(/expiryMinutes: (\d+)/.exec(exported)?.[1]);
  expect(minutes).toBeGreaterThan(0);
  await e2e.command(user, 'settings import');
  const form = e2e.openView(user);
  if (!form) throw new Error(`no import form opened for ${user}`);
  const edited = exported.replace(/expiryMinutes: \d+/, `expiryMinutes: ${minutes + 5}`);
  const submitted = await e2e.stack.workspace.submitView(user, form, {
    document: { document_input: edited },
  });
  await e2e.stack.drain();
  expect(submitted.body).toBe('');
  const card = lastCardWith(e2e.stack.standIn.store, CHANNEL, 'expiryMinutes');
  if (!card) throw new Error('no approval card for the settings change');
  return card;
}
