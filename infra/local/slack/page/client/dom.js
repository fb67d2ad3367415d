// @ts-check
// The page's elements: finding those its markup (`html.ts`) must hold, and making new ones.

/**
 * The element `selector` finds under `root`, of the kind the script uses it as. The page's markup
 * (`html.ts`) and its script are written apart: a missing or different element is a bug in one
 * of them, so it fails here by name instead of as a TypeError somewhere later.
 * @template {Element} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {new () => T} kind
 * @returns {T}
 */
export function required(root, selector, kind) {
  const element = root.querySelector(selector);
  if (!(element instanceof kind)) {
    throw new Error(`The sandbox page has no ${kind.name} at ${selector}: html.ts and client/ disagree.`);
  }
  return element;
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function node(tag, className, text) {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * A person's square beside their messages: their initial, on a colour of their own.
 * @param {string} name
 * @param {string} id
 */
export function avatarElement(name, id) {
  const avatar = node('div', 'avatar', (name || '?').slice(0, 1).toUpperCase());
  let hash = 0;
  for (const char of id) hash = (hash * 31 + char.charCodeAt(0)) % 360;
  avatar.style.background = `hsl(${hash}, 45%, 42%)`;
  return avatar;
}
