// @ts-check
// What every part of the page shares: the page's elements, who it acts as and where (`ui`, with
// the state the server last sent), the status line, and the calls to the page server (actions,
// the stream of changes, refreshing).

import { required } from './dom.js';

/** @typedef {import('../client-api.js').ClientActionResult} ClientActionResult */
/** @typedef {import('../client-api.js').ClientCompletionData} ClientCompletionData */
/** @typedef {import('../client-api.js').ClientSlackbotAnswer} ClientSlackbotAnswer */
/** @typedef {import('../client-api.js').ClientSlackbotTool} ClientSlackbotTool */
/** @typedef {import('../client-api.js').ClientState} ClientState */
/** @typedef {import('./completion.js').Completion} Completion */

/**
 * What the main area shows: the channel, the app's Home tab, or the DM with Slackbot.
 * @typedef {'channel' | 'home' | 'slackbot'} SandboxTab
 */

/**
 * One turn of the DM with Slackbot: what the person asked, or what came back.
 * @typedef {{ from: 'you'; tool: string; args: string }
 *   | { from: 'slackbot'; answer: ClientSlackbotAnswer }
 *   | { from: 'slackbot'; error: string }} SlackbotTurn
 */

/**
 * The Slackbot panel: the tools listed for `toolsFor` (`${team} ${user}`), and the DM so far.
 * @typedef {object} SlackbotUi
 * @property {ClientSlackbotTool[]} tools
 * @property {string} toolsFor
 * @property {SlackbotTurn[]} turns
 * @property {string} turnsFor Whose DM `turns` is: `${team} ${user}`.
 * @property {string} template The arguments the panel last filled in for the chosen tool.
 */

/**
 * @typedef {object} SandboxUi
 * @property {string} team
 * @property {string} user
 * @property {string} channel
 * @property {SandboxTab} tab
 * @property {string} homeOpenedFor Whose Home was last opened: `${team} ${user}`.
 * @property {ClientState | undefined} state
 * @property {ClientCompletionData} commands
 * @property {string} commandsFor Who and where `commands` was fitted to: `${user} ${channel}`.
 * @property {Set<string>} expanded Threads opened, by their parent's ts.
 * @property {{ items: Completion[]; active: number }} completion
 * @property {string} modalKey
 * @property {number} messageCount
 * @property {number} refreshes
 * @property {string[]} history
 * @property {number} historyIndex
 * @property {SlackbotUi} slackbot
 */

/**
 * @template {Element} T
 * @param {string} id
 * @param {new () => T} kind
 */
function byTestId(id, kind) {
  return required(document, `[data-testid="${id}"]`, kind);
}

/** The elements of the page's markup (`html.ts`) the parts draw into and listen to. */
export const els = {
  workspace: byTestId('workspace-name', HTMLElement),
  teams: byTestId('workspace-list', HTMLElement),
  users: byTestId('user-picker', HTMLSelectElement),
  channels: byTestId('channel-list', HTMLElement),
  homeLink: byTestId('home-link', HTMLAnchorElement),
  slackbotLink: byTestId('slackbot-link', HTMLAnchorElement),
  channelName: byTestId('channel-name', HTMLElement),
  actingAs: byTestId('acting-as', HTMLElement),
  connection: byTestId('connection', HTMLElement),
  messages: byTestId('message-list', HTMLElement),
  form: byTestId('command-form', HTMLFormElement),
  input: byTestId('command-input', HTMLInputElement),
  send: byTestId('command-send', HTMLButtonElement),
  completions: byTestId('completions', HTMLElement),
  limit: byTestId('composer-limit', HTMLElement),
  usage: byTestId('usage', HTMLElement),
  status: byTestId('status', HTMLElement),
  modal: byTestId('modal-backdrop', HTMLElement),
  monitoring: byTestId('monitoring', HTMLElement),
  issueForm: byTestId('issue-form', HTMLFormElement),
  issueService: byTestId('issue-service', HTMLSelectElement),
  issueSummary: byTestId('issue-summary', HTMLInputElement),
  issueRaise: byTestId('issue-raise', HTMLButtonElement),
  issues: byTestId('issue-list', HTMLElement),
  slackbotForm: byTestId('slackbot-form', HTMLFormElement),
  slackbotTool: byTestId('slackbot-tool', HTMLSelectElement),
  slackbotHelp: byTestId('slackbot-help', HTMLElement),
  slackbotArguments: byTestId('slackbot-arguments', HTMLTextAreaElement),
  slackbotSend: byTestId('slackbot-send', HTMLButtonElement),
};
/**
 * Where the page is: the workspace, who you are, the channel, and what the main area shows. The
 * page's address holds all four, so a reload, a copied link or Back returns to the same place.
 * @typedef {{ team: string; user: string; channel: string; tab: SandboxTab }} SandboxPlace
 */

/** @param {string | null} tab @returns {SandboxTab} */
function tabOf(tab) {
  return tab === 'home' || tab === 'slackbot' ? tab : 'channel';
}

/**
 * The place an address names (empty where it names none: the page server picks the default).
 * @param {string} search
 * @returns {SandboxPlace}
 */
export function placeOf(search) {
  const params = new URLSearchParams(search);
  return {
    team: params.get('team') ?? '',
    user: params.get('user') ?? '',
    channel: params.get('channel') ?? '',
    tab: tabOf(params.get('tab')),
  };
}

/**
 * The address of a place; the channel is the main area unless `tab` says otherwise.
 * @param {SandboxPlace} place
 */
export function addressOf(place) {
  const query = new URLSearchParams();
  if (place.team) query.set('team', place.team);
  if (place.user) query.set('user', place.user);
  if (place.channel) query.set('channel', place.channel);
  if (place.tab !== 'channel') query.set('tab', place.tab);
  return `?${query}`;
}

/** @type {SandboxUi} */
export const ui = {
  ...placeOf(location.search),
  homeOpenedFor: '',
  state: undefined,
  commands: { command: '/cloud', topics: [] },
  commandsFor: '',
  expanded: new Set(),
  completion: { items: [], active: -1 },
  modalKey: '',
  messageCount: -1,
  refreshes: 0,
  history: [],
  historyIndex: -1,
  slackbot: { tools: [], toolsFor: '', turns: [], turnsFor: '', template: '' },
};

/** Rendering starts once the first state has arrived; before that it is a bug in this script. */
export function loadedState() {
  if (ui.state === undefined) throw new Error('The sandbox page rendered before its state arrived.');
  return ui.state;
}

export function names() {
  /** @type {Record<string, string>} */
  const users = {};
  /** @type {Record<string, string>} */
  const channels = {};
  for (const user of ui.state?.users ?? []) users[user.id] = user.realName;
  for (const channel of ui.state?.channels ?? []) channels[channel.id] = channel.name;
  // Dates read in the acting person's own zone, as Slack shows them to that person.
  const timeZone = ui.state?.users.find((user) => user.id === ui.state?.user)?.tz;
  return timeZone === undefined ? { users, channels } : { users, channels, timeZone };
}

/** The most the status line shows: one short line, whatever it reports. */
const STATUS_MAX = 300;

/**
 * `text` cut to `max` characters, with an ellipsis where it was cut (never between the halves of
 * a surrogate pair).
 * @param {string} text
 * @param {number} max
 */
export function cut(text, max) {
  if (text.length <= max) return text;
  let kept = '';
  for (const char of text) {
    if (kept.length + char.length > max - 1) break;
    kept += char;
  }
  return `${kept}…`;
}

/**
 * @param {string} text
 * @param {'ok' | 'pending' | 'error'} [kind]
 */
export function setStatus(text, kind = 'ok') {
  els.status.textContent = cut(text, STATUS_MAX);
  els.status.dataset.state = kind;
  els.status.classList.toggle('error', kind === 'error');
}

/** @param {unknown} error */
export function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * @param {string} path
 * @param {Record<string, unknown>} body
 * @returns {Promise<ClientActionResult>}
 */
export async function post(path, body) {
  try {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Every action happens in the workspace the page shows.
      body: JSON.stringify(ui.team ? { ...body, team: ui.team } : body),
    });
    try {
      return await response.json();
    } catch {
      return { ok: false, error: `The sandbox server answered HTTP ${response.status}.` };
    }
  } catch (error) {
    return {
      ok: false,
      error: `The sandbox server did not answer (${messageOf(error)}). Is npm start still running?`,
    };
  }
}

/**
 * @param {string} what
 * @param {ClientActionResult} result
 */
export function report(what, result) {
  if (!result.ok) setStatus(`${what}: ${result.error}`, 'error');
  else setStatus(`${what} · answered in ${result.durationMs ?? 0} ms`);
}

/** @type {() => Promise<void>} */
let pageRefresh = () => Promise.resolve();

/**
 * How the page refreshes: `main.js` hands it over, as the one module that draws every part. The
 * parts ask for a refresh after they act, so importing `main.js` here would be a cycle.
 * @param {() => Promise<void>} refresh
 */
export function refreshWith(refresh) {
  pageRefresh = refresh;
}

/** Loads the state again and draws the page from it. */
export function refresh() {
  return pageRefresh();
}

/** @type {number | undefined} */
let refreshTimer;
export function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, 40);
}

export function connectEvents() {
  const events = new EventSource('/events');
  events.addEventListener('ready', () => {
    els.connection.textContent = 'live';
    els.connection.classList.remove('offline');
    scheduleRefresh();
  });
  events.addEventListener('change', scheduleRefresh);
  events.addEventListener('error', () => {
    els.connection.textContent = 'reconnecting…';
    els.connection.classList.add('offline');
  });
}
