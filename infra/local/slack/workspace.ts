import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { signedHeaders } from '../../../lib/slack-kit/signing.js';
import type { SlackStandIn } from './server.js';
import { type EnvelopeType, NotAcknowledgedError } from './socket-mode.js';
import type { StoredFile, StoredMessage, StoredView } from './store.js';
import { wireFile } from './web-api.js';

/**
 * Slack's side of the conversation with the bot: what Slack sends when a person types a slash
 * command, clicks a button or submits a modal. Requests are signed with the signing secret and
 * delivered over HTTP to the bot's endpoint, or sent as Socket Mode envelopes on the app's
 * WebSocket; the bot's immediate answers are shown in the stand-in as Slack would show them.
 * Tests and the sandbox page both act through this.
 */

/** An app with request URLs: Slack signs each request and posts it there. */
export interface HttpDelivery {
  /** The bot's request URL (API Gateway route, or the local adapter in front of the handler). */
  readonly botUrl: string;
  readonly signingSecret: string;
}

/**
 * A Socket Mode app: requests go out on its WebSocket and the acknowledgement is the answer. One
 * that is not acknowledged in time throws `NotAcknowledgedError` (the person sees an error).
 */
export interface SocketModeDelivery {
  readonly socketMode: true;
}

export type WorkspaceOptions = WorkspaceSettings & (HttpDelivery | SocketModeDelivery);

interface WorkspaceSettings {
  readonly standIn: SlackStandIn;
  readonly command?: string;
  /** Which workspace the person acts in; the stand-in's seeded one by default. */
  readonly team?: { readonly id: string; readonly domain: string };
  /** Clock in epoch seconds for the signature timestamp (tests may send stale ones). */
  readonly nowSeconds?: () => number;
}

export interface Delivery {
  readonly status: number;
  /** The parsed JSON body of the bot's answer, or its text. */
  readonly body: unknown;
  /** The message Slack showed for the answer, when there was one. */
  readonly message?: StoredMessage | undefined;
  readonly durationMs: number;
}

export interface ClickTarget {
  readonly actionId: string;
  /** Which of several elements with this action id (by its value, or its option's value). */
  readonly value?: string;
  /** For overflow menus and selects: the option to pick (by value, or by its text). */
  readonly option?: string;
}

/** One request from Slack to the app, in the shape of its Socket Mode envelope. */
interface SlackRequest {
  readonly type: EnvelopeType;
  readonly payload: Readonly<Record<string, unknown>>;
  /** Slack's retry headers on a redelivered event (over HTTP; Socket Mode envelopes carry their own). */
  readonly retry?: Readonly<Record<string, string>>;
}

/** A file a person picks in a modal's `file_input`: its name and bytes. */
export interface PickedFile {
  readonly name: string;
  readonly bytes: Buffer;
}

/** What a person puts in one element of a modal: text (or a menu option), or files they upload. */
export type SubmittedValue = string | { readonly files: readonly PickedFile[] };

/** `file_input`'s `max_files` when unset, and Slack's size limit for each file (rule `file-input`). */
const FILE_INPUT_MAX_FILES = 10;
const FILE_INPUT_MAX_BYTES = 10 * 1024 * 1024;

interface FoundElement {
  readonly blockId: string;
  readonly element: Record<string, unknown>;
}

export class SlackWorkspace {
  readonly #options: WorkspaceOptions;

  constructor(options: WorkspaceOptions) {
    this.#options = options;
  }

  get standIn(): SlackStandIn {
    return this.#options.standIn;
  }

  get teamId(): string {
    return this.#options.team?.id ?? this.#options.standIn.store.seed.team.id;
  }

  get #teamDomain(): string {
    return this.#options.team?.domain ?? this.#options.standIn.store.seed.team.domain;
  }

  /**
   * An Events API delivery for this workspace (`app_uninstalled`, `tokens_revoked`), signed like
   * every other request. `eventId` is Slack's id of the delivery: a redelivery repeats it.
   * `retry` sends it as Slack's own retry of a delivery that failed: up to 3 retries, marked by
   * `X-Slack-Retry-Num` and `X-Slack-Retry-Reason` (api.slack.com/apis/events-api, "Retries";
   * SLACK-FACTS.md, "Deadlines and retries").
   */
  async event(
    event: Record<string, unknown>,
    eventId = `Ev${randomBytes(6).toString('hex')}`,
    retry?: { readonly num: 1 | 2 | 3; readonly reason: 'http_error' | 'http_timeout' | 'unknown_error' },
  ): Promise<Delivery> {
    return this.#send({
      type: 'events_api',
      payload: {
        token: 'deprecated-verification-token',
        team_id: this.teamId,
        api_app_id: 'A0CLOUD',
        event: { event_ts: `${Math.floor(Date.now() / 1000)}.000100`, ...event },
        type: 'event_callback',
        event_id: eventId,
        event_time: Math.floor(Date.now() / 1000),
      },
      ...(retry
        ? { retry: { 'x-slack-retry-num': String(retry.num), 'x-slack-retry-reason': retry.reason } }
        : {}),
    });
  }

  /** Someone removes the app from this workspace: Slack revokes its tokens and tells the app. */
  async uninstall(eventId?: string): Promise<Delivery> {
    this.#options.standIn.oauth.revoke(this.teamId);
    return this.event({ type: 'app_uninstalled' }, eventId);
  }

  /**
   * An admin revokes the bot's token (the app stays listed): Slack revokes it and sends
   * `tokens_revoked` naming the bot user.
   */
  async revokeBotToken(eventId?: string): Promise<Delivery> {
    this.#options.standIn.oauth.revoke(this.teamId);
    const bot = this.#options.standIn.store.seed.bot.userId;
    return this.event({ type: 'tokens_revoked', tokens: { bot: [bot] } }, eventId);
  }

  /**
   * `user` opens the app's Home tab (or its Messages tab): Slack sends `app_home_opened` with the
   * user, the app's DM channel with them, the tab, and the Home view once one was published
   * (rule `home-tab`).
   */
  async openHome(user: string, tab: 'home' | 'messages' = 'home'): Promise<Delivery> {
    const published = this.#options.standIn.store.homeView(this.teamId, user);
    return this.event({
      type: 'app_home_opened',
      user,
      channel: `D${user}`,
      tab,
      ...(published ? { view: published.view } : {}),
    });
  }

  /** What every interaction payload `user` sends starts with: a click anywhere, or a modal submitted. */
  #interactionBy(type: 'block_actions' | 'view_submission', user: string) {
    return {
      type,
      team: { id: this.teamId, domain: this.#teamDomain },
      user: {
        id: user,
        username: this.#options.standIn.store.user(user)?.name ?? user,
        team_id: this.teamId,
      },
      api_app_id: 'A0CLOUD',
      token: 'deprecated-verification-token',
    };
  }

  /**
   * `user` clicks a button on a view (their Home tab): Slack sends `block_actions` with
   * `container.type: view` and the view, and no channel or `response_url` (rule `home-tab`).
   */
  async clickInView(user: string, view: StoredView, target: ClickTarget): Promise<Delivery> {
    const { standIn } = this.#options;
    const blocks = Array.isArray(view.view.blocks) ? (view.view.blocks as unknown[]) : [];
    const found = findElement(blocks, target);
    if (!found) throw new Error(`No element ${target.actionId} ${target.value ?? ''} in view ${view.id}`);
    const payload = {
      ...this.#interactionBy('block_actions', user),
      container: { type: 'view', view_id: view.id },
      trigger_id: standIn.triggerIdFor(user, { viewId: view.id }),
      view: { ...view.view, id: view.id },
      actions: [actionOf(found, target)],
    };
    return this.#send({ type: 'interactive', payload });
  }

  /**
   * `/cloud <text>` typed by `user` in `channel`. `triggerId` replaces the fresh trigger Slack
   * sends, to deliver one that was already used or has expired by the time the bot uses it.
   */
  async command(
    user: string,
    channel: string,
    text: string,
    options: { readonly triggerId?: string } = {},
  ): Promise<Delivery & { responseUrl: string }> {
    const { standIn } = this.#options;
    const command = this.#options.command ?? '/cloud';
    const responseUrl = standIn.responseUrlFor(channel, user, { command: `${command} ${text}` });
    const form = new URLSearchParams({
      token: 'deprecated-verification-token',
      team_id: this.teamId,
      team_domain: this.#teamDomain,
      channel_id: channel,
      channel_name: standIn.store.channel(channel)?.name ?? channel,
      user_id: user,
      user_name: standIn.store.user(user)?.name ?? user,
      command,
      text,
      api_app_id: 'A0CLOUD',
      is_enterprise_install: 'false',
      response_url: responseUrl,
      trigger_id: options.triggerId ?? standIn.triggerIdFor(user),
    });
    const delivery = await this.#send({ type: 'slash_commands', payload: Object.fromEntries(form) });
    const message =
      delivery.status === 200 && delivery.body && typeof delivery.body === 'object'
        ? standIn.acknowledge(responseUrl, delivery.body)
        : undefined;
    return { ...delivery, message, responseUrl };
  }

  /** `user` clicks a button or picks a menu option in `message`. */
  async click(user: string, message: StoredMessage, target: ClickTarget): Promise<Delivery> {
    const { standIn } = this.#options;
    const found = findElement(message.blocks, target);
    if (!found)
      throw new Error(`No element ${target.actionId} ${target.value ?? ''} in message ${message.ts}`);
    const payload = {
      ...this.#interactionBy('block_actions', user),
      container: {
        type: 'message',
        message_ts: message.ts,
        channel_id: message.channel,
        is_ephemeral: message.ephemeral,
      },
      trigger_id: standIn.triggerIdFor(user),
      channel: { id: message.channel, name: standIn.store.channel(message.channel)?.name ?? message.channel },
      message: { ts: message.ts, text: message.text, blocks: message.blocks },
      response_url: standIn.responseUrlFor(message.channel, user, { triggeredBy: { messageTs: message.ts } }),
      actions: [actionOf(found, target)],
    };
    return this.#send({ type: 'interactive', payload });
  }

  /**
   * `user` submits an open modal with `values` keyed by block id then action id: text typed into
   * an input or picked in a menu, or for a `file_input` the files the person uploads (stored as
   * Slack stores uploads, in this workspace and in no channel; rule `file-input`). The modal closes
   * unless the bot answers with errors.
   */
  async submitView(
    user: string,
    view: StoredView,
    values: Readonly<Record<string, Readonly<Record<string, SubmittedValue>>>>,
  ): Promise<Delivery> {
    // Slack sends the state of every input of the modal, empty ones included.
    const state: Record<string, Record<string, unknown>> = {};
    const blocks = Array.isArray(view.view.blocks) ? (view.view.blocks as Record<string, unknown>[]) : [];
    for (const block of blocks) {
      const element = block.element as Record<string, unknown> | undefined;
      if (block.type !== 'input' || !element) continue;
      const blockId = String(block.block_id ?? '');
      const actionId = String(element.action_id ?? '');
      const value = values[blockId]?.[actionId];
      if (element.type === 'file_input') {
        if (typeof value === 'string') throw new Error(`${blockId}.${actionId} takes files, not text`);
        state[blockId] = { [actionId]: { type: 'file_input', files: this.#upload(user, element, value) } };
        continue;
      }
      if (value !== undefined && typeof value !== 'string')
        throw new Error(`${blockId}.${actionId} is a ${String(element.type)}, which takes no files`);
      state[blockId] = {
        [actionId]:
          element.type === 'static_select'
            ? {
                type: 'static_select',
                selected_option:
                  value === undefined ? null : { text: { type: 'plain_text', text: value }, value },
              }
            : { type: String(element.type), value: value ?? null },
      };
    }
    for (const [blockId, actions] of Object.entries(values)) {
      if (state[blockId]) continue;
      state[blockId] = Object.fromEntries(
        Object.entries(actions).map(([actionId, value]) => [actionId, { type: 'plain_text_input', value }]),
      );
    }
    const payload = {
      ...this.#interactionBy('view_submission', user),
      trigger_id: this.#options.standIn.triggerIdFor(user),
      view: { ...view.view, id: view.id, state: { values: state } },
      response_urls: [],
    };
    const delivery = await this.#send({ type: 'interactive', payload });
    const answer = delivery.body as { response_action?: string } | undefined;
    if (delivery.status === 200 && answer?.response_action !== 'errors')
      this.#options.standIn.store.closeView(view.id);
    return delivery;
  }

  /**
   * The files `user` uploads through a `file_input`, as Slack's client lets them (rule
   * `file-input`): at most `max_files` (10 unless set), of the element's `filetypes` when it lists
   * some, each at most 10 MB; stored in this workspace, shared nowhere, described as Slack does.
   */
  #upload(
    user: string,
    element: Record<string, unknown>,
    picked: { readonly files: readonly PickedFile[] } | undefined,
  ): Record<string, unknown>[] {
    const files = picked?.files ?? [];
    const maxFiles = typeof element.max_files === 'number' ? element.max_files : FILE_INPUT_MAX_FILES;
    if (files.length > maxFiles) throw new Error(`The file input takes at most ${maxFiles} files.`);
    const filetypes = Array.isArray(element.filetypes) ? element.filetypes.map(String) : undefined;
    const { standIn } = this.#options;
    const { store } = standIn;
    return files.map((picked) => {
      const extension = picked.name.includes('.') ? (picked.name.split('.').pop() ?? '') : '';
      if (filetypes && !filetypes.includes(extension.toLowerCase()))
        throw new Error(`The file input takes ${filetypes.join(', ')} files, not ${picked.name}.`);
      if (picked.bytes.length > FILE_INPUT_MAX_BYTES)
        throw new Error(`Slack takes files of at most 10 MB through a file input, not ${picked.name}.`);
      const now = store.now();
      const file: StoredFile = {
        id: store.newId('F'),
        name: picked.name,
        title: picked.name,
        declaredLength: picked.bytes.length,
        bytes: picked.bytes,
        uploadedAt: now,
        completedAt: now,
        processedAt: now,
        channels: [],
        team: this.teamId,
        user,
      };
      store.putFile(file);
      return wireFile(file, { store, baseUrl: standIn.url });
    });
  }

  /** Sends an arbitrary body over HTTP (tests of tampered or malformed requests). */
  async deliverRaw(rawBody: string, headers: Record<string, string>): Promise<Delivery> {
    if ('socketMode' in this.#options) throw new Error('A Socket Mode app has no request URL to post to.');
    return this.#post(this.#options.botUrl, rawBody, headers);
  }

  async #send(slackRequest: SlackRequest): Promise<Delivery> {
    const options = this.#options;
    if ('socketMode' in options) return this.#sendOnSocket(slackRequest);
    const now = options.nowSeconds?.() ?? Math.floor(Date.now() / 1000);
    // Over HTTP: commands form-encoded, interactions as a `payload` form field, events as JSON.
    if (slackRequest.type === 'events_api') {
      const body = JSON.stringify(slackRequest.payload);
      return this.#post(options.botUrl, body, {
        ...signedHeaders(options.signingSecret, body, now),
        'content-type': 'application/json',
        ...slackRequest.retry,
      });
    }
    const rawBody =
      slackRequest.type === 'slash_commands'
        ? new URLSearchParams(slackRequest.payload as Record<string, string>).toString()
        : new URLSearchParams({ payload: JSON.stringify(slackRequest.payload) }).toString();
    return this.#post(options.botUrl, rawBody, signedHeaders(options.signingSecret, rawBody, now));
  }

  async #sendOnSocket(slackRequest: SlackRequest): Promise<Delivery> {
    const started = performance.now();
    const outcome = await this.#options.standIn.socketMode.deliver(slackRequest.type, slackRequest.payload);
    if (!outcome.acknowledged) throw new NotAcknowledgedError(outcome);
    // The acknowledgement's payload is the answer, as the HTTP response body is for a request URL.
    return { status: 200, body: outcome.payload ?? '', durationMs: performance.now() - started };
  }

  async #post(botUrl: string, rawBody: string, headers: Record<string, string>): Promise<Delivery> {
    const started = performance.now();
    const response = await request(botUrl, { method: 'POST', headers, body: rawBody });
    const text = await response.body.text();
    let body: unknown = text;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    return { status: response.statusCode, body, durationMs: performance.now() - started };
  }
}

/** Where Slack sent the browser after Sign in with Slack: the app's redirect URI and what it carries. */
export interface SignInRedirect {
  /** The whole redirect URL, to follow as the browser would (or to tamper with). */
  readonly url: string;
  /** The one-time code, when the person allowed. */
  readonly code?: string;
  readonly state?: string;
  /** `access_denied` when the person cancelled. */
  readonly error?: string;
}

export interface SignInChoice {
  /** Who the person says they are on the page; `U0ALICE` by default. */
  readonly user?: string;
  /** Allow (the default) or Cancel. */
  readonly decision?: 'allow' | 'deny';
}

/**
 * Sign in with Slack as a person's browser goes through it, for tests that walk an app's flow
 * without a browser: Slack's authorize page at `authorizeUrl` (the stand-in's
 * `/openid/connect/authorize?…`, as the app built it) opens, the person picks who they are from
 * the workspace's people and allows (or cancels), and Slack's redirect back to the app is
 * returned, not followed. The form is submitted as the page carries it, so what the app asked
 * for is what the stand-in checks again. Throws if the page does not open or does not offer
 * `user`, with the page's own words.
 */
export async function signInWithSlack(
  authorizeUrl: string,
  choice: SignInChoice = {},
): Promise<SignInRedirect> {
  const user = choice.user ?? 'U0ALICE';
  const page = await request(authorizeUrl);
  const html = await page.body.text();
  if (page.statusCode !== 200)
    throw new Error(`Slack's sign-in page did not open (HTTP ${page.statusCode}): ${pageText(html)}`);
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  if (!action) throw new Error("Slack's sign-in page has no form.");
  if (!html.includes(`<option value="${user}">`)) throw new Error(`The sign-in page does not offer ${user}.`);
  const form = new URLSearchParams();
  for (const [, name = '', value = ''] of html.matchAll(
    /<input type="hidden" name="([^"]*)" value="([^"]*)">/g,
  ))
    form.append(unescapeHtml(name), unescapeHtml(value));
  form.set('user', user);
  form.set('decision', choice.decision ?? 'allow');
  const answer = await request(new URL(unescapeHtml(action), authorizeUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const answerHtml = await answer.body.text();
  const location = answer.headers.location;
  if (answer.statusCode !== 302 || typeof location !== 'string')
    throw new Error(
      `Slack's sign-in page refused the form (HTTP ${answer.statusCode}): ${pageText(answerHtml)}`,
    );
  const back = new URL(location).searchParams;
  const optional = (name: string) => {
    const value = back.get(name);
    return value === null ? {} : { [name]: value };
  };
  return { url: location, ...optional('code'), ...optional('state'), ...optional('error') };
}

/** The text of the stand-in's pages, which `escapeHtml` writes as numeric character references. */
function unescapeHtml(text: string): string {
  return text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

function pageText(html: string): string {
  return unescapeHtml(html.replace(/<style>[^<]*<\/style>/g, '').replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}

function findElement(blocks: readonly unknown[], target: ClickTarget): FoundElement | undefined {
  for (const raw of blocks) {
    const block = raw as Record<string, unknown>;
    const blockId = String(block.block_id ?? '');
    const candidates: unknown[] = [];
    if (Array.isArray(block.elements)) candidates.push(...block.elements);
    if (block.accessory) candidates.push(block.accessory);
    for (const candidate of candidates) {
      const element = candidate as Record<string, unknown>;
      if (element.action_id !== target.actionId) continue;
      if (target.value !== undefined && element.type === 'button' && element.value !== target.value) continue;
      if (target.option !== undefined && element.type !== 'button' && !pickOption(element, target.option))
        continue;
      return { blockId, element };
    }
  }
  return undefined;
}

/** The `actions` entry of a click on `found`: a button's value, or the menu option picked. */
function actionOf({ element, blockId }: FoundElement, target: ClickTarget): Record<string, unknown> {
  const action: Record<string, unknown> = {
    type: element.type,
    action_id: element.action_id,
    block_id: blockId,
    action_ts: `${Math.floor(Date.now() / 1000)}.${randomBytes(3).readUIntBE(0, 3)}`,
  };
  if (element.type === 'button') {
    action.value = element.value;
    action.text = element.text;
  } else {
    const option = pickOption(element, target.option);
    if (!option) throw new Error(`No option ${target.option ?? ''} in ${String(element.action_id)}`);
    action.selected_option = option;
  }
  return action;
}

function pickOption(element: Record<string, unknown>, wanted: string | undefined): unknown {
  const options = Array.isArray(element.options) ? (element.options as Record<string, unknown>[]) : [];
  if (wanted === undefined) return options[0];
  return options.find(
    (option) => option.value === wanted || (option.text as { text?: string } | undefined)?.text === wanted,
  );
}
