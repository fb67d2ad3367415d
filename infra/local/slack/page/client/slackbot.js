// @ts-check
// The DM with Slackbot: the person the page acts as asks the bot's tools as Slackbot would. The
// tools are the ones the bot lists for them through Slackbot; the arguments are typed as JSON,
// checked here first and again by the page's server, which makes the signed call (the signing
// secret never reaches this page). Each answer shows its text, and its blocks as Slackbot draws
// them; an approval card it asks for appears in the home channel as any card does.

import { blocksElement } from './blocks.js';
import { avatarElement, node } from './dom.js';
import { els, loadedState, post, scheduleRefresh, setStatus, ui } from './session.js';
import { checkArguments } from './tool-arguments.js';

/** @typedef {import('../client-api.js').ClientRefusal} ClientRefusal */
/** @typedef {import('../client-api.js').ClientSlackbotAnswer} ClientSlackbotAnswer */
/** @typedef {import('../client-api.js').ClientSlackbotTool} ClientSlackbotTool */
/** @typedef {import('../client-api.js').ClientSlackbotTools} ClientSlackbotTools */
/** @typedef {import('./session.js').SlackbotTurn} SlackbotTurn */

/**
 * Lists the tools the bot serves `seat` (`${team} ${user}`) through Slackbot.
 * @param {string} seat
 */
export async function loadSlackbotTools(seat) {
  const panel = ui.slackbot;
  panel.toolsFor = seat;
  if (panel.turnsFor !== seat) {
    panel.turns = [];
    panel.turnsFor = seat;
  }
  setStatus('Slackbot is looking for its tools…', 'pending');
  const result = /** @type {ClientSlackbotTools | ClientRefusal} */ (
    /** @type {unknown} */ (await post('/api/slackbot/tools', { user: ui.user }))
  );
  if (panel.toolsFor !== seat) return;
  if (!result.ok) {
    panel.tools = [];
    setStatus(`Slackbot found no tools: ${result.error ?? 'the page server refused'}`, 'error');
  } else {
    panel.tools = [...result.tools];
    setStatus(`Slackbot found ${result.tools.length} tool${result.tools.length === 1 ? '' : 's'}.`);
  }
  fillToolPicker();
}

function fillToolPicker() {
  const { tools } = ui.slackbot;
  const chosen = els.slackbotTool.value;
  els.slackbotTool.replaceChildren(
    ...tools.map((tool) => {
      const marks = tool.readOnly ? ' · reads' : tool.destructive ? ' · destructive' : ' · changes';
      const option = node('option', '', `${tool.name}${marks}`);
      option.value = tool.name;
      option.selected = tool.name === chosen;
      return option;
    }),
  );
  els.slackbotSend.disabled = tools.length === 0;
  showTool();
}

/** The chosen tool's description and arguments, and arguments to start from. */
function showTool() {
  const tool = ui.slackbot.tools.find((known) => known.name === els.slackbotTool.value);
  if (!tool) {
    els.slackbotHelp.replaceChildren(node('div', 'hint', 'Slackbot has no tools for you here.'));
    return;
  }
  const description = node('div', 'slackbot-description', tool.description);
  description.dataset.testid = 'slackbot-description';
  const list = node('ul', 'slackbot-arguments-help');
  for (const argument of tool.arguments) {
    const kind = [argument.type, argument.required ? 'required' : 'optional'].filter(Boolean).join(', ');
    const item = node('li');
    item.append(
      node('code', '', argument.name),
      ` (${kind})${argument.description ? `: ${argument.description}` : ''}`,
    );
    list.append(item);
  }
  els.slackbotHelp.replaceChildren(description, ...(tool.arguments.length > 0 ? [list] : []));
  // What the person typed stays; only the arguments the panel filled in are replaced.
  const current = els.slackbotArguments.value;
  if (current.trim() === '' || current === ui.slackbot.template) {
    ui.slackbot.template = templateFor(tool);
    els.slackbotArguments.value = ui.slackbot.template;
  }
}

/**
 * The tool's required arguments and its objects, empty, as JSON to fill in.
 * @param {ClientSlackbotTool} tool
 */
function templateFor(tool) {
  /** @type {Record<string, unknown>} */
  const start = {};
  for (const argument of tool.arguments) {
    if (argument.type === 'object') start[argument.name] = {};
    else if (!argument.required) continue;
    else if (argument.type === 'string') start[argument.name] = '';
    else if (argument.type === 'array') start[argument.name] = [];
    else if (argument.type === 'boolean') start[argument.name] = false;
    else start[argument.name] = null;
  }
  return Object.keys(start).length === 0 ? '{}' : JSON.stringify(start, null, 2);
}

async function askSlackbot() {
  const tool = els.slackbotTool.value;
  if (!tool) {
    setStatus('Slackbot has no tool to ask.', 'error');
    return;
  }
  const args = els.slackbotArguments.value;
  const checked = checkArguments(args);
  if (!checked.ok) {
    setStatus(`Not sent: ${checked.error}`, 'error');
    return;
  }
  const seat = `${ui.team} ${ui.user}`;
  const panel = ui.slackbot;
  panel.turns.push({ from: 'you', tool, args: args.trim() === '' ? '{}' : args });
  renderSlackbot();
  els.slackbotSend.disabled = true;
  setStatus(`Asking Slackbot to call ${tool}…`, 'pending');
  const result = /** @type {ClientSlackbotAnswer | ClientRefusal} */ (
    /** @type {unknown} */ (await post('/api/slackbot/call', { user: ui.user, tool, arguments: args }))
  );
  els.slackbotSend.disabled = panel.tools.length === 0;
  // The person switched who they are meanwhile: this answer belongs to a DM no longer shown.
  if (panel.turnsFor !== seat) return;
  if (!result.ok) {
    const error = result.error ?? 'The page server refused.';
    panel.turns.push({ from: 'slackbot', error });
    setStatus(`Slackbot: ${error}`, 'error');
  } else {
    panel.turns.push({ from: 'slackbot', answer: result });
    setStatus(
      `Slackbot called ${tool} · answered in ${result.durationMs} ms${result.isError ? ' · the tool refused' : ''}`,
    );
  }
  renderSlackbot();
  // A card it asked for is in the home channel now: the page's state follows.
  scheduleRefresh();
}

/** The DM so far, in the message list. */
export function renderSlackbot() {
  const list = els.messages;
  const { turns } = ui.slackbot;
  if (turns.length === 0) {
    const me = loadedState().users.find((user) => user.id === ui.user)?.realName ?? ui.user;
    list.replaceChildren(
      node(
        'div',
        'empty',
        `Ask Slackbot as ${me}: pick one of the tools the bot lists for you below, fill in its arguments as JSON and press Ask Slackbot. The page's server calls the bot's MCP server as Slackbot does, signed as Slack signs it.`,
      ),
    );
  } else {
    list.replaceChildren(...turns.map((turn) => turnElement(turn)));
    // A new turn scrolls into view; a redraw for a change elsewhere leaves the reader where they are.
    if (turns.length !== ui.messageCount) list.scrollTop = list.scrollHeight;
  }
  ui.messageCount = turns.length;
  list.dataset.ready = 'true';
}

/** @param {SlackbotTurn} turn */
function turnElement(turn) {
  const article = node('article', 'message');
  article.dataset.testid = 'slackbot-turn';
  article.dataset.from = turn.from;
  const mine = turn.from === 'you';
  const author = mine
    ? (loadedState().users.find((user) => user.id === ui.user)?.realName ?? ui.user)
    : 'Slackbot';
  const avatar = avatarElement(author, mine ? ui.user : 'USLACKBOT');
  const body = node('div', 'message-body');
  const meta = node('div', 'meta');
  meta.append(node('span', 'author', author));
  body.append(meta);
  if ('tool' in turn) {
    body.append(node('div', 'text', `Call ${turn.tool} with:`), node('pre', '', turn.args));
  } else if ('error' in turn) {
    article.dataset.error = 'true';
    const refusal = node('div', 'text slackbot-refusal', turn.error);
    refusal.dataset.testid = 'slackbot-refusal';
    body.append(refusal);
  } else {
    const { answer } = turn;
    if (answer.isError) {
      article.dataset.error = 'true';
      body.append(node('div', 'only-you', `${answer.tool} answered with an error`));
    }
    if (answer.blocks.length > 0) body.append(blocksElement(answer.blocks, { interactive: false }));
    if (answer.blocksDropped)
      body.append(node('div', 'only-you', `No blocks drawn: ${answer.blocksDropped}.`));
    const text = node('pre', 'slackbot-text', answer.text);
    text.dataset.testid = 'slackbot-text';
    body.append(text);
  }
  article.append(avatar, body);
  return article;
}

/** In Slackbot's DM, its form takes the composer's place. */
export function renderSlackbotForm() {
  const asking = ui.tab === 'slackbot';
  els.slackbotForm.hidden = !asking;
  els.form.hidden = asking;
  els.usage.hidden = asking;
}

export function wireSlackbot() {
  els.slackbotTool.addEventListener('change', showTool);
  els.slackbotForm.addEventListener('submit', (event) => {
    event.preventDefault();
    askSlackbot();
  });
}
