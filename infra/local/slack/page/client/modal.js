// @ts-check
// The open modal (a view the app opened), on top of the page: its blocks as a form, submitting it
// and closing it.

import { blocksElement } from './blocks.js';
import { node, required } from './dom.js';
import { els, loadedState, post, report, scheduleRefresh, setStatus, ui } from './session.js';

/** @typedef {import('../client-api.js').ClientView} ClientView */

export function renderModal() {
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
