import { request } from 'undici';
import { signInWithSlack } from '../../infra/local/slack/workspace.js';

/**
 * The person's part of an agent's sign-in, as a browser goes through it without one: the bot's
 * `/oauth/authorize` (which sets the sign-in's cookie and sends the browser to Slack), Slack's
 * sign-in page in the stand-in, the bot's `/oauth/callback` (the consent page), and the consent
 * form. Tests stop at any step to tamper with it.
 */

export interface ConsentForm {
  /** The page as served. */
  readonly html: string;
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Where the form posts, absolute. */
  readonly action: string;
  /** Its hidden fields. */
  readonly hidden: Record<string, string>;
  /** The home channels offered, by id. */
  readonly channels: readonly string[];
  /** The cookie the browser holds for this sign-in (`name=value`). */
  readonly cookie: string;
}

export interface AgentRedirect {
  readonly status: number;
  /** Where the bot sent the browser: the agent's redirect URI with the response. */
  readonly location: string;
  readonly params: URLSearchParams;
}

export function unescapeHtml(text: string): string {
  return text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

/** Opens the authorization URL and signs in with Slack as `user`: the consent page the bot shows. */
export async function openConsent(authorizeUrl: string, user = 'U0ALICE'): Promise<ConsentForm> {
  const start = await request(authorizeUrl);
  const startBody = await start.body.text();
  const location = start.headers.location;
  if (start.statusCode !== 302 || typeof location !== 'string')
    throw new Error(
      `The bot did not send the browser to Slack (HTTP ${start.statusCode}): ${startBody.slice(0, 300)}`,
    );
  const setCookie = start.headers['set-cookie'];
  const cookie = String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0] ?? '';
  const slack = await signInWithSlack(location, { user });
  if (!slack.code) throw new Error(`Slack did not sign ${user} in: ${slack.url}`);
  return consentAt(slack.url, cookie);
}

/** The bot's callback, from Slack's redirect, in a browser holding `cookie`. */
export async function consentAt(callbackUrl: string, cookie: string): Promise<ConsentForm> {
  const page = await request(callbackUrl, { headers: cookie ? { cookie } : {} });
  const html = await page.body.text();
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1];
  const hidden = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(
      ([, name = '', value = '']) => [unescapeHtml(name), unescapeHtml(value)],
    ),
  );
  const channels = [...html.matchAll(/<option value="([^"]*)">/g)].map(([, id = '']) => unescapeHtml(id));
  return {
    html,
    status: page.statusCode,
    headers: page.headers,
    action: action ? new URL(unescapeHtml(action), callbackUrl).toString() : '',
    hidden,
    channels,
    cookie,
  };
}

export interface ConsentAnswer {
  readonly decision?: 'allow' | 'deny';
  readonly channel?: string;
  readonly access?: 'read' | 'change';
  /** Fields to change or add, to tamper with the form. */
  readonly fields?: Record<string, string>;
  /** Another cookie than the page's own (`''` for none). */
  readonly cookie?: string;
}

/** Sends the consent form as the person answered it. */
export async function answerConsent(
  form: ConsentForm,
  answer: ConsentAnswer = {},
): Promise<AgentRedirect & { body: string }> {
  const body = new URLSearchParams({
    ...form.hidden,
    decision: answer.decision ?? 'allow',
    channel: answer.channel ?? form.channels[0] ?? '',
    access: answer.access ?? 'change',
    ...answer.fields,
  });
  const cookie = answer.cookie ?? form.cookie;
  const sent = await request(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: body.toString(),
  });
  const text = await sent.body.text();
  const location = typeof sent.headers.location === 'string' ? sent.headers.location : '';
  return {
    status: sent.statusCode,
    location,
    params: location ? new URL(location).searchParams : new URLSearchParams(),
    body: text,
  };
}

/** The whole sign-in: the agent's redirect with its code (or error). */
export async function signInAgent(
  authorizeUrl: string,
  answer: ConsentAnswer & { readonly user?: string } = {},
): Promise<AgentRedirect> {
  const form = await openConsent(authorizeUrl, answer.user);
  if (form.status !== 200)
    throw new Error(`The consent page did not open (HTTP ${form.status}): ${form.html.slice(0, 300)}`);
  return answerConsent(form, answer);
}
