// @ts-check
// Block Kit text as elements: text objects (mrkdwn through the escaping renderer, plain text as
// text), and a message's own mrkdwn text.

import { node } from './dom.js';
import { replaceEmoji } from './emoji.js';
import { mrkdwnToHtml } from './mrkdwn.js';
import { names } from './session.js';

/** @typedef {import('../client-api.js').BlockKitObject} BlockKitObject */

/**
 * A value from the bot's blocks (a block, an element, a text object) as the renderer reads it.
 * Anything that is not an object reads as nothing: an unknown block, an empty text.
 * @param {unknown} value
 * @returns {BlockKitObject | undefined}
 */
export function blockKitObject(value) {
  return typeof value === 'object' && value !== null ? value : undefined;
}

/**
 * @param {unknown} text
 * @param {string} className
 */
export function mrkdwnElement(text, className) {
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
export function textObjectElement(value, className, tag = 'div') {
  const textObject = blockKitObject(value);
  if (!textObject || typeof textObject.text !== 'string') return node(tag, className);
  if (textObject.type === 'mrkdwn') return mrkdwnElement(textObject.text, className);
  return node(tag, className, textObject.emoji === false ? textObject.text : replaceEmoji(textObject.text));
}

/**
 * @param {unknown} value
 * @param {string} [fallback]
 */
export function plain(value, fallback = '') {
  const textObject = blockKitObject(value);
  return textObject && typeof textObject.text === 'string' ? replaceEmoji(textObject.text) : fallback;
}
