// @ts-check
// The Slack sandbox page in the browser: renders what the bot posts as Block Kit and acts only
// through the page server's API (which signs every request as Slack would). Plain ES modules, no
// build step: `html.ts` loads this one and the page server serves the folder. This module loads
// what the acting person sees and draws every part of the page from it; each part is a module:
//   sidebar.js      workspaces, who you are, the Home link, channels, the channel header
//   monitoring.js   the cloud emulator's issues, outside Slack
//   messages.js     the channel's messages and threads (home.js: the Home tab instead;
//                   slackbot.js: the DM with Slackbot, and its form in place of the composer;
//                   tool-arguments.js: what is typed there, checked before sending)
//   modal.js        the open modal
//   composer.js     the slash-command box (completion.js: what it suggests)
//   blocks.js       Block Kit blocks in any of them (block-elements.js, block-text.js)
//   mrkdwn.js       text as escaped HTML (slack-dates.js, emoji.js, escaping.js)
//   session.js      what the parts share: state, status line, calls to the page server
//   dom.js          finding and making elements
// Type-checked with the DOM library by `tsconfig.json` next to the folder (`npm run typecheck`).

import { loadCommands, wireComposer } from './composer.js';
import { openHome } from './home.js';
import { renderMessages } from './messages.js';
import { renderModal } from './modal.js';
import { loadMonitoring, wireMonitoring } from './monitoring.js';
import {
  addressOf,
  connectEvents,
  els,
  messageOf,
  refreshWith,
  scheduleRefresh,
  setStatus,
  ui,
} from './session.js';
import { renderSidebar, wireSidebar } from './sidebar.js';
import { loadSlackbotTools, renderSlackbotForm, wireSlackbot } from './slackbot.js';

/** @typedef {import('../client-api.js').ClientRefusal} ClientRefusal */
/** @typedef {import('../client-api.js').ClientState} ClientState */

/** Loads what the acting person sees (the channel or the Home tab) and draws the page from it. */
async function refreshPage() {
  const ticket = ++ui.refreshes;
  const query = new URLSearchParams();
  if (ui.team) query.set('team', ui.team);
  if (ui.user) query.set('user', ui.user);
  if (ui.channel) query.set('channel', ui.channel);
  /** @type {ClientState} */
  let state;
  try {
    const response = await fetch(`/api/state?${query}`);
    if (!response.ok) {
      /** @type {ClientRefusal} */
      const refusal = await response.json();
      setStatus(refusal.error ?? `HTTP ${response.status}`, 'error');
      if (ui.user || ui.channel || ui.team) {
        ui.team = '';
        ui.user = '';
        ui.channel = '';
        scheduleRefresh();
      }
      return;
    }
    state = await response.json();
  } catch (error) {
    setStatus(`Could not load the channel (${messageOf(error)}).`, 'error');
    return;
  }
  if (ticket !== ui.refreshes) return;
  ui.state = state;
  const moved = ui.user !== state.user || ui.channel !== state.channel.id;
  ui.team = state.teamId;
  ui.user = state.user;
  ui.channel = state.channel.id;
  // Completion is fitted to who is typing and where: reload it when either changes.
  if (moved || !ui.commandsFor) loadCommands();
  // The same history entry, now naming what the server filled in (the default workspace, person
  // and channel): moving somewhere is a new entry, made where the move is (`sidebar.js`).
  history.replaceState(null, '', addressOf(ui));
  render();
  // Opening Home as someone (again, after switching who you are) is what tells the app.
  const seat = `${ui.team} ${ui.user}`;
  if (ui.tab === 'home' && ui.homeOpenedFor !== seat) {
    ui.homeOpenedFor = seat;
    openHome();
  }
  // Slackbot lists its tools for the person asking; another person has their own.
  if (ui.tab === 'slackbot' && ui.slackbot.toolsFor !== seat) loadSlackbotTools(seat);
  // Services change with the bot's actions too (a "Disable monitoring" button).
  if (!els.monitoring.hidden) loadMonitoring();
}

function render() {
  renderSidebar();
  renderMessages();
  renderSlackbotForm();
  renderModal();
}

refreshWith(refreshPage);
wireComposer();
wireMonitoring();
wireSidebar();
wireSlackbot();
connectEvents();
loadCommands();
loadMonitoring();
refreshPage();
