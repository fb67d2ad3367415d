import type { KnownBlock } from '@slack/types';
import { ApiError, type ApiFieldError } from '../../api/errors.js';
import type { AnyOperation, Scope } from '../../api/operation.js';
import { findOperation } from '../../api/operations/index.js';
import { SLASH_COMMAND } from '../../commands/registry.js';
import {
  actionsBlock,
  codeSections,
  contextBlock,
  fallbackText,
  type RenderedMessage,
  sectionBlock,
} from '../../slack-kit/blocks.js';
import { ActionId } from '../../slack-kit/interaction-ids.js';
import { rateLimitedFor } from '../../slack-kit/slack-refusals.js';
import { codeSpan, escapeMrkdwn } from '../../slack-kit/text.js';
import { isStorageUnavailable } from '../../store/errors.js';
import { truncate } from '../../truncate.js';
import { ModalNotOpenedError } from '../modals.js';
import { findOperationByRoute, pathValuesOf, routeOf } from './related-operations.js';
import { kindOfRoute } from './resource-kinds.js';

/**
 * The one place an error becomes a Slack reply (sent ephemerally): plain words about what
 * happened, the API's own reasons, and what to do next. Unexpected errors show only a short
 * reference id: never a stack, an error message of unknown origin, or a secret.
 */

export interface ErrorReplyContext {
  /** The operation that was being run, when there was one. */
  operationId?: string | undefined;
  /** Short id that also appears in the logs, so a person can quote it. */
  referenceId: string;
  /** The request, to name the resource in "no such volume 12". */
  input?: Readonly<Record<string, unknown>> | undefined;
  /** The scopes of the token that was used (`X-OAuth-Scopes` or the login link), when known. */
  tokenScopes?: string | readonly string[] | undefined;
  /** Whether the person is a restricted user of the account, when known. */
  restricted?: boolean | undefined;
  /** Values that must never appear in a reply (the caller's token); blanked out if they do. */
  secrets?: readonly string[] | undefined;
  /**
   * True where a failure cannot come after the API changed something (the Slack function, which
   * hands every change off). Only then may storage trouble say that nothing was changed.
   */
  beforeAnyChange?: boolean | undefined;
}

/** The parser's error: a message ready to show, the command's usage, close matches. */
export interface CommandParseErrorLike {
  readonly message: string;
  readonly usage?: string | undefined;
  readonly suggestions?: readonly string[] | undefined;
}

const MAX_LISTED_ERRORS = 8;
const REASON_MAX = 300;

export function renderError(error: unknown, context: ErrorReplyContext): RenderedMessage {
  const reply = isParseError(error)
    ? parseErrorReply(error)
    : error instanceof ApiError
      ? apiErrorReply(error, context)
      : isStorageUnavailable(error)
        ? storageUnavailableReply(context)
        : error instanceof ModalNotOpenedError
          ? modalNotOpenedReply(error)
          : rateLimitedFor(error) !== undefined
            ? slackRateLimitedReply(rateLimitedFor(error) ?? 1)
            : unexpectedReply(context.referenceId);
  return withoutSecrets(reply, context.secrets ?? []);
}

/**
 * Parse errors are plain data (`{kind: 'error', message, usage?, suggestions?}`), never thrown
 * `Error`s: an `Error`'s message is not known to be fit for a person, so it does not qualify.
 */
function isParseError(error: unknown): error is CommandParseErrorLike {
  if (typeof error !== 'object' || error === null || error instanceof Error) return false;
  const candidate = error as Record<string, unknown>;
  return (
    typeof candidate.message === 'string' &&
    (candidate.usage === undefined || typeof candidate.usage === 'string') &&
    (candidate.suggestions === undefined || Array.isArray(candidate.suggestions))
  );
}

function parseErrorReply(error: CommandParseErrorLike): RenderedMessage {
  const blocks: KnownBlock[] = [sectionBlock(`:warning: ${escapeMrkdwn(error.message)}`)];
  const suggestions = (error.suggestions ?? []).filter((s): s is string => typeof s === 'string');
  if (suggestions.length > 0 && !/did you mean/i.test(error.message)) {
    blocks.push(
      sectionBlock(
        `Did you mean ${suggestions
          .slice(0, 4)
          .map((s) => codeSpan(`${SLASH_COMMAND} ${s}`))
          .join(' or ')}?`,
      ),
    );
  }
  if (error.usage) {
    if (error.usage.includes('\n')) {
      blocks.push(sectionBlock('*Usage*'), ...codeSections(error.usage, 2500).sections);
    } else {
      blocks.push(sectionBlock(`*Usage* ${codeSpan(error.usage)}`));
    }
  }
  return { text: fallbackText(error.message.split('\n')[0] ?? error.message), blocks };
}

/** The modal did not open (Slack's few seconds passed, or it was rate limited): nothing ran. */
function modalNotOpenedReply(error: ModalNotOpenedError): RenderedMessage {
  const text =
    error.reason === 'window_missed'
      ? 'The form did not open: Slack allows only a few seconds to open it after you ask, and they passed.'
      : `The form did not open: Slack asked the bot to slow down. Wait ${waitText(error.retryAfterSeconds)}.`;
  return {
    text: fallbackText(`${text} ${error.again}`),
    blocks: [sectionBlock(`:hourglass: ${escapeMrkdwn(text)} ${error.again}`)],
  };
}

function waitText(seconds: number | undefined): string {
  const wait = Math.max(1, Math.ceil(seconds ?? 1));
  return wait === 1 ? 'a second' : `${wait} seconds`;
}

/** Slack answered HTTP 429 to a call the answer needed: say when to try again. */
function slackRateLimitedReply(retryAfterSeconds: number): RenderedMessage {
  const text = `Slack asked the bot to slow down, so it could not answer. Try again in ${waitText(retryAfterSeconds)}.`;
  return { text: fallbackText(text), blocks: [sectionBlock(`:hourglass: ${escapeMrkdwn(text)}`)] };
}

function unexpectedReply(referenceId: string): RenderedMessage {
  const text = `Something went wrong (ref ${referenceId}).`;
  return {
    text,
    blocks: [
      sectionBlock(
        `:x: ${escapeMrkdwn(text)} Try again; if it keeps happening, give the reference to whoever runs this bot.`,
      ),
    ],
  };
}

function storageUnavailableReply(context: ErrorReplyContext): RenderedMessage {
  const text = context.beforeAnyChange
    ? STORAGE_UNAVAILABLE_NOTHING_CHANGED
    : `The bot's storage is not answering (ref ${context.referenceId}), so the bot could not finish. ` +
      'Try again in a minute; if you asked for a change, check first whether it was made.';
  return { text: fallbackText(text), blocks: [sectionBlock(`:floppy_disk: ${escapeMrkdwn(text)}`)] };
}

export const STORAGE_UNAVAILABLE_NOTHING_CHANGED =
  "The bot's storage is not answering, so nothing was changed. Try again in a minute.";

/**
 * Under a modal's field, where only plain text fits: storage trouble, or undefined for anything
 * else. A write that timed out may still have been made, so `unsure` says what may not have
 * happened ("your token may not be linked"), never that it did not; submitting again is safe.
 */
export function modalErrorText(error: unknown, unsure: string): string | undefined {
  return isStorageUnavailable(error)
    ? `The bot's storage is not answering, so ${unsure}. Submit again in a minute.`
    : undefined;
}

// ---------------------------------------------------------------------------------------------
// API errors

function apiErrorReply(error: ApiError, context: ErrorReplyContext): RenderedMessage {
  const op = findOperation(error.operationId ?? context.operationId ?? '');
  const ref = `(ref ${escapeMrkdwn(context.referenceId)})`;
  const reasons = reasonList(error.errors);
  const blocks: KnownBlock[] = [];
  let summary: string;
  switch (error.code) {
    case 'invalid_request':
    case 'bad_request': {
      summary =
        error.code === 'invalid_request' ? 'That request is not valid.' : 'The API refused the request.';
      blocks.push(sectionBlock(`:warning: ${summary}${reasons ? `\n${reasons}` : ''}`));
      if (op)
        blocks.push(
          contextBlock(
            `Example: ${codeSpan(`${SLASH_COMMAND} ${op.example}`)} · ${codeSpan(`${SLASH_COMMAND} help ${op.group} ${op.action}`)} explains every flag.`,
          ),
        );
      break;
    }
    case 'unauthorized': {
      summary = 'Your token was revoked or has expired.';
      blocks.push(
        sectionBlock(
          `:closed_lock_with_key: ${summary} Log in again with ${codeSpan(`${SLASH_COMMAND} login`)}.`,
        ),
      );
      const login = actionsBlock([
        {
          type: 'button',
          action_id: ActionId.login,
          text: { type: 'plain_text', text: 'Log in' },
          style: 'primary',
          value: 'login',
        },
      ]);
      if (login) blocks.push(login);
      break;
    }
    case 'forbidden': {
      summary = 'You are not allowed to do that.';
      const hints = forbiddenHints(op, context);
      blocks.push(sectionBlock(`:no_entry: ${summary}${reasons ? `\n${reasons}` : ''}`));
      if (hints.length > 0) blocks.push(sectionBlock(hints.join('\n')));
      break;
    }
    case 'not_found': {
      summary = notFoundSentence(op, context.input);
      blocks.push(sectionBlock(`:mag: ${escapeMrkdwn(summary)}${listHint(op)}`));
      break;
    }
    case 'rate_limited': {
      const seconds =
        error.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(error.retryAfterMs / 1000));
      summary = `The API’s rate limit was reached; try again ${seconds === undefined ? 'in a minute' : `in ${seconds} s`}.`;
      blocks.push(sectionBlock(`:hourglass_flowing_sand: ${summary}`));
      break;
    }
    case 'timeout':
      summary = `The API did not answer in time ${ref}.`;
      blocks.push(
        sectionBlock(
          `:hourglass: ${summary} Try again; check the resource first if the request changes something, since it may have gone through.`,
        ),
      );
      break;
    case 'network':
      summary = `The API could not be reached ${ref}.`;
      blocks.push(sectionBlock(`:electric_plug: ${summary} Try again in a moment.`));
      break;
    case 'server_error':
      summary = `The API had an internal error${error.status ? ` (HTTP ${error.status})` : ''} ${ref}.`;
      blocks.push(
        sectionBlock(
          `:boom: ${summary} Try again; if it keeps happening, open a support ticket with the provider and mention the reference.${reasons ? `\n${reasons}` : ''}`,
        ),
      );
      break;
    case 'invalid_response':
      summary = `The API answered with something this bot does not understand ${ref}.`;
      blocks.push(
        sectionBlock(`:grey_question: ${summary} Try again, or add \`--json\` to see the raw answer.`),
      );
      break;
    case 'aborted':
      summary = `The request was cancelled before it finished ${ref}.`;
      blocks.push(sectionBlock(`:octagonal_sign: ${summary}`));
      break;
  }
  return { text: fallbackText(summary), blocks };
}

/** The API's reasons as a bullet list: `• label: must be 1 to 32 characters`. */
function reasonList(errors: readonly ApiFieldError[]): string {
  const lines = errors.slice(0, MAX_LISTED_ERRORS).map((e) => {
    const reason = escapeMrkdwn(truncate(e.reason, REASON_MAX));
    return e.field ? `• ${codeSpan(e.field)}: ${reason}` : `• ${reason}`;
  });
  if (errors.length > MAX_LISTED_ERRORS) lines.push(`• and ${errors.length - MAX_LISTED_ERRORS} more`);
  return lines.join('\n');
}

function scopesOf(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return (typeof value === 'string' ? value.split(/[\s,]+/) : [...value]).filter((s) => s !== '');
}

/** Whether a token's scopes cover a scope: `*` covers all, read_write covers read_only. */
function covers(tokenScopes: readonly string[], needed: Scope): boolean {
  if (tokenScopes.includes('*') || tokenScopes.includes(needed)) return true;
  const [area, level] = needed.split(':');
  return level === 'read_only' && tokenScopes.includes(`${area}:read_write`);
}

function forbiddenHints(op: AnyOperation | undefined, context: ErrorReplyContext): string[] {
  if (!op)
    return [
      `If a scope or grant is missing, ${codeSpan(`${SLASH_COMMAND} profile grants`)} shows what you may access.`,
    ];
  const hints: string[] = [];
  const tokenScopes = scopesOf(context.tokenScopes);
  if (op.scopes.length > 0) {
    const missing = tokenScopes ? op.scopes.filter((s) => !covers(tokenScopes, s)) : [...op.scopes];
    const scopeList = missing.map(codeSpan).join(' and ');
    if (tokenScopes && missing.length > 0) {
      hints.push(
        `• Your token lacks ${scopeList}: create a token with ${missing.length > 1 ? 'them' : 'it'} and ${codeSpan(`${SLASH_COMMAND} login`)} again.`,
      );
    } else if (!tokenScopes) {
      hints.push(
        `• This needs the ${scopeList} scope${op.scopes.length > 1 ? 's' : ''}: if your token lacks ${op.scopes.length > 1 ? 'them' : 'it'}, create a token with ${op.scopes.length > 1 ? 'them' : 'it'} and ${codeSpan(`${SLASH_COMMAND} login`)} again.`,
      );
    }
  }
  const grants = op.grants ?? [];
  const unrestrictedOnly = grants.includes('unrestricted_only') || op.group === 'managed';
  if (context.restricted !== false) {
    if (unrestrictedOnly) {
      hints.push(
        '• Only unrestricted users of the account may do this; restricted users cannot be granted it.',
      );
    } else {
      const addGrants = grants.filter((g) => g.startsWith('add_'));
      const who = context.restricted ? 'You are a restricted user' : 'Restricted users are limited by grants';
      const needs = [
        ...addGrants.map((g) => `the ${codeSpan(g)} grant`),
        ...(op.pathParams.length > 0
          ? [
              `${op.method === 'GET' ? 'read-only or read-write' : 'read-write'} permission on this ${kindOfRoute(routeOf(op.path)).kind.noun}`,
            ]
          : []),
      ];
      if (needs.length > 0) {
        hints.push(
          `• ${who}: this needs ${needs.join(' and ')}. ${codeSpan(`${SLASH_COMMAND} profile grants`)} shows yours; an account admin can change them.`,
        );
      }
    }
  }
  if (hints.length === 0)
    hints.push(`• ${codeSpan(`${SLASH_COMMAND} profile grants`)} shows what you may access.`);
  return hints;
}

function notFoundSentence(
  op: AnyOperation | undefined,
  input: Readonly<Record<string, unknown>> | undefined,
): string {
  if (!op) return 'The API found no such resource.';
  const match = kindOfRoute(routeOf(op.path));
  const values = input ? pathValuesOf(op, input) : [];
  const id = values[values.length - 1];
  if (match.kind.noun === 'item' || id === undefined)
    return `The API found nothing for ${SLASH_COMMAND} ${op.group} ${op.action}.`;
  return `No such ${match.kind.noun} ${id}.`;
}

/** ` — check the id with /cloud volumes list`, from the list operation of the same collection. */
function listHint(op: AnyOperation | undefined): string {
  if (!op) return '';
  const match = kindOfRoute(routeOf(op.path));
  const list = findOperationByRoute('GET', match.collectionRoute);
  if (!list?.paginated) return '';
  const parents = list.pathParams.map((p) => `<${p}>`).join(' ');
  return ` Check the id with ${codeSpan(`${SLASH_COMMAND} ${list.group} ${list.action}${parents ? ` ${parents}` : ''}`)}.`;
}

/** Blanks out secrets anywhere in the reply, in case one came back inside an API reason. */
function withoutSecrets(reply: RenderedMessage, secrets: readonly string[]): RenderedMessage {
  const active = secrets.filter((s) => s.length >= 4);
  if (active.length === 0) return reply;
  let json = JSON.stringify(reply);
  for (const secret of active) {
    const encoded = JSON.stringify(secret).slice(1, -1);
    json = json.split(encoded).join('[redacted]');
  }
  return JSON.parse(json) as RenderedMessage;
}
