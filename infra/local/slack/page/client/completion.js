// @ts-check
// What the command box suggests as the person types: the next word of the slash command and the
// usage line of what is typed so far. A pure function, which the tests load without a browser.

/** @typedef {import('../client-api.js').ClientCompletionData} ClientCompletionData */
/** @typedef {{ value: string; word: string; summary: string }} Completion */
/** @typedef {{ items: Completion[]; usage: string }} Completions */

/**
 * What the command box suggests for `typed`: the next word (a topic, then an action or
 * subcommand) and the usage line of what has been typed so far. `data` is `/api/commands`.
 * @param {string} typed
 * @param {ClientCompletionData} data
 * @returns {Completions}
 */
export function completionsFor(typed, data) {
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
