// @ts-check
// The Slack sandbox page in the browser: renders what the bot posts as Block Kit and acts only
// through the page server's API (which signs every request as Slack would). Plain script, no
// build step: served inline by `html.ts`. The first part is pure functions (mrkdwn, completion),
// which the tests load without a browser; `startSandbox` wires them to the document.
// Type-checked with the DOM library by `tsconfig.json` next to it (`npm run typecheck`).

/** @typedef {import('./client-api.js').BlockKitObject} BlockKitObject */
/** @typedef {import('./client-api.js').ClientActionResult} ClientActionResult */
/** @typedef {import('./client-api.js').ClientCompletionData} ClientCompletionData */
/** @typedef {import('./client-api.js').ClientFile} ClientFile */
/** @typedef {import('./client-api.js').ClientMessage} ClientMessage */
/** @typedef {import('./client-api.js').ClientMonitoring} ClientMonitoring */
/** @typedef {import('./client-api.js').ClientRefusal} ClientRefusal */
/** @typedef {import('./client-api.js').ClientState} ClientState */
/** @typedef {import('./client-api.js').ClientView} ClientView */
/**
 * What mrkdwn needs to know about its reader: names for mentions, and for `<!date^…>` tokens the
 * reader's time zone (IANA; the browser's when absent) and the time "today" is judged from.
 * @typedef {{ users?: Record<string, string>; channels?: Record<string, string>; timeZone?: string; now?: number }} MentionNames
 */
/** @typedef {{ value: string; word: string; summary: string }} Completion */
/** @typedef {{ items: Completion[]; usage: string }} Completions */

/**
 * Shortcodes the bot uses, and a few common ones; others stay as typed, like Slack shows unknown ones.
 * @type {Readonly<Record<string, string>>}
 */
const EMOJI = {
  boom: '💥',
  closed_lock_with_key: '🔐',
  electric_plug: '🔌',
  grey_question: '❔',
  heavy_check_mark: '✔️',
  heavy_multiplication_x: '✖️',
  hourglass: '⌛',
  hourglass_flowing_sand: '⏳',
  information_source: 'ℹ️',
  large_green_circle: '🟢',
  large_yellow_circle: '🟡',
  large_blue_circle: '🔵',
  lock: '🔒',
  mag: '🔍',
  no_entry: '⛔',
  octagonal_sign: '🛑',
  red_circle: '🔴',
  rocket: '🚀',
  scissors: '✂️',
  tada: '🎉',
  warning: '⚠️',
  white_check_mark: '✅',
  white_circle: '⚪',
  x: '❌',
  chart_with_upwards_trend: '📈',
  bell: '🔔',
  bar_chart: '📊',
  eyes: '👀',
  floppy_disk: '💾',
  new: '🆕',
  pause_button: '⏸️',
  rotating_light: '🚨',
};

/** @param {unknown} text */
function escapeHtml(text) {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Slack escapes `&`, `<` and `>` in message text; these are the only entities it uses.
 * @param {unknown} text
 */
function decodeSlackEntities(text) {
  return String(text).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** @param {unknown} text */
function replaceEmoji(text) {
  return String(text).replace(
    /:([a-z0-9_+-]+):/g,
    (/** @type {string} */ match, /** @type {string} */ name) => EMOJI[name] ?? match,
  );
}

/**
 * Only addresses a browser can open without running anything.
 * @param {string} url
 * @returns {string | undefined}
 */
function safeUrl(url, schemes = ['http:', 'https:', 'mailto:']) {
  try {
    const parsed = new URL(url);
    return schemes.includes(parsed.protocol) ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @param {unknown} url
 * @returns {string | undefined}
 */
function safeImageUrl(url) {
  if (typeof url !== 'string') return undefined;
  if (/^data:image\/(png|gif|jpeg|webp);base64,[a-z0-9+/=]+$/i.test(url)) return url;
  return safeUrl(url, ['http:', 'https:']);
}

/**
 * One `<…>` control sequence of mrkdwn as HTML: mentions, channels, special mentions, dates
 * (their fallback text) and links. `inner` is the raw text between the brackets.
 * @param {string} inner
 * @param {MentionNames} names
 */
function controlSequenceHtml(inner, names) {
  const bar = inner.indexOf('|');
  const target = bar < 0 ? inner : inner.slice(0, bar);
  const label = bar < 0 ? undefined : decodeSlackEntities(inner.slice(bar + 1));
  if (/^@[UW][A-Z0-9]+$/.test(target)) {
    const id = target.slice(1);
    const name = label ?? names.users?.[id] ?? id;
    return `<span class="mention">@${escapeHtml(name.replace(/^@/, ''))}</span>`;
  }
  if (/^#C[A-Z0-9]+$/.test(target)) {
    const id = target.slice(1);
    return `<span class="mention">#${escapeHtml(label ?? names.channels?.[id] ?? id)}</span>`;
  }
  if (target.startsWith('!date^')) return slackDateHtml(target, label, names);
  if (target.startsWith('!subteam^')) return `<span class="mention">${escapeHtml(label ?? '@group')}</span>`;
  if (/^!(here|channel|everyone)$/.test(target))
    return `<span class="mention">@${escapeHtml(target.slice(1))}</span>`;
  const url = safeUrl(decodeSlackEntities(target));
  const text = label ?? decodeSlackEntities(target);
  if (!url) return escapeHtml(text);
  return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(text)}</a>`;
}

/**
 * `{date_short}`, `{time}`… of Slack's date formatting ("Date formatting" in
 * api.slack.com/reference/surfaces/formatting), written the way Slack writes them in English.
 * @type {Record<string, (at: Date, zone: string | undefined, now: number) => string>}
 */
const DATE_TOKENS = {
  date_num: (at, zone) => {
    const part = zonedParts(at, zone, { year: 'numeric', month: '2-digit', day: '2-digit' });
    return `${part.year}-${part.month}-${part.day}`;
  },
  date: (at, zone) => longDate(at, zone, false),
  date_short: (at, zone) =>
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      month: 'short',
      day: 'numeric',
      year: 'numeric',
    }).format(at),
  date_long: (at, zone) => longDate(at, zone, true),
  date_pretty: (at, zone, now) => nearDay(at, zone, now) ?? longDate(at, zone, false),
  date_short_pretty: (at, zone, now) =>
    nearDay(at, zone, now) ?? DATE_TOKENS.date_short?.(at, zone, now) ?? '',
  date_long_pretty: (at, zone, now) => nearDay(at, zone, now) ?? longDate(at, zone, true),
  time: (at, zone) =>
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', minute: '2-digit' }).format(at),
  time_secs: (at, zone) =>
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
    }).format(at),
  ago: (at, _zone, now) => agoText(at.getTime(), now),
};

/**
 * The named parts of `at` in `zone`.
 * @param {Date} at
 * @param {string | undefined} zone
 * @param {Intl.DateTimeFormatOptions} options
 * @returns {Record<string, string>}
 */
function zonedParts(at, zone, options) {
  /** @type {Record<string, string>} */
  const parts = {};
  for (const part of new Intl.DateTimeFormat('en-US', { ...options, timeZone: zone }).formatToParts(at)) {
    parts[part.type] = part.value;
  }
  return parts;
}

/** @param {number} day */
function ordinal(day) {
  const tens = day % 100;
  if (tens >= 11 && tens <= 13) return `${day}th`;
  return `${day}${['th', 'st', 'nd', 'rd'][day % 10] ?? 'th'}`;
}

/**
 * `February 18th, 2014`, or with the weekday `Tuesday, February 18th, 2014`.
 * @param {Date} at
 * @param {string | undefined} zone
 * @param {boolean} weekday
 */
function longDate(at, zone, weekday) {
  const part = zonedParts(at, zone, { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' });
  const date = `${part.month} ${ordinal(Number(part.day))}, ${part.year}`;
  return weekday ? `${part.weekday}, ${date}` : date;
}

/**
 * `today`, `yesterday` or `tomorrow` in the reader's zone, else undefined.
 * @param {Date} at
 * @param {string | undefined} zone
 * @param {number} now
 */
function nearDay(at, zone, now) {
  const dayOf = (/** @type {Date} */ date) => {
    const part = zonedParts(date, zone, { year: 'numeric', month: 'numeric', day: 'numeric' });
    return Date.UTC(Number(part.year), Number(part.month) - 1, Number(part.day)) / 86_400_000;
  };
  const days = dayOf(at) - dayOf(new Date(now));
  return days === 0 ? 'today' : days === -1 ? 'yesterday' : days === 1 ? 'tomorrow' : undefined;
}

/**
 * `3 minutes ago`, `in 2 hours`.
 * @param {number} atMs
 * @param {number} now
 */
function agoText(atMs, now) {
  const seconds = Math.round((atMs - now) / 1000);
  /** @type {[Intl.RelativeTimeFormatUnit, number][]} */
  const units = [
    ['year', 365 * 86_400],
    ['month', 30 * 86_400],
    ['week', 7 * 86_400],
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  }
  return format.format(seconds, 'second');
}

/**
 * A `<!date^EPOCH^FORMAT^LINK|fallback>` token as Slack shows it: the format's tokens filled in
 * in the reader's time zone, linked when a link is given. A token Slack could not read (no epoch,
 * no format, an unknown zone) shows its fallback, as Slack does.
 * @param {string} target `!date^EPOCH^FORMAT` with an optional `^LINK`
 * @param {string | undefined} fallback
 * @param {MentionNames} reader
 */
function slackDateHtml(target, fallback, reader) {
  const [, epoch = '', format = '', ...rest] = target.split('^');
  const shown = fallback ?? target;
  const at = /^-?\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : undefined;
  if (!at || Number.isNaN(at.getTime()) || format === '') return escapeHtml(shown);
  const zone = reader.timeZone;
  const now = reader.now ?? Date.now();
  let text;
  try {
    text = format.replace(/\{([a-z_]+)\}/g, (whole, /** @type {string} */ name) => {
      const token = DATE_TOKENS[name];
      return token ? token(at, zone, now) : whole;
    });
  } catch {
    // RangeError: a time zone Intl does not know.
    return escapeHtml(shown);
  }
  const url = rest.length > 0 ? safeUrl(decodeSlackEntities(rest.join('^'))) : undefined;
  const title = escapeHtml(shown);
  return url
    ? `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer" title="${title}">${escapeHtml(text)}</a>`
    : `<time datetime="${at.toISOString()}" title="${title}">${escapeHtml(text)}</time>`;
}

/**
 * Bold, italic and strike-through on text that is already HTML-escaped.
 * @param {string} html
 */
function inlineFormatting(html) {
  return html
    .replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])/g, '$1<b>$2</b>')
    .replace(/(^|[^\w_])_(?!\s)([^_\n]+?)_(?!\w)/g, '$1<i>$2</i>')
    .replace(/(^|[^\w~])~(?!\s)([^~\n]+?)~(?!\w)/g, '$1<s>$2</s>');
}

/**
 * Text outside code blocks: inline code and control sequences are set aside, the rest formatted.
 * @param {string} text
 * @param {MentionNames} names
 */
function mrkdwnTextHtml(text, names) {
  /** @type {string[]} */
  const held = [];
  const hold = (/** @type {string} */ html) => {
    held.push(html);
    return `\uE000${held.length - 1}\uE001`;
  };
  let work = text.replace(/`([^`\n]+)`/g, (_, /** @type {string} */ code) =>
    hold(`<code>${escapeHtml(decodeSlackEntities(code))}</code>`),
  );
  work = work.replace(/<([^<>\n]+)>/g, (_, /** @type {string} */ inner) =>
    hold(controlSequenceHtml(inner, names)),
  );
  let html = inlineFormatting(replaceEmoji(escapeHtml(decodeSlackEntities(work))));
  html = html.replace(/\uE000(\d+)\uE001/g, (_, /** @type {string} */ index) => held[Number(index)] ?? '');
  const lines = html.split('\n');
  return lines
    .map((line, index) => {
      const quote = /^&gt; ?(.*)$/.exec(line);
      if (quote) return `<blockquote>${quote[1]}</blockquote>`;
      return index < lines.length - 1 ? `${line}<br>` : line;
    })
    .join('');
}

/**
 * Slack's mrkdwn as HTML. Everything from the message is escaped; only the tags made here
 * (b, i, s, code, pre, blockquote, a with a checked http(s)/mailto address, span) are produced.
 * `names` maps user and channel ids to names for mentions.
 * @param {unknown} source
 * @param {MentionNames} [names]
 */
function mrkdwnToHtml(source, names = {}) {
  const text = String(source ?? '').replace(/[\uE000\uE001]/g, '');
  const parts = text.split('```');
  // An odd number of fences leaves the last one unclosed: it is shown as typed.
  const closed = parts.length % 2 === 1;
  return parts
    .map((part, index) => {
      const isCode = index % 2 === 1 && (closed || index < parts.length - 1);
      if (isCode) {
        const code = part.replace(/^\n/, '').replace(/\n$/, '');
        const plain = code.replace(/<([^<>\n]+)>/g, (_, /** @type {string} */ inner) => {
          const bar = inner.indexOf('|');
          return bar < 0 ? inner : inner.slice(bar + 1);
        });
        return `<pre>${escapeHtml(decodeSlackEntities(plain))}</pre>`;
      }
      const prefix = index % 2 === 1 ? '```' : '';
      return mrkdwnTextHtml(prefix + part, names);
    })
    .join('');
}

/**
 * What the command box suggests for `typed`: the next word (a topic, then an action or
 * subcommand) and the usage line of what has been typed so far. `data` is `/api/commands`.
 * @param {string} typed
 * @param {ClientCompletionData} data
 * @returns {Completions}
 */
function completionsFor(typed, data) {
  const command = data.command;
  const text = typed.replace(/^\s+/, '');
  if (!text.startsWith(`${command} `)) {
    if (text !== '' && command.startsWith(text)) {
      return { items: [{ value: `${command} `, word: command, summary: 'The cloud bot' }], usage: '' };
    }
    return { items: [], usage: '' };
  }
  const words = text.slice(command.length + 1).split(/\s+/);
  /** @typedef {{ name: string; aliases: readonly string[] }} Named */
  const named = (/** @type {Named} */ entry, /** @type {string} */ word) =>
    entry.name === word.toLowerCase() || entry.aliases.includes(word.toLowerCase());
  const startsWith = (/** @type {Named} */ entry, /** @type {string} */ word) =>
    [entry.name, ...entry.aliases].some((name) => name.startsWith(word.toLowerCase()));
  const first = words[0] ?? '';
  if (words.length === 1) {
    const items = data.topics
      .filter((topic) => startsWith(topic, first))
      .map((topic) => ({ value: `${command} ${topic.name} `, word: topic.name, summary: topic.summary }));
    const exact = data.topics.find((topic) => named(topic, first));
    return { items, usage: exact ? exact.usage : '' };
  }
  const topic = data.topics.find((candidate) => named(candidate, first));
  if (!topic) return { items: [], usage: '' };
  const second = words[1] ?? '';
  const action = topic.actions.find((candidate) => named(candidate, second));
  if (words.length === 2) {
    const items = topic.actions
      .filter((candidate) => startsWith(candidate, second))
      .map((candidate) => ({
        value: `${command} ${topic.name} ${candidate.name} `,
        word: `${topic.name} ${candidate.name}`,
        summary: candidate.summary,
      }));
    return { items, usage: action ? action.usage : topic.usage };
  }
  return { items: [], usage: action ? action.usage : topic.usage };
}

// ---------------------------------------------------------------------------------------------
// The page

/**
 * The element `selector` finds under `root`, of the kind the script uses it as. The page's markup
 * (`html.ts`) and this script are written apart: a missing or different element is a bug in one
 * of them, so it fails here by name instead of as a TypeError somewhere later.
 * @template {Element} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {new () => T} kind
 * @returns {T}
 */
function required(root, selector, kind) {
  const element = root.querySelector(selector);
  if (!(element instanceof kind)) {
    throw new Error(`The sandbox page has no ${kind.name} at ${selector}: html.ts and client.js disagree.`);
  }
  return element;
}

/** @param {unknown} error */
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A value from the bot's blocks (a block, an element, a text object) as the renderer reads it.
 * Anything that is not an object reads as nothing: an unknown block, an empty text.
 * @param {unknown} value
 * @returns {BlockKitObject | undefined}
 */
function blockKitObject(value) {
  return typeof value === 'object' && value !== null ? value : undefined;
}

/**
 * Where a block is drawn: in a message (its buttons and menus act on it) or in a modal (its
 * inputs are the form).
 * @typedef {{ message?: ClientMessage; interactive: boolean; form?: boolean; homeView?: string }} RenderContext
 */

/**
 * @typedef {object} SandboxUi
 * @property {string} team
 * @property {string} user
 * @property {string} channel
 * @property {boolean} home Whether the app's Home tab is shown instead of the channel.
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
 */

function startSandbox() {
  /**
   * @template {Element} T
   * @param {string} id
   * @param {new () => T} kind
   */
  function byTestId(id, kind) {
    return required(document, `[data-testid="${id}"]`, kind);
  }
  const els = {
    workspace: byTestId('workspace-name', HTMLElement),
    teams: byTestId('workspace-list', HTMLElement),
    users: byTestId('user-picker', HTMLSelectElement),
    channels: byTestId('channel-list', HTMLElement),
    homeLink: byTestId('home-link', HTMLAnchorElement),
    channelName: byTestId('channel-name', HTMLElement),
    actingAs: byTestId('acting-as', HTMLElement),
    connection: byTestId('connection', HTMLElement),
    messages: byTestId('message-list', HTMLElement),
    form: byTestId('command-form', HTMLFormElement),
    input: byTestId('command-input', HTMLInputElement),
    send: byTestId('command-send', HTMLButtonElement),
    completions: byTestId('completions', HTMLElement),
    usage: byTestId('usage', HTMLElement),
    status: byTestId('status', HTMLElement),
    modal: byTestId('modal-backdrop', HTMLElement),
    monitoring: byTestId('monitoring', HTMLElement),
    issueForm: byTestId('issue-form', HTMLFormElement),
    issueService: byTestId('issue-service', HTMLSelectElement),
    issueSummary: byTestId('issue-summary', HTMLInputElement),
    issueRaise: byTestId('issue-raise', HTMLButtonElement),
    issues: byTestId('issue-list', HTMLElement),
  };
  const params = new URLSearchParams(location.search);
  /** @type {SandboxUi} */
  const ui = {
    team: params.get('team') ?? '',
    user: params.get('user') ?? '',
    channel: params.get('channel') ?? '',
    home: params.get('tab') === 'home',
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
  };

  /** Rendering starts once the first state has arrived; before that it is a bug in this script. */
  function loadedState() {
    if (ui.state === undefined) throw new Error('The sandbox page rendered before its state arrived.');
    return ui.state;
  }

  /**
   * @template {keyof HTMLElementTagNameMap} K
   * @param {K} tag
   * @param {string} [className]
   * @param {string} [text]
   * @returns {HTMLElementTagNameMap[K]}
   */
  function node(tag, className, text) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
  }

  function names() {
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

  /**
   * @param {string} text
   * @param {'ok' | 'pending' | 'error'} [kind]
   */
  function setStatus(text, kind = 'ok') {
    els.status.textContent = text;
    els.status.dataset.state = kind;
    els.status.classList.toggle('error', kind === 'error');
  }

  /**
   * @param {string} path
   * @param {Record<string, unknown>} body
   * @returns {Promise<ClientActionResult>}
   */
  async function post(path, body) {
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
  function report(what, result) {
    if (!result.ok) setStatus(`${what}: ${result.error}`, 'error');
    else setStatus(`${what} · answered in ${result.durationMs ?? 0} ms`);
  }

  // State

  async function refresh() {
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
    const address = new URLSearchParams({
      team: ui.team,
      user: ui.user,
      channel: ui.channel,
      ...(ui.home ? { tab: 'home' } : {}),
    });
    history.replaceState(null, '', `?${address}`);
    render();
    // Opening Home as someone (again, after switching who you are) is what tells the app.
    const seat = `${ui.team} ${ui.user}`;
    if (ui.home && ui.homeOpenedFor !== seat) {
      ui.homeOpenedFor = seat;
      openHome();
    }
    // Services change with the bot's actions too (a "Disable monitoring" button).
    if (!els.monitoring.hidden) loadMonitoring();
  }

  /** @type {number | undefined} */
  let refreshTimer;
  function scheduleRefresh() {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, 40);
  }

  function connectEvents() {
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

  async function loadCommands() {
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

  // The cloud side of the demo (the emulator's managed monitoring), outside Slack

  async function loadMonitoring() {
    /** @type {ClientMonitoring} */
    let monitoring;
    try {
      const response = await fetch('/api/monitoring');
      // A sandbox without the emulator has none: the section stays hidden.
      if (!response.ok) return;
      monitoring = await response.json();
    } catch {
      return;
    }
    renderMonitoring(monitoring);
  }

  /** @param {ClientMonitoring} monitoring */
  function renderMonitoring(monitoring) {
    els.monitoring.hidden = false;
    const chosen = els.issueService.value;
    els.issueService.replaceChildren(
      ...monitoring.services.map((service) => {
        const option = node('option', '', `${service.label} (${service.status})`);
        option.value = String(service.id);
        option.selected = option.value === chosen;
        return option;
      }),
    );
    const labels = new Map(monitoring.services.map((service) => [service.id, service.label]));
    els.issues.replaceChildren(
      ...monitoring.issues.slice(0, 5).map((issue) => {
        const row = node('li');
        row.dataset.testid = 'issue';
        row.dataset.issue = String(issue.id);
        const where = issue.services.map((id) => labels.get(id) ?? `service ${id}`).join(', ');
        const label = node('span', 'issue-label', `${issue.id} ${issue.label}`);
        label.title = `Issue ${issue.id} on ${where}: ${issue.label}${issue.resolved ? ' (resolved)' : ''}`;
        label.classList.toggle('resolved', issue.resolved);
        row.append(label);
        if (!issue.resolved) {
          const resolve = node('button', '', 'Resolve');
          resolve.type = 'button';
          resolve.dataset.testid = 'issue-resolve';
          resolve.addEventListener('click', () => resolveIssue(issue.id));
          row.append(resolve);
        }
        return row;
      }),
    );
  }

  async function raiseIssue() {
    const service = Number(els.issueService.value);
    if (!Number.isInteger(service) || service <= 0) return;
    els.issueRaise.disabled = true;
    const summary = els.issueSummary.value.trim();
    const result = await post('/api/monitoring/issue', summary ? { service, summary } : { service });
    els.issueRaise.disabled = false;
    if (result.ok) {
      els.issueSummary.value = '';
      setStatus(
        'Issue raised. Channels subscribed with /cloud reports add alerts get it when the subscription next runs (or now with /cloud reports run ID).',
      );
    } else setStatus(`Raise issue: ${result.error}`, 'error');
    loadMonitoring();
  }

  /** @param {number} issue */
  async function resolveIssue(issue) {
    const result = await post('/api/monitoring/resolve', { issue });
    if (result.ok) setStatus(`Issue ${issue} resolved: its services check out again.`);
    else setStatus(`Resolve issue ${issue}: ${result.error}`, 'error');
    loadMonitoring();
  }

  // Rendering

  function render() {
    renderSidebar();
    renderMessages();
    renderModal();
  }

  function renderSidebar() {
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
        link.classList.toggle('active', !ui.home && channel.id === state.channel.id);
        return link;
      }),
    );
    const me = users.find((user) => user.id === state.user);
    els.homeLink.href = `?${new URLSearchParams({ user: state.user, channel: state.channel.id, tab: 'home' })}`;
    els.homeLink.classList.toggle('active', ui.home);
    els.channelName.textContent = ui.home
      ? 'Home · Cloud'
      : `${state.channel.isIm ? '@' : '#'}${state.channel.name}`;
    els.actingAs.textContent = me ? `as ${me.realName}` : '';
  }

  function renderHome() {
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
  async function openHome() {
    setStatus('Opening Home…', 'pending');
    const result = await post('/api/home', { user: ui.user });
    report('Opened Home', result);
    scheduleRefresh();
  }

  /**
   * A click on the Home tab: Slack sends it from the view, with no channel and no response_url.
   * @param {string} viewId
   * @param {BlockKitObject} element
   * @param {string} what
   */
  async function clickHome(viewId, element, what) {
    if (!confirmed(element.confirm)) return;
    setStatus(`${what}…`, 'pending');
    const result = await post('/api/home/click', {
      user: ui.user,
      viewId,
      actionId: element.action_id,
      ...(element.value === undefined ? {} : { value: element.value }),
    });
    report(what, result);
    scheduleRefresh();
  }

  function renderMessages() {
    if (ui.home) {
      renderHome();
      return;
    }
    const list = els.messages;
    const nearBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 60;
    const { messages } = loadedState();
    if (messages.length === 0) {
      list.replaceChildren(node('div', 'empty', 'No messages yet. Type /cloud help below to begin.'));
    } else {
      list.replaceChildren(...messages.map((message) => messageElement(message)));
    }
    if (nearBottom || messages.length !== ui.messageCount) list.scrollTop = list.scrollHeight;
    ui.messageCount = messages.length;
    list.dataset.ready = 'true';
  }

  /** @param {string} id */
  function avatarColor(id) {
    let hash = 0;
    for (const char of id) hash = (hash * 31 + char.charCodeAt(0)) % 360;
    return `hsl(${hash}, 45%, 42%)`;
  }

  /**
   * @param {ClientMessage} message
   * @returns {HTMLElement}
   */
  function messageElement(message) {
    const article = node('article', `message${message.ephemeral ? ' ephemeral' : ''}`);
    article.dataset.testid = 'message';
    article.dataset.ts = message.ts;
    article.dataset.author = message.author.id;
    if (message.ephemeral) article.dataset.ephemeral = 'true';

    const avatar = node('div', 'avatar', (message.author.realName || '?').slice(0, 1).toUpperCase());
    avatar.style.background = avatarColor(message.author.id);
    const body = node('div', 'message-body');
    const meta = node('div', 'meta');
    meta.append(node('span', 'author', message.author.realName));
    if (message.author.isBot) meta.append(node('span', 'app-badge', 'APP'));
    // In the acting person's own zone, like the dates in messages: one clock for what they see.
    const zone = ui.state?.users.find((user) => user.id === ui.state?.user)?.tz;
    const at = new Date(message.postedAt);
    const time = node(
      'span',
      'time',
      at.toLocaleTimeString('en-US', {
        hour: 'numeric',
        minute: '2-digit',
        ...(zone ? { timeZone: zone } : {}),
      }),
    );
    time.title = at.toLocaleString('en-US', zone ? { timeZone: zone } : {});
    meta.append(time);
    if (message.edited) meta.append(node('span', 'edited', '(edited)'));
    body.append(meta);
    if (message.ephemeral) {
      const onlyYou = node('div', 'only-you', '👁 Only visible to you');
      onlyYou.dataset.testid = 'only-visible-to-you';
      body.append(onlyYou);
    }
    /** @type {RenderContext} */
    const context = { message, interactive: true };
    const blocks = Array.isArray(message.blocks) ? message.blocks : [];
    body.append(blocks.length > 0 ? blocksElement(blocks, context) : mrkdwnElement(message.text, 'text'));
    if (message.files.length > 0) body.append(filesElement(message.files));
    if (message.replies.length > 0) body.append(threadElement(message));
    article.append(avatar, body);
    return article;
  }

  /** @param {ClientMessage} message */
  function threadElement(message) {
    const wrap = node('div', 'thread');
    const open = ui.expanded.has(message.ts);
    const count = message.replies.length;
    const toggle = node(
      'button',
      'thread-toggle',
      `${open ? '▾' : '▸'} ${count} ${count === 1 ? 'reply' : 'replies'}`,
    );
    toggle.type = 'button';
    toggle.dataset.testid = 'thread-toggle';
    toggle.addEventListener('click', () => {
      if (open) ui.expanded.delete(message.ts);
      else ui.expanded.add(message.ts);
      renderMessages();
    });
    wrap.append(toggle);
    if (open) {
      const replies = node('div', 'replies');
      replies.dataset.testid = 'thread-replies';
      replies.append(...message.replies.map((reply) => messageElement(reply)));
      wrap.append(replies);
    }
    return wrap;
  }

  /** @param {readonly ClientFile[]} files */
  function filesElement(files) {
    const wrap = node('div', 'files');
    for (const file of files) {
      const url = safeUrl(file.url, ['http:', 'https:']);
      if (!url) continue;
      if (file.mimetype.startsWith('image/')) {
        const image = node('img');
        image.src = url;
        image.alt = file.title;
        image.dataset.testid = 'file-image';
        wrap.append(image);
      } else {
        const link = node('a', 'file-link', `📄 ${file.title}`);
        link.href = url;
        link.target = '_blank';
        link.rel = 'noopener noreferrer';
        wrap.append(link);
      }
    }
    return wrap;
  }

  /**
   * @param {unknown} text
   * @param {string} className
   */
  function mrkdwnElement(text, className) {
    const element = node('div', `mrkdwn ${className}`);
    element.innerHTML = mrkdwnToHtml(text, names());
    return element;
  }

  /**
   * A Block Kit text object: mrkdwn through the escaping renderer, plain text as text.
   * @param {unknown} value
   * @param {string} className
   * @param {'div' | 'span'} [tag]
   * @returns {HTMLElement}
   */
  function textObjectElement(value, className, tag = 'div') {
    const textObject = blockKitObject(value);
    if (!textObject || typeof textObject.text !== 'string') return node(tag, className);
    if (textObject.type === 'mrkdwn') return mrkdwnElement(textObject.text, className);
    return node(tag, className, textObject.emoji === false ? textObject.text : replaceEmoji(textObject.text));
  }

  /**
   * @param {unknown} value
   * @param {string} [fallback]
   */
  function plain(value, fallback = '') {
    const textObject = blockKitObject(value);
    return textObject && typeof textObject.text === 'string' ? replaceEmoji(textObject.text) : fallback;
  }

  /**
   * @param {readonly unknown[]} blocks
   * @param {RenderContext} context
   */
  function blocksElement(blocks, context) {
    const wrap = node('div', 'blocks');
    blocks.forEach((block, index) => {
      wrap.append(blockElement(blockKitObject(block), index, context));
    });
    return wrap;
  }

  /**
   * @param {BlockKitObject | undefined} block
   * @param {number} index
   * @param {RenderContext} context
   * @returns {HTMLElement}
   */
  function blockElement(block, index, context) {
    switch (block?.type) {
      case 'header': {
        const header = textObjectElement(block.text, 'bk-header');
        header.dataset.testid = 'block-header';
        return header;
      }
      case 'section':
        return sectionElement(block, context);
      case 'context': {
        const wrap = node('div', 'bk-context');
        for (const element of block.elements ?? []) {
          if (element.type === 'image') {
            const src = safeImageUrl(element.image_url);
            if (src) {
              const image = node('img');
              image.src = src;
              image.alt = element.alt_text ?? '';
              wrap.append(image);
            }
          } else {
            wrap.append(textObjectElement(element, 'bk-context-text', 'span'));
          }
        }
        return wrap;
      }
      case 'divider':
        return node('hr', 'bk-divider');
      case 'image':
        return imageBlockElement(block);
      case 'actions': {
        const wrap = node('div', 'bk-actions');
        wrap.dataset.testid = 'block-actions';
        for (const element of block.elements ?? []) wrap.append(interactiveElement(element, context));
        return wrap;
      }
      case 'input':
        return inputBlockElement(block, index, context);
      case 'markdown':
        return mrkdwnElement(block.text ?? '', 'bk-markdown');
      case 'rich_text':
        return richTextElement(block);
      default:
        return node('div', 'bk-unsupported', `[${block?.type ?? 'unknown'} block]`);
    }
  }

  /**
   * @param {BlockKitObject} block
   * @param {RenderContext} context
   */
  function sectionElement(block, context) {
    const section = node('div', 'bk-section');
    section.dataset.testid = 'block-section';
    const main = node('div', 'bk-section-main');
    if (block.text) main.append(textObjectElement(block.text, 'text'));
    if (Array.isArray(block.fields) && block.fields.length > 0) {
      const fields = node('div', 'bk-fields');
      for (const field of block.fields) fields.append(textObjectElement(field, 'text'));
      main.append(fields);
    }
    section.append(main);
    if (block.accessory) {
      if (block.accessory.type === 'image') {
        const src = safeImageUrl(block.accessory.image_url);
        if (src) {
          const image = node('img', 'bk-accessory-image');
          image.src = src;
          image.alt = block.accessory.alt_text ?? '';
          section.append(image);
        }
      } else {
        section.append(interactiveElement(block.accessory, context));
      }
    }
    return section;
  }

  /** @param {BlockKitObject} block */
  function imageBlockElement(block) {
    const wrap = node('div', 'bk-image');
    if (block.title) wrap.append(node('div', 'title', plain(block.title)));
    const src =
      safeImageUrl(block.image_url) ??
      safeImageUrl(block.slack_file?.url) ??
      safeImageUrl(ui.state?.files?.[block.slack_file?.id ?? '']?.url);
    if (src) {
      const image = node('img');
      image.src = src;
      image.alt = block.alt_text ?? '';
      image.dataset.testid = 'block-image';
      wrap.append(image);
    } else {
      wrap.append(node('div', 'bk-unsupported', `[image: ${block.alt_text ?? 'not available'}]`));
    }
    return wrap;
  }

  /** @param {BlockKitObject} block */
  function richTextElement(block) {
    /** @type {unknown[]} */
    const pieces = [];
    const walk = (/** @type {BlockKitObject | undefined} */ element) => {
      if (!element || typeof element !== 'object') return;
      if (element.type === 'text') pieces.push(element.text ?? '');
      else if (element.type === 'link') pieces.push(element.text ?? element.url ?? '');
      else if (element.type === 'emoji') pieces.push(EMOJI[element.name ?? ''] ?? `:${element.name}:`);
      else if (element.type === 'user')
        pieces.push(`@${names().users[element.user_id ?? ''] ?? element.user_id}`);
      else if (element.type === 'channel')
        pieces.push(`#${names().channels[element.channel_id ?? ''] ?? element.channel_id}`);
      for (const child of element.elements ?? []) walk(child);
      if (/^rich_text_(section|preformatted|quote|list)$/.test(String(element.type))) pieces.push('\n');
    };
    walk(block);
    const element = node('div', 'text', pieces.join('').trim());
    element.style.whiteSpace = 'pre-wrap';
    return element;
  }

  /** @param {BlockKitObject | undefined} dialog */
  function confirmed(dialog) {
    if (!dialog) return true;
    return window.confirm(`${plain(dialog.title, 'Are you sure?')}\n\n${plain(dialog.text)}`);
  }

  /**
   * @param {ClientMessage} message
   * @param {BlockKitObject} element
   * @param {{ value?: string | undefined; option?: string; confirm?: BlockKitObject }} extra
   * @param {string} what
   */
  async function click(message, element, extra, what) {
    if (!confirmed(element.confirm ?? extra.confirm)) return;
    setStatus(`${what}…`, 'pending');
    const result = await post('/api/click', {
      user: ui.user,
      channel: message.channel,
      ts: message.ts,
      actionId: element.action_id,
      ...(extra.value === undefined ? {} : { value: extra.value }),
      ...(extra.option === undefined ? {} : { option: extra.option }),
    });
    report(what, result);
    scheduleRefresh();
  }

  /**
   * @param {BlockKitObject | undefined} element
   * @param {RenderContext} context
   * @returns {HTMLElement}
   */
  function interactiveElement(element, context) {
    // Only a message's elements act: a modal's buttons and menus are drawn but not sent.
    const message = context.interactive ? context.message : undefined;
    switch (element?.type) {
      case 'button': {
        const label = plain(element.text, 'Button');
        const button = node('button', `bk-button${element.style ? ` ${element.style}` : ''}`, label);
        button.type = 'button';
        button.dataset.testid = 'button';
        button.dataset.actionId = element.action_id ?? '';
        button.dataset.label = label;
        const homeView = context.interactive ? context.homeView : undefined;
        if (homeView !== undefined) {
          button.addEventListener('click', async () => {
            button.disabled = true;
            await clickHome(homeView, element, `Clicked “${label}”`);
            button.disabled = false;
          });
          return button;
        }
        if (message === undefined) {
          button.disabled = true;
          button.title = 'Buttons inside modals are not sent by the sandbox.';
          return button;
        }
        button.addEventListener('click', async () => {
          const url = element.url ? safeUrl(element.url, ['http:', 'https:']) : undefined;
          if (url) window.open(url, '_blank', 'noopener');
          button.disabled = true;
          await click(message, element, { value: element.value }, `Clicked “${label}”`);
          button.disabled = false;
        });
        return button;
      }
      case 'overflow':
      case 'static_select': {
        const select = node('select', 'bk-select');
        select.dataset.testid = element.type === 'overflow' ? 'overflow' : 'select';
        select.dataset.actionId = element.action_id ?? '';
        const placeholder = node(
          'option',
          '',
          element.type === 'overflow' ? '⋯' : plain(element.placeholder, 'Choose…'),
        );
        placeholder.value = '';
        placeholder.disabled = true;
        placeholder.selected = true;
        select.append(placeholder);
        const groups = Array.isArray(element.option_groups)
          ? element.option_groups
          : [{ options: element.options }];
        for (const group of groups) {
          for (const option of group.options ?? []) {
            const choice = node('option', '', plain(option.text));
            choice.value = option.value ?? '';
            select.append(choice);
          }
        }
        select.disabled = message === undefined;
        if (message !== undefined) {
          select.addEventListener('change', async () => {
            const option = select.value;
            const label = select.selectedOptions[0]?.textContent ?? option;
            select.value = '';
            select.disabled = true;
            await click(message, element, { option }, `Chose “${label}”`);
            select.disabled = false;
          });
        }
        return select;
      }
      case 'image': {
        const src = safeImageUrl(element.image_url);
        const image = node('img', 'bk-accessory-image');
        if (src) image.src = src;
        image.alt = element.alt_text ?? '';
        return image;
      }
      default:
        return node('span', 'bk-unsupported', `[${element?.type ?? 'unknown'}]`);
    }
  }

  const TEXT_INPUTS = new Set(['plain_text_input', 'email_text_input', 'url_text_input', 'number_input']);

  /**
   * @param {BlockKitObject} block
   * @param {number} index
   * @param {RenderContext} context
   */
  function inputBlockElement(block, index, context) {
    const blockId = block.block_id ?? `block-${index}`;
    const wrap = node('div', 'bk-input');
    wrap.dataset.testid = 'modal-block';
    wrap.dataset.blockId = blockId;
    const label = node('label', '', plain(block.label, blockId));
    if (block.optional) label.append(' ', node('span', 'optional', '(optional)'));
    wrap.append(label);
    const element = block.element ?? {};
    if (TEXT_INPUTS.has(element.type ?? '')) {
      const field = element.multiline ? node('textarea') : node('input');
      if (field instanceof HTMLInputElement) field.type = 'text';
      else field.rows = 4;
      const inputId = `input-${blockId}`;
      field.id = inputId;
      label.htmlFor = inputId;
      field.dataset.testid = `modal-input-${blockId}`;
      field.dataset.blockId = blockId;
      field.dataset.actionId = element.action_id ?? 'value';
      field.value = element.initial_value ?? '';
      field.placeholder = plain(element.placeholder);
      if (typeof element.max_length === 'number' && Number.isInteger(element.max_length))
        field.maxLength = element.max_length;
      field.spellcheck = false;
      field.disabled = !context.form;
      wrap.append(field);
    } else {
      wrap.append(
        node('div', 'bk-unsupported', `[${element.type ?? 'unknown'} input: not supported by the sandbox]`),
      );
    }
    if (block.hint) wrap.append(node('div', 'hint', plain(block.hint)));
    const error = node('div', 'field-error');
    error.dataset.testid = `modal-error-${blockId}`;
    error.hidden = true;
    wrap.append(error);
    return wrap;
  }

  // Modal

  function renderModal() {
    const { view } = loadedState();
    const key = view ? `${ui.user}:${view.id}:${view.hash}` : '';
    // Re-rendering an unchanged modal would throw away what the person is typing.
    if (key === ui.modalKey) return;
    ui.modalKey = key;
    if (!view) {
      els.modal.hidden = true;
      els.modal.replaceChildren();
      return;
    }
    const modal = node('section', 'modal');
    modal.dataset.testid = 'modal';
    modal.dataset.viewId = view.id;
    modal.setAttribute('role', 'dialog');
    modal.setAttribute('aria-modal', 'true');
    const title = node('header', '', view.title);
    title.dataset.testid = 'modal-title';
    const body = node('div', 'modal-body');
    body.append(blocksElement(view.blocks, { interactive: false, form: true }));
    const problem = node('div', 'modal-error');
    problem.dataset.testid = 'modal-error';
    body.append(problem);
    const footer = node('footer');
    const close = node('button', 'bk-button', view.close);
    close.type = 'button';
    close.dataset.testid = 'modal-close';
    close.addEventListener('click', () => closeModal(view));
    footer.append(close);
    if (view.submit) {
      const submit = node('button', 'bk-button primary', view.submit);
      submit.type = 'button';
      submit.dataset.testid = 'modal-submit';
      submit.addEventListener('click', () => submitModal(view, modal, submit));
      footer.append(submit);
    }
    modal.append(title, body, footer);
    modal.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') closeModal(view);
      if (event.key === 'Enter' && event.target instanceof HTMLInputElement && view.submit) {
        event.preventDefault();
        submitModal(view, modal, required(modal, '[data-testid="modal-submit"]', HTMLButtonElement));
      }
    });
    els.modal.replaceChildren(modal);
    els.modal.hidden = false;
    const first = modal.querySelector('input:not([disabled]), textarea:not([disabled])');
    if (first instanceof HTMLElement) first.focus();
  }

  /**
   * @param {ClientView} view
   * @param {HTMLElement} modal
   * @param {HTMLButtonElement} button
   */
  async function submitModal(view, modal, button) {
    /** @type {Record<string, Record<string, string>>} */
    const values = {};
    for (const field of modal.querySelectorAll('[data-block-id][data-action-id]')) {
      if (!(field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement)) continue;
      const { blockId, actionId } = field.dataset;
      if (blockId === undefined || actionId === undefined) continue;
      values[blockId] ??= {};
      values[blockId][actionId] = field.value;
    }
    for (const error of modal.querySelectorAll('.field-error')) {
      if (error instanceof HTMLElement) error.hidden = true;
    }
    const problem = required(modal, '[data-testid="modal-error"]', HTMLElement);
    problem.textContent = '';
    button.disabled = true;
    setStatus(`Submitting “${view.title}”…`, 'pending');
    const result = await post('/api/view', { user: ui.user, viewId: view.id, values });
    button.disabled = false;
    if (!result.ok) {
      problem.textContent = result.error ?? '';
      setStatus(`Submitting “${view.title}”: ${result.error}`, 'error');
      return;
    }
    const errors = Object.entries(result.errors ?? {});
    for (const [blockId, message] of errors) {
      const slot = modal.querySelector(`[data-testid="modal-error-${CSS.escape(blockId)}"]`);
      if (slot instanceof HTMLElement) {
        slot.textContent = message;
        slot.hidden = false;
      } else {
        problem.textContent = message;
      }
    }
    if (errors.length > 0) setStatus(`“${view.title}” needs changes.`, 'error');
    else report(`Submitted “${view.title}”`, result);
    scheduleRefresh();
  }

  /** @param {ClientView} view */
  async function closeModal(view) {
    const result = await post('/api/view/close', { user: ui.user, viewId: view.id });
    if (!result.ok) setStatus(result.error ?? '', 'error');
    scheduleRefresh();
  }

  // Command box

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
  }

  async function sendCommand() {
    const text = els.input.value.trim();
    if (text === '') return;
    hideCompletions();
    ui.history.unshift(text);
    ui.historyIndex = -1;
    els.send.disabled = true;
    setStatus(`Sending ${text}…`, 'pending');
    const result = await post('/api/command', { user: ui.user, channel: ui.channel, text });
    els.send.disabled = false;
    report(`Sent ${text}`, result);
    if (result.ok) {
      els.input.value = '';
      els.usage.textContent = '';
    }
    scheduleRefresh();
  }

  els.form.addEventListener('submit', (event) => {
    event.preventDefault();
    sendCommand();
  });
  els.issueForm.addEventListener('submit', (event) => {
    event.preventDefault();
    raiseIssue();
  });
  els.input.addEventListener('input', updateCompletions);
  els.input.addEventListener('focus', updateCompletions);
  els.input.addEventListener('blur', hideCompletions);
  els.input.addEventListener('keydown', (event) => {
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
    }
  });

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
    ui.expanded.clear();
    ui.messageCount = -1;
    refresh();
  });

  connectEvents();
  loadCommands();
  loadMonitoring();
  refresh();
}

if (typeof document !== 'undefined') startSandbox();
