// @ts-check
// Block Kit blocks, in a message, a modal or the Home tab: headers, sections, context, dividers,
// images, actions, inputs, markdown and rich text. A block of another kind is named, not drawn.

import { inputBlockElement, interactiveElement } from './block-elements.js';
import { blockKitObject, mrkdwnElement, plain, textObjectElement } from './block-text.js';
import { node } from './dom.js';
import { EMOJI } from './emoji.js';
import { safeImageUrl } from './escaping.js';
import { names, ui } from './session.js';

/** @typedef {import('../client-api.js').BlockKitObject} BlockKitObject */
/** @typedef {import('./block-elements.js').RenderContext} RenderContext */

/**
 * @param {readonly unknown[]} blocks
 * @param {RenderContext} context
 */
export function blocksElement(blocks, context) {
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
