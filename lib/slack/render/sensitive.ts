import type { KnownBlock } from '@slack/types';
import type { AnyOperation } from '../../api/operation.js';
import { getOperation } from '../../api/operations/index.js';
import { SLASH_COMMAND } from '../../commands/registry.js';
import {
  codeSections,
  contextBlock,
  type EphemeralOnlyMessage,
  fallbackText,
  fieldSections,
  headerBlock,
  type RenderedMessage,
  sectionBlock,
} from '../../slack-kit/blocks.js';
import { fieldLabel } from '../../slack-kit/field-words.js';
import { codeSpan, escapeMrkdwn, link, slackDate } from '../../slack-kit/text.js';
import { genericFields } from './detail.js';
import { type Item, isItem, isSecretField, stringAt } from './items.js';
import { renderJson } from './json.js';
import { pathValuesOf, routeOf } from './related-operations.js';
import { kindOfRoute } from './resource-kinds.js';

/**
 * Replies that carry secrets: a new token, database credentials, a 2FA secret and its scratch
 * code, an image upload address. Every renderer here returns `ephemeralOnly: true`; the sender
 * must post them with `response_type: ephemeral` (or `chat.postEphemeral`) to the person who asked
 * and never in the channel, in a thread or in the audit trail.
 */

function ephemeral(message: RenderedMessage): EphemeralOnlyMessage {
  return { ...message, ephemeralOnly: true };
}

const ONLY_YOU = ':lock: Only you can see this message. Do not paste it in a channel.';

/** A secret as a code block: one click selects all of it. */
function secretBlock(secret: string): KnownBlock[] {
  return codeSections(secret, 2500).sections;
}

export interface NewToken {
  id?: number | undefined;
  label: string;
  scopes: string;
  expiry?: string | null | undefined;
  token: string;
}

/** The full new token, shown this once. */
export function renderNewToken(token: NewToken): EphemeralOnlyMessage {
  const heading = `New token: ${token.label}`;
  return ephemeral({
    text: fallbackText(`Your new personal access token "${token.label}" (shown once)`),
    blocks: [
      headerBlock(heading),
      sectionBlock(
        ':warning: *Copy it now: this token will not be shown again.* Anyone who has it can act as you within its scopes.',
      ),
      ...secretBlock(token.token),
      ...fieldSections([
        ['Scopes', token.scopes === '*' ? 'all scopes' : codeSpan(token.scopes)],
        ['Expires', token.expiry ? slackDate(token.expiry, 'at') : 'never (until revoked)'],
        ...(token.id === undefined ? [] : ([['Id', codeSpan(String(token.id))]] as const)),
      ]),
      contextBlock(ONLY_YOU, `To use it with this bot: ${codeSpan(`${SLASH_COMMAND} login`)}.`),
    ],
  });
}

export interface DatabaseCredentials {
  username: string;
  password: string;
}

export function renderDatabaseCredentials(
  credentials: DatabaseCredentials,
  database?: string | number,
): EphemeralOnlyMessage {
  const heading = database === undefined ? 'Database credentials' : `Credentials of database ${database}`;
  return ephemeral({
    text: fallbackText(heading),
    blocks: [
      headerBlock(heading),
      sectionBlock(`*Username*  ${codeSpan(credentials.username)}\n*Password*`),
      ...secretBlock(credentials.password),
      contextBlock(ONLY_YOU, 'Resetting the credentials gives the root user a new random password.'),
    ],
  });
}

export interface TwoFactorSecret {
  secret: string;
  expiry?: string | undefined;
}

export interface TwoFactorOptions {
  /** The account name the authenticator app shows (the username). */
  account?: string | undefined;
  /** The issuer the authenticator app shows. */
  issuer?: string | undefined;
}

/** The `otpauth://` URI authenticator apps read (Key Uri Format). */
export function otpauthUri(secret: string, options: TwoFactorOptions = {}): string {
  const issuer = options.issuer ?? 'Cloud';
  const account = options.account ?? 'account';
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({ secret: secret.replace(/\s+/g, ''), issuer });
  return `otpauth://totp/${label}?${params.toString()}`;
}

export function renderTwoFactorSecret(
  secret: TwoFactorSecret,
  options: TwoFactorOptions = {},
): EphemeralOnlyMessage {
  const heading = 'Two-factor authentication: your secret';
  const confirm = getOperation('profile.tfa-confirm');
  const confirmHint = `Then confirm with a current code: ${codeSpan(`${SLASH_COMMAND} ${confirm.group} ${confirm.action} --tfa-code <code>`)}`;
  return ephemeral({
    text: fallbackText(heading),
    blocks: [
      headerBlock(heading),
      sectionBlock(
        `Add this secret to your authenticator app (type it in, or open the link on your phone). ${confirmHint}`,
      ),
      ...secretBlock(secret.secret),
      ...secretBlock(otpauthUri(secret.secret, options)),
      contextBlock(
        ONLY_YOU,
        secret.expiry
          ? `Confirm before ${slackDate(secret.expiry, 'time')}, when this secret expires.`
          : 'Confirm soon: the secret expires.',
      ),
    ],
  });
}

export function renderScratchCode(scratch: { scratch: string }): EphemeralOnlyMessage {
  const heading = 'Two-factor authentication is on';
  return ephemeral({
    text: fallbackText(heading),
    blocks: [
      headerBlock(heading),
      sectionBlock(
        ':warning: *Keep this scratch code somewhere safe.* It logs you in once if you lose your authenticator; it will not be shown again.',
      ),
      ...secretBlock(scratch.scratch),
      contextBlock(ONLY_YOU),
    ],
  });
}

/** The upload address lets whoever holds it put a disk image into the account for 24 hours. */
export function renderImageUpload(upload: { upload_to: string; image?: unknown }): EphemeralOnlyMessage {
  const image = isItem(upload.image) ? upload.image : {};
  const id = stringAt(image, 'id');
  const heading = `Image upload${stringAt(image, 'label') ? `: ${stringAt(image, 'label')}` : ''}`;
  const looksLikeUrl = /^https:\/\/\S+$/.test(upload.upload_to) && upload.upload_to.length <= 2500;
  return ephemeral({
    text: fallbackText(heading),
    blocks: [
      headerBlock(heading),
      sectionBlock(
        `${id ? `Image ${codeSpan(id)} is waiting for its data. ` : ''}Within 24 hours, send the gzip-compressed raw disk image (at most 5 GB) with HTTP PUT and \`Content-Type: application/octet-stream\` to${looksLikeUrl ? ` ${link(upload.upload_to, 'this address')}` : ':'}`,
      ),
      ...secretBlock(upload.upload_to),
      contextBlock(ONLY_YOU),
    ],
  });
}

/** Any other sensitive result: every field, secrets included, for the one person who asked. */
function renderSensitiveFields(op: AnyOperation, output: unknown): EphemeralOnlyMessage {
  const heading = op.summary;
  if (!isItem(output)) return ephemeral(renderJson(op, output, { keepSecrets: true }));
  const secrets = Object.entries(output).filter(
    ([key, value]) => isSecretField(key) && typeof value === 'string',
  );
  const blocks: KnownBlock[] = [headerBlock(heading), ...fieldSections(genericFields(output).slice(0, 20))];
  for (const [key, value] of secrets) {
    blocks.push(sectionBlock(`*${escapeMrkdwn(fieldLabel(key))}*`), ...secretBlock(String(value)));
  }
  blocks.push(contextBlock(ONLY_YOU));
  return ephemeral({ text: fallbackText(heading), blocks });
}

/** Whether a result must only be shown to the person who asked. */
export function isSensitiveResult(op: AnyOperation): boolean {
  return op.sensitive || kindOfRoute(routeOf(op.path)).kind.key === 'image-upload';
}

export interface SensitiveRenderOptions extends TwoFactorOptions {
  json?: boolean | undefined;
}

/** The sensitive renderer for an operation's result, chosen by route. */
export function renderSensitiveResult(
  op: AnyOperation,
  input: Record<string, unknown>,
  output: unknown,
  options: SensitiveRenderOptions = {},
): EphemeralOnlyMessage {
  if (options.json) return ephemeral(renderJson(op, output, { keepSecrets: true }));
  const route = `${op.method} ${routeOf(op.path)}`;
  const item: Item = isItem(output) ? output : {};
  const token = stringAt(item, 'token');
  if (route === 'POST /profile/tokens' && token) {
    return renderNewToken({
      id: typeof item.id === 'number' ? item.id : undefined,
      label: stringAt(item, 'label') ?? 'token',
      scopes: stringAt(item, 'scopes') ?? '',
      expiry: stringAt(item, 'expiry'),
      token,
    });
  }
  const username = stringAt(item, 'username');
  const password = stringAt(item, 'password');
  if (/^GET \/databases\/\w+\/instances\/\{\}\/credentials$/.test(route) && username && password) {
    return renderDatabaseCredentials({ username, password }, pathValuesOf(op, input)[0]);
  }
  const secret = stringAt(item, 'secret');
  if (route === 'POST /profile/tfa-enable' && secret) {
    return renderTwoFactorSecret({ secret, expiry: stringAt(item, 'expiry') }, options);
  }
  const scratch = stringAt(item, 'scratch');
  if (route === 'POST /profile/tfa-enable-confirm' && scratch) return renderScratchCode({ scratch });
  const uploadTo = stringAt(item, 'upload_to');
  if (route === 'POST /images/upload' && uploadTo)
    return renderImageUpload({ upload_to: uploadTo, image: item.image });
  return renderSensitiveFields(op, output);
}
