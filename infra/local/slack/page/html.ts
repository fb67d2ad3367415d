import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { PAGE_BASE_STYLE } from '../../../../lib/slack-kit/page-style.js';
import { COMMAND_TEXT_LIMIT } from './commands.js';

/**
 * The sandbox page: one HTML document with its style inline and its script as native ES modules
 * (`client/`, entered at `client/main.js`) that the page server serves beside it, so it needs no
 * build step. The Content-Security-Policy allows exactly this style (by hash) and scripts from the
 * page's own origin only, never inline or evaluated code, so text the bot posts can never run as
 * code even if an escape were missed.
 */

export interface SandboxPage {
  readonly html: string;
  readonly contentSecurityPolicy: string;
  /** The page's script modules, by the path each is served at (`/client/main.js`, …). */
  readonly scripts: ReadonlyMap<string, string>;
}

// The Slack client's own layout, on the colours, type and buttons the install pages share.
const STYLE = `${PAGE_BASE_STYLE}
body { margin: 0; height: 100vh; display: flex; }
.sidebar { width: 240px; background: var(--sidebar); color: var(--sidebar-text); display: flex; flex-direction: column; padding: 12px 0; flex-shrink: 0; }
.workspace { color: #fff; font-weight: 700; font-size: 17px; padding: 0 16px 12px; border-bottom: 1px solid #5d2c5d; }
.seat { padding: 12px 16px; border-bottom: 1px solid #5d2c5d; }
.seat label { display: block; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; margin-bottom: 4px; }
.seat select { width: 100%; padding: 4px; border-radius: 4px; border: 0; }
.sidebar h2 { font-size: 13px; font-weight: 600; margin: 14px 16px 4px; color: var(--sidebar-text); }
.channel-link { display: block; padding: 4px 16px; color: var(--sidebar-text); text-decoration: none; }
.channel-link:hover { background: #350d36; }
.home-tab { padding: 8px 0; }
.channel-link.active { background: var(--sidebar-active); color: #fff; }
.workspaces { padding: 8px 0; border-bottom: 1px solid #5d2c5d; }
.add-to-slack { display: inline-block; margin: 2px 16px 6px; padding: 2px 8px; border-radius: 4px; background: #fff; color: var(--sidebar); font-size: 12px; font-weight: 700; text-decoration: none; }
.monitoring { border-top: 1px solid #5d2c5d; margin-top: 12px; padding-bottom: 4px; }
.monitoring .outside { font-weight: 400; font-size: 11px; opacity: .8; }
.issue-form { display: flex; flex-direction: column; gap: 4px; padding: 0 16px; }
.issue-form select, .issue-form input { width: 100%; padding: 4px; border-radius: 4px; border: 0; font-size: 13px; }
.issue-form button, .issue-list button { align-self: flex-start; border: 0; border-radius: 4px; background: #fff; color: var(--sidebar); font-size: 12px; font-weight: 700; padding: 3px 8px; cursor: pointer; }
.issue-list { list-style: none; margin: 6px 0 0; padding: 0 16px; font-size: 12px; }
.issue-list li { display: flex; gap: 6px; align-items: center; padding: 2px 0; }
.issue-list .issue-label { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.issue-list .resolved { opacity: .6; text-decoration: line-through; }
.sidebar .hint { margin-top: auto; padding: 12px 16px; font-size: 12px; line-height: 1.4; }
.sidebar .hint code { background: #5d2c5d; color: #fff; }
.sidebar .hint.memory { margin-top: 0; padding-top: 0; opacity: .85; }
main { flex: 1; display: flex; flex-direction: column; min-width: 0; }
.channel-header { padding: 12px 20px; border-bottom: 1px solid var(--border); font-weight: 700; font-size: 17px; display: flex; gap: 12px; align-items: baseline; }
.channel-header .as { font-weight: 400; font-size: 13px; color: var(--muted); }
.connection { margin-left: auto; font-size: 12px; font-weight: 400; color: var(--muted); }
.connection.offline { color: var(--danger); }
.messages { flex: 1; overflow-y: auto; padding: 8px 0 16px; }
.empty { color: var(--muted); padding: 24px 20px; }
.message { display: flex; gap: 10px; padding: 6px 20px; }
.message:hover { background: #f8f8f8; }
.message.ephemeral { background: var(--ephemeral); border-left: 3px solid #c7c7c7; }
.avatar { width: 36px; height: 36px; border-radius: 6px; color: #fff; display: flex; align-items: center; justify-content: center; font-weight: 700; flex-shrink: 0; }
.message-body { min-width: 0; flex: 1; }
.meta { display: flex; gap: 8px; align-items: baseline; }
.author { font-weight: 800; }
.app-badge { font-size: 10px; background: #e8e8e8; color: var(--muted); padding: 1px 3px; border-radius: 2px; font-weight: 700; }
.time, .edited { color: var(--muted); font-size: 12px; }
.only-you { color: var(--muted); font-size: 12px; margin-bottom: 2px; }
.text { line-height: 1.46; overflow-wrap: anywhere; }
.text a, .mrkdwn a { color: var(--link); text-decoration: none; }
.text a:hover, .mrkdwn a:hover { text-decoration: underline; }
pre { font-family: Menlo, Consolas, monospace; font-size: 12px; background: var(--code); border: 1px solid #ddd; border-radius: 4px; padding: 8px; white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; }
blockquote { border-left: 4px solid #ddd; margin: 4px 0; padding-left: 10px; color: var(--muted); }
.mention { background: #e8f5fa; color: var(--link); border-radius: 3px; padding: 0 2px; }
.bk-header { font-size: 18px; font-weight: 800; margin: 4px 0; }
.bk-section { display: flex; gap: 12px; margin: 4px 0; align-items: flex-start; }
.bk-section-main { flex: 1; min-width: 0; }
.bk-fields { display: grid; grid-template-columns: 1fr 1fr; gap: 6px 16px; margin-top: 4px; }
.bk-context { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; color: var(--muted); font-size: 13px; margin: 4px 0; }
.bk-context img { width: 16px; height: 16px; }
.bk-divider { border: 0; border-top: 1px solid var(--border); margin: 8px 0; }
.bk-image img { max-width: 360px; max-height: 300px; border-radius: 4px; border: 1px solid var(--border); display: block; }
.bk-image .title { font-size: 13px; color: var(--muted); margin-bottom: 4px; }
.bk-accessory-image { width: 72px; height: 72px; object-fit: cover; border-radius: 4px; }
.bk-actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 6px 0; }
.bk-button { border: 1px solid #bbb; background: #fff; border-radius: 4px; padding: 3px 12px; font-weight: 700; font-size: 13px; cursor: pointer; min-height: 28px; }
.bk-button:hover { background: #f4f4f4; }
.bk-button.primary { background: var(--primary); border-color: var(--primary); color: #fff; }
.bk-button.danger { color: var(--danger); border-color: var(--danger); }
.bk-button:disabled { opacity: .5; cursor: default; }
.bk-select { border: 1px solid #bbb; border-radius: 4px; padding: 3px 6px; font-size: 13px; background: #fff; min-height: 28px; }
.bk-unsupported { color: var(--muted); font-style: italic; font-size: 13px; }
.files { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 4px; }
.files img { max-width: 360px; max-height: 300px; border: 1px solid var(--border); border-radius: 4px; }
.file-link { border: 1px solid var(--border); border-radius: 4px; padding: 6px 10px; color: var(--link); text-decoration: none; }
.thread-toggle { background: none; border: 0; color: var(--link); font-weight: 700; font-size: 13px; padding: 2px 0; cursor: pointer; }
.replies { border-left: 2px solid var(--border); margin-top: 4px; }
.replies .message { padding-left: 12px; }
.composer { position: relative; padding: 0 20px 16px; }
.composer form { display: flex; border: 1px solid #bbb; border-radius: 8px; overflow: hidden; }
.composer input { flex: 1; border: 0; padding: 10px 12px; outline: none; }
.composer button { border: 0; background: var(--primary); color: #fff; padding: 0 18px; font-weight: 700; cursor: pointer; }
.composer button:disabled { background: #9bb; }
.completions { position: absolute; bottom: 100%; left: 20px; right: 20px; margin: 0 0 4px; padding: 4px 0; list-style: none; background: #fff; border: 1px solid #ccc; border-radius: 6px; box-shadow: 0 4px 12px rgba(0,0,0,.12); max-height: 320px; overflow-y: auto; }
.completions li { padding: 5px 12px; cursor: pointer; display: flex; gap: 10px; align-items: baseline; }
.completions li.active, .completions li:hover { background: var(--sidebar-active); color: #fff; }
.completions .word { font-weight: 700; white-space: nowrap; }
.completions .summary { font-size: 12px; opacity: .8; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.usage { font-size: 12px; color: var(--muted); padding: 4px 2px 0; font-family: Menlo, Consolas, monospace; min-height: 18px; overflow-wrap: anywhere; }
.composer-limit { font-size: 12px; color: var(--muted); padding: 4px 2px 0; text-align: right; }
.composer-limit.over { color: var(--danger); font-weight: 700; }
.status { font-size: 12px; color: var(--muted); padding: 2px 2px 0; min-height: 16px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.status.error { color: var(--danger); }
.modal-backdrop { position: fixed; inset: 0; background: rgba(0,0,0,.45); display: flex; align-items: center; justify-content: center; z-index: 10; }
.modal { background: #fff; border-radius: 8px; width: 520px; max-width: 94vw; max-height: 90vh; display: flex; flex-direction: column; box-shadow: 0 18px 48px rgba(0,0,0,.35); }
.modal header { padding: 16px 20px; font-size: 20px; font-weight: 800; border-bottom: 1px solid var(--border); }
.modal .modal-body { padding: 12px 20px; overflow-y: auto; }
.modal footer { padding: 12px 20px; border-top: 1px solid var(--border); display: flex; justify-content: flex-end; gap: 8px; }
.bk-input { margin: 12px 0; }
.bk-input label { display: block; font-weight: 700; margin-bottom: 6px; }
.bk-input .optional { font-weight: 400; color: var(--muted); }
.bk-input input, .bk-input textarea { width: 100%; border: 1px solid #bbb; border-radius: 4px; padding: 8px; }
.bk-input .hint { font-size: 12px; color: var(--muted); margin-top: 4px; }
.bk-input .field-error { font-size: 13px; color: var(--danger); margin-top: 4px; }
.modal-error { color: var(--danger); font-size: 13px; }
.slackbot-form { display: flex; flex-direction: column; gap: 6px; border: 1px solid #bbb; border-radius: 8px; padding: 8px 12px; }
.slackbot-row { display: flex; gap: 8px; align-items: center; }
.slackbot-row label { font-weight: 700; }
.slackbot-row select { flex: 1; min-width: 0; border: 1px solid #bbb; border-radius: 4px; padding: 4px; }
.slackbot-row button { border: 0; border-radius: 4px; background: var(--primary); color: #fff; padding: 6px 14px; font-weight: 700; cursor: pointer; }
.slackbot-row button:disabled { background: #9bb; cursor: default; }
.slackbot-form textarea { width: 100%; border: 1px solid #bbb; border-radius: 4px; padding: 8px; font-family: Menlo, Consolas, monospace; font-size: 12px; resize: vertical; }
.slackbot-help { font-size: 13px; color: var(--muted); max-height: 120px; overflow-y: auto; }
.slackbot-help ul { margin: 4px 0 0; padding-left: 18px; }
.slackbot-refusal { color: var(--danger); }
[hidden] { display: none !important; }
`;

const BODY = `
<aside class="sidebar">
  <div class="workspace" data-testid="workspace-name">Slack sandbox</div>
  <nav class="workspaces" data-testid="workspace-list"></nav>
  <div class="seat">
    <label for="user-picker">You are</label>
    <select id="user-picker" data-testid="user-picker"></select>
  </div>
  <h2>Apps</h2>
  <nav>
    <a class="channel-link" data-testid="home-link" href="?tab=home">🏠 Cloud · Home</a>
    <a class="channel-link" data-testid="slackbot-link" href="?tab=slackbot">🤖 Slackbot</a>
  </nav>
  <h2>Channels</h2>
  <nav data-testid="channel-list"></nav>
  <section class="monitoring" data-testid="monitoring" hidden>
    <h2>Cloud monitoring <span class="outside">emulator, not Slack</span></h2>
    <form class="issue-form" data-testid="issue-form" autocomplete="off">
      <select data-testid="issue-service" aria-label="Managed service"></select>
      <input data-testid="issue-summary" maxlength="200" placeholder="Summary (optional)" aria-label="Issue summary">
      <button type="submit" data-testid="issue-raise">Raise issue</button>
    </form>
    <ul class="issue-list" data-testid="issue-list"></ul>
  </section>
  <p class="hint">Start with <code>/cloud login</code> and paste the demo token printed in the terminal. Switch who you are above to approve someone else's request. <b>Slackbot</b> under Apps calls the bot's tools as Slackbot would for you.</p>
  <p class="hint memory" data-testid="memory-notice">The sandbox keeps everything in memory: stopping <code>npm start</code> forgets logins, policies, reports, requests and messages, and the demo data starts afresh.</p>
</aside>
<main>
  <div class="channel-header">
    <span data-testid="channel-name"></span>
    <span class="as" data-testid="acting-as"></span>
    <span class="connection" data-testid="connection">connecting…</span>
  </div>
  <div class="messages" data-testid="message-list" aria-live="polite"></div>
  <div class="composer">
    <ul class="completions" data-testid="completions" role="listbox" hidden></ul>
    <form data-testid="command-form" autocomplete="off">
      <input data-testid="command-input" name="command" placeholder="/cloud help" aria-label="Slash command" spellcheck="false" data-limit="${COMMAND_TEXT_LIMIT}">
      <button type="submit" data-testid="command-send">Send</button>
    </form>
    <form class="slackbot-form" data-testid="slackbot-form" autocomplete="off" hidden>
      <div class="slackbot-row">
        <label for="slackbot-tool">Tool</label>
        <select id="slackbot-tool" data-testid="slackbot-tool"></select>
        <button type="submit" data-testid="slackbot-send" disabled>Ask Slackbot</button>
      </div>
      <div class="slackbot-help" data-testid="slackbot-help"></div>
      <textarea data-testid="slackbot-arguments" rows="5" spellcheck="false" aria-label="Arguments (JSON)" placeholder='{"operation": "volumes.list"}'></textarea>
    </form>
    <div class="composer-limit" data-testid="composer-limit" hidden></div>
    <div class="usage" data-testid="usage"></div>
    <div class="status" data-testid="status" role="status"></div>
  </div>
</main>
<div class="modal-backdrop" data-testid="modal-backdrop" hidden></div>
`;

function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

const CLIENT_DIR = new URL('./client/', import.meta.url);

/**
 * Where the browser code lives: plain ES modules, linted and type-checked with the rest of the
 * code, each served as it is. Several files instead of one so each part of the page has its own;
 * modules rather than files joined at serve time so each says what it uses (`import`), and the
 * browser, `tsc` and Biome all read them as they are.
 */
function clientScripts(): ReadonlyMap<string, string> {
  const files = readdirSync(CLIENT_DIR).filter((name) => name.endsWith('.js'));
  return new Map(files.map((name) => [`/client/${name}`, readFileSync(new URL(name, CLIENT_DIR), 'utf8')]));
}

export function sandboxPage(): SandboxPage {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Slack sandbox</title>
<style>${STYLE}</style>
</head>
<body>${BODY}<script type="module" src="/client/main.js"></script>
</body>
</html>
`;
  const contentSecurityPolicy = [
    "default-src 'none'",
    // The page's modules (`client/`): every other path of the page server answers HTML or JSON sent
    // as nosniff, or the event stream, none of which a browser runs as a script.
    "script-src 'self'",
    `style-src ${sha256Source(STYLE)}`,
    "connect-src 'self'",
    // Charts and pictures come from the Slack stand-in on another port, or from anywhere a block links.
    'img-src http: https: data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, contentSecurityPolicy, scripts: clientScripts() };
}
