import { randomUUID } from 'node:crypto';
import type { ViewOutput } from '@slack/bolt';
import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import type { RequestOutcome } from '../../changes/requests.js';
import type { ParsedCommand } from '../../commands/parse.js';
import type { SettingsChange } from '../../core/settings/diff.js';
import {
  exportSettings,
  type ImportOutcome,
  isSettingsAdmin,
  type RollbackOutcome,
  requestSettingsImport,
  requestSettingsRollback,
  settingsHistory,
} from '../../core/settings/settings.js';
import { MAX_DOCUMENT_BYTES } from '../../core/settings/yaml-text.js';
import { sectionBlock } from '../../slack-kit/blocks.js';
import { downloadSlackFile, type SlackFile, SlackFileSchema } from '../../slack-kit/file-download.js';
import { shareFile } from '../../slack-kit/file-share.js';
import { CallbackId } from '../../slack-kit/interaction-ids.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { codeSpan, slackDate, userMention } from '../../slack-kit/text.js';
import type { SettingsVersion } from '../../store/index.js';
import { slackApprovalSurface } from '../approval-surface.js';
import { callerOf } from '../caller.js';
import type { BotCommandContext, BotDeps } from '../context.js';
import { openModal } from '../modals.js';
import { unmadeRequestText } from '../render/unmade-request.js';
import { changeLine, problemsText, slackSettingsSurface } from '../settings-surface.js';
import '../../zod-settings.js';

/**
 * `/cloud settings export|import|history|rollback`: the workspace's settings as one document
 * (`lib/core/settings/`). Export goes to the admin's direct message as a file; import is a form
 * where the document is pasted (Slack takes at most 3,000 characters in a field) or attached as a
 * file, planned at once and applied once approved; history and rollback read and return to the
 * versions kept.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

const ADMINS_ONLY =
  "Only workspace admins (or the admins named in the approval policy) can export or change the workspace's settings.";

export async function handleSettingsCommand(
  context: BotCommandContext,
  parsed: BotParsed,
): Promise<Reply | undefined> {
  const reason = typeof parsed.flags.reason === 'string' ? parsed.flags.reason : undefined;
  switch (parsed.subcommand) {
    case 'export':
      return exportAs(context);
    case 'import':
      return openImport(context, reason);
    case 'history':
      return history(context);
    case 'rollback':
      return rollback(context, Number(parsed.args[0]), reason);
    default:
      return notice('`/cloud settings` needs one of: export, import, history, rollback.');
  }
}

async function exportAs(context: BotCommandContext): Promise<Reply> {
  const { deps, client, ctx } = context;
  const exported = await exportSettings(deps, slackSettingsSurface(client), callerOf(context));
  if (exported.kind === 'refused') return notice(ADMINS_ONLY);
  const share = await shareFile(
    client,
    { directMessageWith: ctx.user },
    {
      file: Buffer.from(exported.text, 'utf8'),
      filename: `settings-${ctx.team}${exported.version > 0 ? `-v${exported.version}` : ''}.yaml`,
      title: `Workspace settings${exported.version > 0 ? `, version ${exported.version}` : ''}`,
      comment: `The workspace's settings as of ${slackDate(deps.store.now())}. Edit it and bring it back with ${codeSpan('/cloud settings import')}, or keep it in Git and apply it from CI with ${codeSpan('npm run settings')}.`,
    },
  );
  switch (share.kind) {
    case 'on_its_way':
      return notice(':envelope: The settings document is on its way to your direct messages with the app.');
    case 'no_direct_message':
      return notice(
        `:warning: Your direct message with the app did not open (${share.code}); nothing was sent.`,
      );
    case 'refused':
      return notice(`:warning: Slack refused the file (${share.code}); nothing was sent.`);
    case 'in_doubt':
      return notice(
        `:hourglass_flowing_sand: Slack did not confirm the file (${share.code}); it may still appear in your direct messages with the app.`,
      );
  }
}

// ---------------------------------------------------------------------------------------------
// import: the form and its submission

const DOCUMENT_BLOCK = 'document';
const DOCUMENT_INPUT = 'document_input';
const FILE_BLOCK = 'document_file';
const FILE_INPUT = 'document_file_input';
/** Slack's most for a text input (`plain_text_input.max_length`). */
const FORM_MAX_CHARACTERS = 3000;
/**
 * How long the attached file may take to arrive: Slack waits 3 seconds for the form's answer,
 * and the check and the card need their share of them.
 */
const FILE_DOWNLOAD_MS = 1_500;

const ImportMetadataSchema = z.object({
  channel: z.string().regex(/^[CGD][A-Z0-9]{2,}$/),
  reason: z.string().max(500).optional(),
});

/** The file field's value: the one file the person attached (`max_files: 1`), or none. */
const AttachedFilesSchema = z.array(SlackFileSchema).max(1);

async function openImport(
  context: BotCommandContext,
  reason: string | undefined,
): Promise<Reply | undefined> {
  const { ctx, client } = context;
  if (!ctx.triggerId) return notice('Run `/cloud settings import` as a slash command: it opens a form.');
  await openModal(
    client,
    ctx.triggerId,
    importModal(ctx.channel, reason),
    'run `/cloud settings import` again',
  );
  return undefined;
}

export function importModal(channel: string, reason: string | undefined): View {
  return {
    type: 'modal',
    callback_id: CallbackId.settingsImport,
    title: { type: 'plain_text', text: 'Import settings' },
    submit: { type: 'plain_text', text: 'Check and ask' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify({
      channel,
      ...(reason === undefined ? {} : { reason: reason.slice(0, 500) }),
    }),
    blocks: [
      sectionBlock(
        `Paste the settings document (YAML, as ${codeSpan('/cloud settings export')} writes it), or attach it as a file: a form takes ${FORM_MAX_CHARACTERS.toLocaleString('en-US')} characters, a file up to ${MAX_DOCUMENT_BYTES.toLocaleString('en-US')} bytes. Its changes are checked now and shown as a card in this channel; they are applied once approved.`,
      ),
      {
        type: 'input',
        block_id: DOCUMENT_BLOCK,
        optional: true,
        label: { type: 'plain_text', text: 'Settings document' },
        element: {
          type: 'plain_text_input',
          action_id: DOCUMENT_INPUT,
          multiline: true,
          max_length: FORM_MAX_CHARACTERS,
          placeholder: { type: 'plain_text', text: 'settings: 1' },
        },
      },
      {
        type: 'input',
        block_id: FILE_BLOCK,
        optional: true,
        label: { type: 'plain_text', text: 'Or the document as a file' },
        // Slack checks the extension for convenience only (file-input-element): the bytes are
        // checked as any document is.
        element: {
          type: 'file_input',
          action_id: FILE_INPUT,
          filetypes: ['yaml', 'yml', 'txt'],
          max_files: 1,
        },
      },
    ],
  };
}

export type SettingsModalAck = { response_action: 'errors'; errors: Record<string, string> } | undefined;

/** The document as the form gives it, with the field it came in; or what is wrong, under a field. */
type GivenDocument =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'file'; readonly file: SlackFile }
  | { readonly kind: 'wrong'; readonly field: string; readonly message: string };

function givenDocument(view: ViewOutput): GivenDocument {
  const text = view.state.values[DOCUMENT_BLOCK]?.[DOCUMENT_INPUT]?.value ?? '';
  const files = AttachedFilesSchema.safeParse(view.state.values[FILE_BLOCK]?.[FILE_INPUT]?.files ?? []);
  if (!files.success) {
    return { kind: 'wrong', field: FILE_BLOCK, message: 'Attach one file: the settings document.' };
  }
  const [file] = files.data;
  const pasted = text.trim() !== '';
  if (pasted && file) {
    return {
      kind: 'wrong',
      field: DOCUMENT_BLOCK,
      message: 'Give the document one way: paste it or attach it as a file, not both.',
    };
  }
  if (file) return { kind: 'file', file };
  if (pasted) return { kind: 'text', text };
  return { kind: 'wrong', field: DOCUMENT_BLOCK, message: 'Paste the document or attach it as a file.' };
}

/**
 * The document, checked and asked for: its problems under the field it came in (the first ones;
 * the whole list to the person), or the request's card posted and the person told what it
 * changes. An attached file is read from Slack first, unless Slack says it is larger than a
 * document can be; if it cannot be read, the person is told why under the file and nothing is
 * asked.
 */
export async function handleSettingsSubmission(
  deps: BotDeps & { readonly slack: WebClient },
  submission: { readonly team: string; readonly user: string; readonly view: ViewOutput },
): Promise<SettingsModalAck> {
  const metadata = ImportMetadataSchema.safeParse(jsonOrUndefined(submission.view.private_metadata));
  if (!metadata.success) {
    return {
      response_action: 'errors',
      errors: { [DOCUMENT_BLOCK]: 'This form is out of date; run the command again.' },
    };
  }
  const { channel, reason } = metadata.data;
  const given = givenDocument(submission.view);
  if (given.kind === 'wrong') return { response_action: 'errors', errors: { [given.field]: given.message } };
  const field = given.kind === 'file' ? FILE_BLOCK : DOCUMENT_BLOCK;
  const context = {
    client: deps.slack,
    ctx: { team: submission.team, user: submission.user, channel, correlationId: randomUUID() },
  };
  let document: string | Uint8Array;
  if (given.kind === 'file') {
    // The form opens for anyone: only an admin's file is downloaded.
    if (!(await isSettingsAdmin(deps, callerOf(context))))
      return { response_action: 'errors', errors: { [FILE_BLOCK]: ADMINS_ONLY } };
    const read = await readAttachedFile(deps, given.file);
    if (typeof read === 'string') return { response_action: 'errors', errors: { [FILE_BLOCK]: read } };
    document = read;
  } else {
    document = given.text;
  }
  const outcome = await requestSettingsImport(
    deps,
    { ...slackSettingsSurface(deps.slack), approvals: slackApprovalSurface(deps.slack, deps) },
    callerOf(context),
    { document, reason },
  );
  const reply = importReply(outcome);
  if (outcome.kind === 'invalid') {
    const first = outcome.problems[0];
    const head = first
      ? `${first.line > 0 ? `Line ${first.line}: ` : ''}${first.message}`
      : 'The document is not valid.';
    const more = outcome.problems.length > 1 ? ` (and ${outcome.problems.length - 1} more, sent to you)` : '';
    await tell(deps, channel, submission.user, reply);
    return { response_action: 'errors', errors: { [field]: `${head}${more}`.slice(0, 2000) } };
  }
  if (outcome.kind === 'refused' || outcome.kind === 'no_changes') {
    return { response_action: 'errors', errors: { [field]: plain(reply.text) } };
  }
  await tell(deps, channel, submission.user, reply);
  return undefined;
}

/** The attached file's bytes, or why they were not read, in words for under the file field. */
async function readAttachedFile(
  deps: BotDeps & { readonly slack: WebClient },
  file: SlackFile,
): Promise<Buffer | string> {
  const most = MAX_DOCUMENT_BYTES.toLocaleString('en-US');
  const botToken = deps.slack.token;
  if (botToken === undefined)
    return 'The file could not be read just now, so nothing was imported: try again.';
  const download = await downloadSlackFile(file, {
    botToken,
    slackApiUrl: deps.slack.slackApiUrl,
    maxBytes: MAX_DOCUMENT_BYTES,
    timeoutMs: FILE_DOWNLOAD_MS,
  });
  if (download.kind === 'downloaded') return download.bytes;
  deps.logger.warn('settings file not read', {
    kind: download.kind,
    ...(download.kind === 'not_given' ? { status: download.status, signInPage: download.signInPage } : {}),
    ...(download.kind === 'unreachable' ? { code: download.code } : {}),
  });
  switch (download.kind) {
    case 'too_large':
      return download.size === undefined
        ? `The file is larger than ${most} bytes, the most a settings document can be, so nothing was imported.`
        : `The file is ${download.size.toLocaleString('en-US')} bytes; the most a settings document can be is ${most}, so nothing was imported.`;
    case 'not_given':
      return download.signInPage
        ? 'Slack did not give the file (it answered its sign-in page: the app needs the files:read scope, so reinstall it), so nothing was imported.'
        : `Slack did not give the file (HTTP ${download.status}), so nothing was imported: attach it again in a minute, or paste the document.`;
    case 'unreachable':
      return `Slack did not give the file in time (${download.code}), so nothing was imported: attach it again in a minute, or paste the document.`;
    case 'not_slack':
      return "The file is not one of Slack's, so it was not read and nothing was imported.";
  }
}

function importReply(outcome: ImportOutcome): Reply {
  switch (outcome.kind) {
    case 'refused':
      return notice(ADMINS_ONLY);
    case 'invalid':
      return notice(
        `The document was not imported: nothing changed. ${outcome.problems.length === 1 ? 'One thing is' : `${outcome.problems.length} things are`} wrong:\n${problemsText(outcome.problems)}`,
      );
    case 'no_changes':
      return notice('The document is what the settings are already: nothing to change.');
    case 'requested':
      return requestReply(outcome.changes, outcome.request, 'the imported settings');
  }
}

function requestReply(changes: readonly SettingsChange[], request: RequestOutcome, what: string): Reply {
  switch (request.kind) {
    case 'requested': {
      const { policy } = request;
      const lines = changes.slice(0, 40).map(changeLine).join('\n');
      const more = changes.length > 40 ? `\n…and ${changes.length - 40} more.` : '';
      return notice(
        `:lock: Nothing is changed yet: ${what} need${what.endsWith('s') ? '' : 's'} ${policy.requiredApprovals} approval${policy.requiredApprovals === 1 ? '' : 's'} from someone other than you. I posted a card in the channel; it expires in ${policy.expiryMinutes} minutes. The ${changes.length} change${changes.length === 1 ? '' : 's'}:\n${lines}${more}`,
      );
    }
    case 'refused':
      return notice(
        request.reason === 'reason_required'
          ? `Nothing was requested: the workspace's rule asks every request to say why. Add ${codeSpan('--reason "…"')} to the command.`
          : request.reason === 'channel_closed'
            ? unmadeRequestText(request)
            : 'Nothing was requested.',
      );
    case 'card_not_posted':
    case 'not_saved':
      return notice(unmadeRequestText(request));
  }
}

/** An ephemeral message to the person in the channel the form came from. */
async function tell(
  deps: BotDeps & { readonly slack: WebClient },
  channel: string,
  user: string,
  reply: Reply,
) {
  await deps.slack.chat
    .postEphemeral({
      channel,
      user,
      text: reply.text,
      ...(reply.blocks ? { blocks: [...reply.blocks] } : {}),
    })
    .catch((error: unknown) => deps.logger.warn('settings reply not posted', { error }));
}

/** Text under a form field is plain: no mrkdwn. */
function plain(text: string): string {
  return text.replace(/[`*]/g, '').slice(0, 2000);
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// history and rollback

const SOURCE_WORDS: Record<SettingsVersion['source'], string> = {
  slack: 'imported in Slack',
  ci: 'applied from CI',
  rollback: 'rolled back',
  commands: 'as commands had left them',
};

/** Who applied a version; the settings as commands had left them were kept, not applied by anyone. */
function whoText(version: SettingsVersion): string {
  switch (version.source) {
    case 'commands':
      return '';
    case 'ci':
      return ` as ${codeSpan(version.appliedBy)}`;
    default:
      return ` by ${userMention(version.appliedBy)}`;
  }
}

async function history(context: BotCommandContext): Promise<Reply> {
  const outcome = await settingsHistory(context.deps, callerOf(context));
  if (outcome.kind === 'refused') return notice(ADMINS_ONLY);
  if (outcome.versions.length === 0) {
    return notice(
      `No version of the settings was kept yet: the first import (${codeSpan('/cloud settings import')}) or apply from CI keeps one.`,
    );
  }
  const lines = outcome.versions.map((version) => {
    const back = version.rollbackOf === null ? '' : ` to version ${version.rollbackOf}`;
    const count =
      version.source === 'commands' ? '' : ` · ${version.changes} change${version.changes === 1 ? '' : 's'}`;
    return `*${version.version}* · ${slackDate(version.appliedAt)} · ${SOURCE_WORDS[version.source]}${back}${whoText(version)}${count}`;
  });
  return notice(
    `Versions of the settings, newest first:\n${lines.join('\n')}\nReturn to one with ${codeSpan('/cloud settings rollback N')}.`,
  );
}

async function rollback(
  context: BotCommandContext,
  version: number,
  reason: string | undefined,
): Promise<Reply> {
  const { deps, client } = context;
  const outcome = await requestSettingsRollback(
    deps,
    { ...slackSettingsSurface(client), approvals: slackApprovalSurface(client, deps) },
    callerOf(context),
    { version, reason },
  );
  return rollbackReply(outcome, version);
}

function rollbackReply(outcome: RollbackOutcome, version: number): Reply {
  switch (outcome.kind) {
    case 'refused':
      return notice(ADMINS_ONLY);
    case 'no_such_version':
      return notice(
        outcome.newest === 0
          ? 'No version of the settings was kept yet, so there is none to return to.'
          : `There is no version ${version}: versions go from 1 to ${outcome.newest} (${codeSpan('/cloud settings history')}).`,
      );
    case 'no_changes':
      return notice(`The settings are version ${version} already: nothing to change.`);
    case 'requested':
      return requestReply(outcome.changes, outcome.request, `going back to version ${version}`);
  }
}
