// @ts-check
// The sidebar and the channel header: the workspaces (with "Add to Slack"), who you are, the Home
// and Slackbot links and the channels, and switching who you are, the channel or to Slackbot.

import { node } from './dom.js';
import { els, loadedState, refresh, setStatus, ui } from './session.js';

export function renderSidebar() {
  const state = loadedState();
  els.workspace.textContent = state.team;
  // Switching workspace reloads the page there; "Add to Slack" goes through Slack's OAuth pages.
  els.teams.replaceChildren(
    ...state.teams.map((team) => {
      const row = node('div', 'workspace-row');
      const link = node('a', 'channel-link', team.name);
      link.href = `?${new URLSearchParams({ team: team.id, user: state.user })}`;
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
      link.href = `?${new URLSearchParams({ user: state.user, channel: channel.id })}`;
      link.dataset.testid = 'channel-link';
      link.dataset.channel = channel.id;
      link.dataset.channelName = channel.name;
      link.classList.toggle('active', ui.tab === 'channel' && channel.id === state.channel.id);
      return link;
    }),
  );
  const me = users.find((user) => user.id === state.user);
  els.homeLink.href = `?${new URLSearchParams({ user: state.user, channel: state.channel.id, tab: 'home' })}`;
  els.homeLink.classList.toggle('active', ui.tab === 'home');
  els.slackbotLink.href = `?${new URLSearchParams({ team: state.teamId, user: state.user, channel: state.channel.id, tab: 'slackbot' })}`;
  els.slackbotLink.classList.toggle('active', ui.tab === 'slackbot');
  els.channelName.textContent =
    ui.tab === 'home'
      ? 'Home · Cloud'
      : ui.tab === 'slackbot'
        ? 'Slackbot'
        : `${state.channel.isIm ? '@' : '#'}${state.channel.name}`;
  els.actingAs.textContent = me ? `as ${me.realName}` : '';
}

/** Switching who you are, or the channel, loads the page again as them or there. */
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
    ui.channel = link.dataset.channel ?? '';
    ui.tab = 'channel';
    ui.expanded.clear();
    ui.messageCount = -1;
    refresh();
  });
  // Slackbot's DM opens in place, so what was asked stays on the page while it is open; the tools
  // are listed again, as what Slackbot may do for the person can change from a channel.
  els.slackbotLink.addEventListener('click', (event) => {
    event.preventDefault();
    ui.tab = 'slackbot';
    ui.slackbot.toolsFor = '';
    ui.messageCount = -1;
    refresh();
  });
}
