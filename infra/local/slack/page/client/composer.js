// @ts-check
// The composer: the slash-command box, what it completes (fitted to who is typing and where) and
// its usage line, how much it may hold, earlier commands, and sending a command.

import { completionsFor } from './completion.js';
import { node } from './dom.js';
import { cut, els, post, report, scheduleRefresh, setStatus, ui } from './session.js';

/** The most the box may hold: `COMMAND_TEXT_LIMIT` of `commands.ts`, written into the page. */
const LIMIT = Number(els.input.dataset.limit);
if (!Number.isInteger(LIMIT))
  throw new Error('The command box has no data-limit: html.ts and client/ disagree.');
/** The count shows from here on, so it is there before the limit is reached, not all the time. */
const COUNT_FROM = Math.floor(LIMIT * 0.9);
/** How much of a command the status line names: enough to recognise it, on one short line. */
const ECHO_MAX = 120;

/** @param {number} count */
function characters(count) {
  return count.toLocaleString('en-US');
}

/** @param {number} length */
function tooLong(length) {
  return `${characters(length - LIMIT)} characters over Slack's limit of ${characters(LIMIT)}: shorten the command to send it.`;
}

/** The count near the limit, and Send only while the command fits. */
function renderLimit() {
  const { length } = els.input.value;
  const over = length > LIMIT;
  els.limit.hidden = length < COUNT_FROM;
  els.limit.classList.toggle('over', over);
  els.limit.textContent = over ? tooLong(length) : `${characters(length)} of ${characters(LIMIT)} characters`;
  els.send.disabled = over;
}

/** @typedef {import('./completion.js').Completion} Completion */

export async function loadCommands() {
  try {
    // Fitted to who is typing and where, as the bot's help is.
    const query = new URLSearchParams({ team: ui.team, user: ui.user, channel: ui.channel });
    const response = await fetch(`/api/commands?${query}`);
    if (response.ok) {
      ui.commands = await response.json();
      ui.commandsFor = `${ui.user} ${ui.channel}`;
    }
  } catch {
    // Completion is a convenience; commands still work without it.
  }
}

function renderCompletions() {
  const { items, active } = ui.completion;
  els.completions.replaceChildren(
    ...items.map((item, index) => {
      const entry = node('li');
      entry.dataset.testid = 'completion';
      entry.dataset.value = item.value;
      entry.setAttribute('role', 'option');
      entry.classList.toggle('active', index === active);
      entry.append(node('span', 'word', item.word), node('span', 'summary', item.summary));
      entry.addEventListener('mousedown', (event) => {
        event.preventDefault();
        acceptCompletion(item);
      });
      return entry;
    }),
  );
  els.completions.hidden = items.length === 0;
  els.completions.querySelector('.active')?.scrollIntoView({ block: 'nearest' });
}

function updateCompletions() {
  const { items, usage } = completionsFor(els.input.value, ui.commands);
  const complete = items.length === 1 && items[0]?.value.trim() === els.input.value.trim();
  ui.completion = { items: complete ? [] : items.slice(0, 60), active: -1 };
  els.usage.textContent = usage;
  renderCompletions();
}

function hideCompletions() {
  ui.completion = { items: [], active: -1 };
  renderCompletions();
}

/** @param {Completion} item */
function acceptCompletion(item) {
  els.input.value = item.value;
  els.input.focus();
  updateCompletions();
  renderLimit();
}

async function sendCommand() {
  const text = els.input.value.trim();
  if (text === '' || text.length > LIMIT) return;
  hideCompletions();
  ui.history.unshift(text);
  ui.historyIndex = -1;
  els.send.disabled = true;
  const named = cut(text, ECHO_MAX);
  setStatus(`Sending ${named}…`, 'pending');
  const result = await post('/api/command', { user: ui.user, channel: ui.channel, text });
  report(`Sent ${named}`, result);
  if (result.ok) {
    els.input.value = '';
    els.usage.textContent = '';
  }
  renderLimit();
  scheduleRefresh();
}

/** Sending, completing as the person types, and stepping through earlier commands. */
export function wireComposer() {
  els.form.addEventListener('submit', (event) => {
    event.preventDefault();
    sendCommand();
  });
  els.input.addEventListener('input', () => {
    updateCompletions();
    renderLimit();
  });
  els.input.addEventListener('focus', updateCompletions);
  els.input.addEventListener('blur', hideCompletions);
  els.input.addEventListener('keydown', (event) => {
    // Send is disabled over the limit, so Enter submits nothing: it says why instead.
    if (event.key === 'Enter' && els.input.value.trim().length > LIMIT) {
      event.preventDefault();
      setStatus(tooLong(els.input.value.trim().length), 'error');
      return;
    }
    const { items, active } = ui.completion;
    if (items.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        ui.completion.active = (active + step + items.length) % items.length;
        renderCompletions();
        return;
      }
      if (event.key === 'Tab' || (event.key === 'Enter' && active >= 0)) {
        event.preventDefault();
        const chosen = items[Math.max(active, 0)];
        if (chosen) acceptCompletion(chosen);
        return;
      }
      if (event.key === 'Escape') {
        hideCompletions();
        return;
      }
    }
    // Earlier commands, newest first, as a terminal would offer them.
    if ((event.key === 'ArrowUp' || event.key === 'ArrowDown') && ui.history.length > 0) {
      event.preventDefault();
      const step = event.key === 'ArrowUp' ? 1 : -1;
      ui.historyIndex = Math.min(Math.max(ui.historyIndex + step, -1), ui.history.length - 1);
      els.input.value = ui.historyIndex < 0 ? '' : (ui.history[ui.historyIndex] ?? '');
      renderLimit();
    }
  });
}
