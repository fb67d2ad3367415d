import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import * as z from 'zod';
import { exchange } from '../../http-exchange.js';
import { prototypeKeyPath } from '../../prototype-keys.js';
import { isPublicAddress } from './public-addresses.js';
import '../../zod-settings.js';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-00; MCP-FACTS §2): an
 * agent's client id is an https URL, and the document there describes the agent. The bot fetches it
 * when a person starts signing the agent in, and trusts it only as far as the draft allows: the
 * document's `client_id` must be the URL itself, and the request's redirect URI one it lists.
 *
 * The URL is attacker input, so the fetch is fenced (the draft's §6, "server-side request forgery"):
 * https only; the host's addresses resolved once, every one of them public (`public-addresses.ts`),
 * and the connection made to those very addresses, so a second DNS answer cannot swap in a private
 * one; no redirect followed; a few seconds and a few kilobytes at most; a JSON object or nothing.
 * The local stack's agents serve their documents on http://localhost, which only its own policy
 * (`allowLoopbackHttp`) lets through.
 */

export interface ClientMetadataPolicy {
  /** The local stack only: documents on http://localhost / 127.0.0.1, never in AWS. */
  readonly allowLoopbackHttp: boolean;
  /** DNS, replaceable in tests; Node's resolver (all addresses, as the system orders them) by default. */
  readonly resolve?: ((host: string) => Promise<readonly ResolvedAddress[]>) | undefined;
  readonly timeoutMs?: number | undefined;
  readonly maxBytes?: number | undefined;
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

export const PRODUCTION_CLIENT_METADATA_POLICY: ClientMetadataPolicy = { allowLoopbackHttp: false };

/** The draft's example documents are a few hundred bytes; 5 KiB leaves room for long names. */
export const MAX_CLIENT_METADATA_BYTES = 5 * 1024;
export const CLIENT_METADATA_TIMEOUT_MS = 3000;
export const MAX_CLIENT_ID_LENGTH = 512;
const MAX_REDIRECT_URIS = 20;

export interface ClientMetadata {
  readonly clientId: string;
  readonly clientName?: string | undefined;
  readonly redirectUris: readonly string[];
}

export type ClientMetadataResult =
  | { readonly ok: true; readonly metadata: ClientMetadata }
  | { readonly ok: false; readonly reason: string };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a client id is a metadata document URL at all (rather than a registered id). */
export function looksLikeMetadataUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** The draft's §3 rules for the URL itself, before anything is fetched. */
export function checkClientIdUrl(clientId: string, policy: ClientMetadataPolicy): string | undefined {
  if (clientId.length > MAX_CLIENT_ID_LENGTH) return `is longer than ${MAX_CLIENT_ID_LENGTH} characters`;
  if (!/^[\x21-\x7e]+$/.test(clientId))
    return 'has a space, a control character or a character outside ASCII';
  if (!URL.canParse(clientId)) return 'is not a URL';
  const url = new URL(clientId);
  const loopbackHttp = url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(policy.allowLoopbackHttp && loopbackHttp)) return 'is not an https URL';
  if (clientId.includes('#')) return 'has a fragment';
  if (url.username !== '' || url.password !== '') return 'has a user name or password';
  if (url.pathname === '/' || url.pathname === '') return 'has no path';
  if (/(^|\/)\.{1,2}(\/|$)/.test(clientId.replace(/^[a-z]+:\/\/[^/]*/i, '').split('?')[0] ?? ''))
    return 'has a "." or ".." path segment';
  return undefined;
}

const DocumentSchema = z
  .object({
    client_id: z.string(),
    client_name: z.string().max(1000).optional(),
    redirect_uris: z.array(z.string().max(2000)).min(1).max(MAX_REDIRECT_URIS),
    token_endpoint_auth_method: z.string().optional(),
    grant_types: z.array(z.string()).max(10).optional(),
    response_types: z.array(z.string()).max(10).optional(),
    client_secret: z.unknown().optional(),
    client_secret_expires_at: z.unknown().optional(),
  })
  .loose();

/** The draft's §4 rules for the document, once fetched. */
export function parseClientMetadataDocument(clientId: string, body: string): ClientMetadataResult {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'is not JSON' };
  }
  if (prototypeKeyPath(json) !== undefined)
    return { ok: false, reason: 'uses a reserved key (__proto__, constructor or prototype)' };
  const parsed = DocumentSchema.safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '(document)')))];
    return { ok: false, reason: `is not a client metadata document (${fields.join(', ')})` };
  }
  const doc = parsed.data;
  // "The client_id property … MUST match the URL of the document using simple string comparison."
  if (doc.client_id !== clientId) return { ok: false, reason: 'names another client_id than its own URL' };
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined)
    return { ok: false, reason: 'carries a client secret, which a metadata document must not' };
  if (doc.token_endpoint_auth_method !== undefined && doc.token_endpoint_auth_method !== 'none')
    return { ok: false, reason: 'asks for client authentication; this server takes public clients only' };
  if (doc.grant_types !== undefined && !doc.grant_types.includes('authorization_code'))
    return { ok: false, reason: 'does not use the authorization_code grant' };
  if (doc.response_types !== undefined && !doc.response_types.includes('code'))
    return { ok: false, reason: 'does not use the code response type' };
  return {
    ok: true,
    metadata: {
      clientId: doc.client_id,
      ...(doc.client_name === undefined ? {} : { clientName: doc.client_name }),
      redirectUris: doc.redirect_uris,
    },
  };
}

/** Fetches and checks the document at `clientId`; refuses whatever the fences above refuse. */
export async function fetchClientMetadata(
  clientId: string,
  policy: ClientMetadataPolicy,
): Promise<ClientMetadataResult> {
  const problem = checkClientIdUrl(clientId, policy);
  if (problem) return { ok: false, reason: `The client id ${problem}.` };
  const url = new URL(clientId);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const loopbackAllowed = policy.allowLoopbackHttp && LOOPBACK_HOSTS.has(url.hostname);
  const maxBytes = policy.maxBytes ?? MAX_CLIENT_METADATA_BYTES;
  const timeoutMs = policy.timeoutMs ?? CLIENT_METADATA_TIMEOUT_MS;
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = isIP(host)
      ? [{ address: host, family: isIP(host) }]
      : await withTimeout((policy.resolve ?? resolveAll)(host), timeoutMs);
  } catch {
    return { ok: false, reason: 'The client id’s host has no address.' };
  }
  if (addresses.length === 0) return { ok: false, reason: 'The client id’s host has no address.' };
  if (!loopbackAllowed && !addresses.every((entry) => isPublicAddress(entry.address)))
    return { ok: false, reason: 'The client id’s host is not on the public internet.' };
  const agent = pinnedAgent(url, addresses);
  try {
    const answer = await exchange({
      url,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'cloud-chatops (client metadata)' },
      agent,
      service: 'Client metadata',
      connectTimeoutMs: timeoutMs,
      answerTimeoutMs: timeoutMs,
      maxAnswerBytes: maxBytes,
    });
    if (answer.status >= 300 && answer.status < 400)
      return { ok: false, reason: 'The client id’s URL answered a redirect, which is not followed.' };
    if (answer.status !== 200)
      return { ok: false, reason: `The client id’s URL answered HTTP ${answer.status}.` };
    const type = String(answer.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase();
    if (type !== 'application/json' && !type?.endsWith('+json'))
      return { ok: false, reason: 'The client id’s URL did not answer JSON.' };
    const parsed = parseClientMetadataDocument(clientId, answer.body.toString('utf8'));
    return parsed.ok ? parsed : { ok: false, reason: `The client metadata document ${parsed.reason}.` };
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'failed';
    const reason =
      code === 'ANSWER_TOO_LARGE'
        ? `The client metadata document is larger than ${maxBytes} bytes.`
        : code === 'ANSWER_TIMEOUT' || code === 'CONNECT_TIMEOUT'
          ? `The client id’s URL did not answer within ${timeoutMs} ms.`
          : 'The client id’s URL could not be reached.';
    return { ok: false, reason };
  } finally {
    agent.destroy();
  }
}

/** The system resolver may retry for longer than the fetch may take in all. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS answered too late')), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function resolveAll(host: string): Promise<readonly ResolvedAddress[]> {
  return dnsLookup(host, { all: true, verbatim: true });
}

/** An agent that connects only to the addresses already checked: no second DNS lookup. */
function pinnedAgent(url: URL, addresses: readonly ResolvedAddress[]): HttpAgent {
  const lookup: LookupFunction = (_hostname, options, callback) => {
    const all = addresses.map(({ address, family }) => ({ address, family }));
    const first = all[0] as { address: string; family: number };
    if (options.all) (callback as (e: null, a: typeof all) => void)(null, all);
    else callback(null, first.address, first.family);
  };
  const options = { keepAlive: false, lookup };
  return url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
}
