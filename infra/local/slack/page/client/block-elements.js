// @ts-check
// Block Kit elements: buttons, menus and images (in sections and actions blocks), the fields of
// input blocks, and what a click sends to the bot, from a message or from the Home tab.

import { plain } from './block-text.js';
import { node } from './dom.js';
import { safeImageUrl, safeUrl } from './escaping.js';
import { post, report, scheduleRefresh, setStatus, ui } from './session.js';

/** @typedef {import('../client-api.js').BlockKitObject} BlockKitObject */
/** @typedef {import('../client-api.js').ClientMessage} ClientMessage */

/**
 * Where a block is drawn: in a message (its buttons and menus act on it), on the Home tab (its
 * buttons act on the view) or in a modal (its inputs are the form).
 * @typedef {{ message?: ClientMessage; interactive: boolean; form?: boolean; homeView?: string }} RenderContext
 */

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

/**
 * @param {BlockKitObject | undefined} element
 * @param {RenderContext} context
 * @returns {HTMLElement}
 */
export function interactiveElement(element, context) {
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
export function inputBlockElement(block, index, context) {
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
