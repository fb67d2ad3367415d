// @ts-check
// The app's Home tab, shown instead of the channel: what the app last published for this person,
// and opening it, which tells the app as Slack does.

import { blocksElement } from './blocks.js';
import { node } from './dom.js';
import { els, loadedState, post, report, scheduleRefresh, setStatus, ui } from './session.js';

export function renderHome() {
  const list = els.messages;
  const { home } = loadedState();
  const tab = node('div', 'home-tab');
  tab.dataset.testid = 'home-tab';
  if (home) {
    tab.dataset.viewId = home.id;
    tab.append(blocksElement(home.blocks, { interactive: true, homeView: home.id }));
  } else {
    tab.append(node('div', 'empty', 'The app has not published a Home tab for you yet.'));
  }
  list.replaceChildren(tab);
  ui.messageCount = -1;
  list.dataset.ready = 'true';
}

/** Opening the Home tab: Slack tells the app (`app_home_opened`), which publishes it. */
export async function openHome() {
  setStatus('Opening Home…', 'pending');
  const result = await post('/api/home', { user: ui.user });
  report('Opened Home', result);
  scheduleRefresh();
}
