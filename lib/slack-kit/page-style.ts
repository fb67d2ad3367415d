/**
 * The look of the web pages a person sees around "Add to Slack": the bot's install, success and
 * failure pages, and locally the Slack stand-in's authorize page and the sandbox page, which start
 * from the same colours, type and buttons so the local flow reads as one product. Inline styles
 * only: the pages load nothing else.
 */

/** Colours, type, links, code and buttons: what every page shares. */
export const PAGE_BASE_STYLE = `
:root {
  --sidebar: #3f0e40; --sidebar-text: #cfc3cf; --sidebar-active: #1164a3; --border: #e2e2e2;
  --text: #1d1c1d; --muted: #616061; --link: #1264a3; --primary: #007a5a; --danger: #e01e5a;
  --ephemeral: #f8f8f8; --code: #f6f6f6; --code-text: #e01e5a;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
  font-size: 15px; color: var(--text);
}
* { box-sizing: border-box; }
button, input, select, textarea { font: inherit; }
a { color: var(--link); }
code { font-family: Menlo, Consolas, monospace; font-size: 12px; background: var(--code); color: var(--code-text); border: 1px solid #ddd; border-radius: 3px; padding: 1px 3px; }
.button { display: inline-block; border: 1px solid #bbb; background: #fff; color: var(--text); border-radius: 4px; padding: 8px 16px; font-weight: 700; cursor: pointer; text-decoration: none; }
.button:hover { background: #f4f4f4; }
.button.primary { background: var(--primary); border-color: var(--primary); color: #fff; }
.button.primary:hover { background: #148567; }
`;

/** A single card on the workspace colour: the install pages and Slack's authorize page. */
const DOCUMENT_STYLE = `
body { margin: 0; min-height: 100vh; background: var(--sidebar); display: flex; justify-content: center; align-items: flex-start; padding: 56px 16px; }
.card { background: #fff; border-radius: 8px; width: 100%; max-width: 520px; padding: 28px 32px; box-shadow: 0 18px 48px rgba(0,0,0,.35); }
.card h1 { font-size: 24px; font-weight: 800; margin: 0 0 12px; }
.card p { line-height: 1.46; margin: 8px 0; }
.card .muted { color: var(--muted); font-size: 13px; }
.choices { display: flex; flex-direction: column; gap: 8px; margin: 16px 0; }
.choice { display: flex; gap: 10px; align-items: center; border: 1px solid var(--border); border-radius: 6px; padding: 10px 12px; cursor: pointer; font-weight: 700; }
.choice:has(input:checked) { border-color: var(--sidebar-active); background: #e8f5fa; }
.actions { display: flex; gap: 8px; justify-content: flex-end; margin-top: 20px; }
`;

export const DOCUMENT_PAGE_STYLE = PAGE_BASE_STYLE + DOCUMENT_STYLE;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A whole page: `title` as its heading, `body` (HTML, already escaped) in the card below it. */
export function documentPage(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${DOCUMENT_PAGE_STYLE}</style></head><body><main class="card"><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}
