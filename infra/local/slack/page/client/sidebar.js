// @ts-check
// The sidebar and the channel header: the workspaces (with "Add to Slack"), who you are, the Home
// and Slackbot links and the channels, and switching who you are, the channel, to Home or to
// Slackbot. Each link's address names the whole place (workspace, person, channel, tab), and
// following one is an entry in the browser's history, so Back and a reload return to it.

import { node } from './dom.js';
import { addressOf, els, loadedState, placeOf, refresh, setStatus, ui } from './session.js';

/** @typedef {import('./session.js').SandboxPlace} SandboxPlace */

export function renderSidebar() {
  const state = loadedState();
  els.workspace.textContent = state.team;
  // Switching workspace reloads the page there; "Add to Slack" goes through Slack's OAuth pages.
  els.teams.replaceChildren(
    ...state.teams.map((team) => {
      const row = node('div', 'workspace-row');
      const link = node('a', 'channel-link', team.name);
      link.href = addressOf({ team: team.id, user: state.user, channel: '', tab: 'channel' });
      link.dataset.testid = 'workspace-link';
      link.dataset.team = team.id;
      link.classList.toggle('active', team.id === state.teamId);
      row.append(link);
      if (!team.installed && team.installUrl) {
        const add = node('a', 'add-to-slack', 'Add to Slack');
        // The bot's install page for this workspace: Slack's authorize page opens on it.
        add.href = team.installUrl;
        add.dataset.testid = 'add-to-slack';
        add.dataset.team = team.id;
        row.append(add);
      }
      return row;
    }),
  );
  const users = state.users.filter((user) => !user.isBot);
  els.users.replaceChildren(
    ...users.map((user) => {
      const option = node('option', '', `${user.realName} (${user.id})`);
      option.value = user.id;
      option.selected = user.id === state.user;
      return option;
    }),
  );
  els.channels.replaceChildren(
    ...state.channels.map((channel) => {
      const link = node('a', 'channel-link', `${channel.isIm ? '@ ' : '# '}${channel.name}`);
      link.href = addressOf({ team: state.teamId, user: state.user, channel: channel.id, tab: 'channel' });
      link.dataset.testid = 'channel-link';
      link.dataset.channel = channel.id;
      link.dataset.channelName = channel.name;
      link.classList.toggle('active', ui.tab === 'channel' && channel.id === state.channel.id);
      return link;
    }),
  );
  const me = users.find((user) => user.id === state.user);
  const here = { team: state.teamId, user: state.user, channel: state.channel.id };
  els.homeLink.href = addressOf({ ...here, tab: 'home' });
  els.homeLink.classList.toggle('active', ui.tab === 'home');
  els.slackbotLink.href = addressOf({ ...here, tab: 'slackbot' });
  els.slackbotLink.classList.toggle('active', ui.tab === 'slackbot');
  els.channelName.textContent =
    ui.tab === 'home'
      ? 'Home · Cloud'
      : ui.tab === 'slackbot'
        ? 'Slackbot'
        : `${state.channel.isIm ? '@' : '#'}${state.channel.name}`;
  els.actingAs.textContent = me ? `as ${me.realName}` : '';
}

/**
 * Shows `place` in the page as it stands: what belongs to the view left (open threads, the scroll
 * position) is dropped, and opening Home or Slackbot's DM is news to them again (Home tells the
 * app, as Slack does each time the tab is opened; Slackbot lists its tools anew).
 * @param {SandboxPlace} place
 */
function show(place) {
  ui.team = place.team;
  ui.user = place.user;
  ui.channel = place.channel;
  ui.tab = place.tab;
  ui.expanded.clear();
  ui.messageCount = -1;
  if (place.tab === 'home') ui.homeOpenedFor = '';
  if (place.tab === 'slackbot') ui.slackbot.toolsFor = '';
  refresh();
}

/**
 * Follows a link of the sidebar in place, as a new history entry: the page keeps what is typed
 * and what was asked of Slackbot, and Back returns to where the person was.
 * @param {Partial<SandboxPlace>} change
 */
function go(change) {
  const place = { team: ui.team, user: ui.user, channel: ui.channel, tab: ui.tab, ...change };
  history.pushState(null, '', addressOf(place));
  show(place);
}

/** Switching who you are, the channel, Home or Slackbot; Back and Forward between them. */
export function wireSidebar() {
  els.users.addEventListener('change', () => {
    ui.user = els.users.value;
    ui.expanded.clear();
    ui.messageCount = -1;
    setStatus(`You are now ${els.users.selectedOptions[0]?.textContent ?? ui.user}.`);
    refresh();
  });
  els.channels.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('[data-channel]') : null;
    if (!(link instanceof HTMLElement)) return;
    event.preventDefault();
    go({ channel: link.dataset.channel ?? '', tab: 'channel' });
  });
  els.homeLink.addEventListener('click', (event) => {
    event.preventDefault();
    go({ tab: 'home' });
  });
  // Slackbot's DM opens in place, so what was asked stays on the page while it is open.
  els.slackbotLink.addEventListener('click', (event) => {
    event.preventDefault();
    go({ tab: 'slackbot' });
  });
  window.addEventListener('popstate', () => show(placeOf(location.search)));
}
