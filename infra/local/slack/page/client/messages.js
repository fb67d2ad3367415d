// @ts-check
// The channel view: its messages (author, time, blocks or text, files) and their threads. On the
// Home tab, the Home tab instead; on Slackbot's, the DM with Slackbot.

import { mrkdwnElement } from './block-text.js';
import { blocksElement } from './blocks.js';
import { avatarElement, node } from './dom.js';
import { safeUrl } from './escaping.js';
import { renderHome } from './home.js';
import { els, loadedState, ui } from './session.js';
import { renderSlackbot } from './slackbot.js';

/** @typedef {import('../client-api.js').ClientFile} ClientFile */
/** @typedef {import('../client-api.js').ClientMessage} ClientMessage */
/** @typedef {import('./block-elements.js').RenderContext} RenderContext */

export function renderMessages() {
  if (ui.tab === 'home') {
    renderHome();
    return;
  }
  if (ui.tab === 'slackbot') {
    renderSlackbot();
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

  const avatar = avatarElement(message.author.realName, message.author.id);
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
