import { randomUUID } from 'node:crypto';
import type { ViewOutput } from '@slack/bolt';
import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import { type ArgumentFault, type RunbookNameFault, stepProblem } from '../../changes/runbooks.js';
import type { ParsedCommand } from '../../commands/parse.js';
import { splitCommands } from '../../commands/tokenize.js';
import {
  type AddRunbookOutcome,
  addRunbook,
  cancelRunbookRun,
  checkRunbookChange,
  findRunbook,
  listRunbooks,
  type RunbookScope,
  type RunbookSummary,
  removeRunbook,
  startRunbookRun,
} from '../../core/runbook-library.js';
import { sectionBlock } from '../../slack-kit/blocks.js';
import { channelRefusalHint, ensureBotCanPost } from '../../slack-kit/channel-access.js';
import { SHORT_ID_LENGTH, shortId } from '../../slack-kit/field-words.js';
import { CallbackId } from '../../slack-kit/interaction-ids.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { codeSpan } from '../../slack-kit/text.js';
import { callerOf } from '../caller.js';
import type { BotCommandContext, BotDeps } from '../context.js';
import { openModal } from '../modals.js';
import { runMessage, slackRunbookSurface } from '../runbook-runs.js';
import '../../zod-settings.js';

/**
 * `/cloud runbook add|list|show|remove|run|cancel`, and the modal of `runbook add NAME`
 * (`lib/core/runbook-library.ts` decides who may change, start or cancel what). A run, once
 * started, shows itself in its channel message and thread (`runbook-runs.ts`).
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;

export async function handleRunbookCommand(
  context: BotCommandContext,
  parsed: BotParsed,
): Promise<Reply | undefined> {
  const name = parsed.args[0] ?? '';
  switch (parsed.subcommand) {
    case 'add':
      return addRunbookAs(context, name, parsed.flags.steps, parsed.flags.workspace === true);
    case 'list':
      return listRunbooksAs(context);
    case 'show':
      return showRunbook(context, name);
    case 'remove':
      return removeRunbookAs(context, { name, workspace: parsed.flags.workspace === true });
    case 'run':
      return startRun(context, name, parsed.args.slice(1));
    case 'cancel':
      return cancelRunAs(context, name);
    default:
      return notice('`/cloud runbook` needs one of: add, list, show, remove, run, cancel.');
  }
}

const WORKSPACE_ADMINS_ONLY =
  'Only workspace admins (or the admins named in the approval policy) can change workspace runbooks. Leave out `--workspace` to change a runbook of this channel.';

function noRunbook(name: string): string {
  return `Neither this channel nor the workspace has a runbook ${codeSpan(name)}.`;
}

/** Why `name` cannot be a runbook's, in words. */
function runbookNameProblem(name: string, fault: RunbookNameFault): string {
  switch (fault) {
    case 'shape':
      return 'A runbook name is 1 to 32 lowercase letters, digits or dashes, starting with a letter.';
    case 'reserved':
      return `\`${name}\` cannot be a runbook name.`;
    case 'command':
      return `\`${name}\` is a command of this bot; pick another name.`;
  }
}

function argumentProblem(fault: ArgumentFault): string {
  switch (fault.kind) {
    case 'count':
      return `This runbook takes ${fault.needed} argument${fault.needed === 1 ? '' : 's'}; ${fault.given} given.`;
    case 'not_a_word':
      return 'Each argument is one word of letters, digits and `_ . : @ / -`.';
  }
}

async function showRunbook(context: BotCommandContext, name: string): Promise<Reply> {
  const found = await findRunbook(context.deps, callerOf(context), { name });
  switch (found.kind) {
    case 'invalid_name':
      return notice(runbookNameProblem(name, found.fault));
    case 'not_found':
      return notice(noRunbook(name));
    case 'found': {
      const scope = found.runbook.channel === null ? ' (the workspace’s)' : '';
      return notice(
        [
          `Runbook ${codeSpan(name)}${scope}:`,
          ...found.runbook.steps.map((s, i) => `${i + 1}. ${codeSpan(s)}`),
        ].join('\n'),
      );
    }
  }
}

async function removeRunbookAs(context: BotCommandContext, scope: RunbookScope): Promise<Reply> {
  const { name, workspace } = scope;
  const removed = await removeRunbook(context.deps, callerOf(context), scope);
  switch (removed.kind) {
    case 'invalid_name':
      return notice(runbookNameProblem(name, removed.fault));
    case 'not_allowed':
      return notice(WORKSPACE_ADMINS_ONLY);
    case 'removed':
      return notice(`Removed ${workspace ? 'workspace ' : ''}runbook ${codeSpan(name)}.`);
    case 'not_found':
      return notice(
        workspace
          ? `The workspace has no runbook ${codeSpan(name)}.`
          : `This channel has no runbook ${codeSpan(name)}.`,
      );
  }
}

function runbookLine(runbook: RunbookSummary, note = ''): string {
  return `${codeSpan(runbook.name)}: ${runbook.steps} step${runbook.steps === 1 ? '' : 's'}, ${runbook.parameters} argument(s)${note}`;
}

/** This channel's runbooks and the workspace's; a workspace one a channel's hides says so. */
async function listRunbooksAs(context: BotCommandContext): Promise<Reply> {
  const { channel: own, workspace } = await listRunbooks(context.deps, callerOf(context));
  if (own.length === 0 && workspace.length === 0) {
    return notice('This channel and the workspace have no runbooks. Add one with `/cloud runbook add NAME`.');
  }
  const lines = [
    '*This channel’s runbooks*',
    ...(own.length > 0 ? own.map((r) => runbookLine(r)) : ['none']),
    '*The workspace’s runbooks*',
    ...(workspace.length > 0
      ? workspace.map((r) => runbookLine(r, r.shadowed ? ' (this channel’s of the same name runs here)' : ''))
      : ['none']),
  ];
  return notice(lines.join('\n'));
}

/**
 * `/cloud runbook cancel RUN` and the run message's Cancel button: the person who started the run
 * or a policy admin stops it before its next step.
 */
export async function cancelRunAs(context: BotCommandContext, runId: string): Promise<Reply> {
  const { deps } = context;
  const cancelled = await cancelRunbookRun(
    deps,
    slackRunbookSurface({ ...deps, slack: context.client }),
    callerOf(context),
    { runId },
  );
  switch (cancelled.kind) {
    case 'invalid_run_id':
      return notice(
        `That is not a run id: give its first ${SHORT_ID_LENGTH} characters, as the run's message shows them.`,
      );
    case 'not_found':
      return notice(`There is no run ${codeSpan(shortId(runId))} in this channel.`);
    case 'ended':
      return notice(`Run ${codeSpan(shortId(runId))} has already ended.`);
    case 'not_allowed':
      return notice(
        `Run ${codeSpan(shortId(runId))} was started by <@${cancelled.startedBy}>; only they or a workspace admin (or an admin named in the approval policy) can cancel it.`,
      );
    case 'cancelled':
      return notice(
        cancelled.runningStep === undefined
          ? `Cancelled run ${codeSpan(shortId(runId))}; no further step will start.`
          : `Cancelled run ${codeSpan(shortId(runId))}. Step ${cancelled.runningStep + 1} is under way and is not interrupted; no step after it will start.`,
      );
  }
}

async function addRunbookAs(
  context: BotCommandContext,
  name: string,
  stepsFlag: unknown,
  workspace: boolean,
): Promise<Reply | undefined> {
  const { deps, ctx, client } = context;
  const scope = { name, workspace };
  if (typeof stepsFlag !== 'string') {
    const check = await checkRunbookChange(deps, callerOf(context), scope);
    if (check.kind !== 'allowed') return notice(addRefusalText(check, scope));
    if (!ctx.triggerId) {
      return notice('Give the steps with `--steps "COMMAND; COMMAND; …"`, one command each, in order.');
    }
    const again = `Run ${codeSpan(`/cloud runbook add ${name}${workspace ? ' --workspace' : ''}`)} again.`;
    await openModal(client, ctx.triggerId, runbookModal(ctx.channel, name, workspace), again);
    return undefined;
  }
  // A `;` inside a step's quoted value (or written `\;`) belongs to the step.
  const steps = splitCommands(stepsFlag, ';')
    .map((step) => step.trim())
    .filter((step) => step.length > 0);
  const added = await addRunbook(deps, callerOf(context), { ...scope, steps });
  if (added.kind !== 'added') return notice(addRefusalText(added, scope));
  return { ...notice(addedText(ctx.user, scope, added.steps)), visibility: 'in_channel' };
}

/** Why a runbook was not added, the same from the flag and the modal. */
function addRefusalText(refusal: Exclude<AddRunbookOutcome, { kind: 'added' }>, scope: RunbookScope): string {
  const { name, workspace } = scope;
  switch (refusal.kind) {
    case 'invalid_name':
      return runbookNameProblem(name, refusal.fault);
    case 'not_allowed':
      return WORKSPACE_ADMINS_ONLY;
    case 'invalid_steps':
      return `Runbook ${codeSpan(name)} was not added:\n${refusal.faults.map(stepProblem).join('\n')}`;
    case 'exists': {
      const owner = workspace ? 'The workspace has' : 'This channel has';
      const again = workspace ? ' --workspace' : '';
      return `${owner} a runbook ${codeSpan(name)} already; remove it first (${codeSpan(`/cloud runbook remove ${name}${again}`)}).`;
    }
  }
}

/** What the channel is told of a runbook added. */
function addedText(user: string, scope: RunbookScope, steps: number): string {
  const run = codeSpan(`/cloud runbook run ${scope.name}`);
  const kind = scope.workspace ? 'workspace runbook' : 'runbook';
  const everywhere = scope.workspace ? ', in any channel' : '';
  return `<@${user}> added ${kind} ${codeSpan(scope.name)} with ${steps} step${steps === 1 ? '' : 's'}. Run it with ${run}${everywhere}.`;
}

// ---------------------------------------------------------------------------------------------
// the modal of `runbook add NAME`

const STEPS_BLOCK = 'steps';
const STEPS_INPUT = 'steps_input';
/** Slack's limit for a `plain_text_input`. */
const STEPS_MAX_LENGTH = 3000;
const RunbookModalMetadataSchema = z.object({
  channel: z.string(),
  name: z.string(),
  // Modals opened before workspace runbooks carry no such field: they add a channel's.
  workspace: z.boolean().default(false),
});

export function runbookModal(channel: string, name: string, workspace: boolean): View {
  return {
    type: 'modal',
    callback_id: CallbackId.runbookAdd,
    title: { type: 'plain_text', text: 'Add a runbook' },
    submit: { type: 'plain_text', text: 'Add runbook' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify({ channel, name, workspace }),
    blocks: [
      sectionBlock(
        `${workspace ? 'A workspace runbook, for every channel. ' : ''}Steps of ${codeSpan(name)}, one command a line, without \`/cloud\`, in the order they run. ` +
          'Use `$1` to `$9` for the arguments given to `/cloud runbook run`.',
      ),
      {
        type: 'input',
        block_id: STEPS_BLOCK,
        label: { type: 'plain_text', text: 'Steps' },
        element: {
          type: 'plain_text_input',
          action_id: STEPS_INPUT,
          multiline: true,
          max_length: STEPS_MAX_LENGTH,
          placeholder: { type: 'plain_text', text: 'nodes shutdown $1' },
        },
      },
    ],
  };
}

export type RunbookModalAck = { response_action: 'errors'; errors: Record<string, string> } | undefined;

/**
 * The modal's steps, checked and stored; a problem is shown under the steps field. Whether the
 * person may add a workspace runbook is asked again: an admin when the modal opened may not be
 * one now.
 */
export async function handleRunbookSubmission(
  deps: BotDeps & { readonly slack: WebClient },
  submission: { readonly team: string; readonly user: string; readonly view: ViewOutput },
): Promise<RunbookModalAck> {
  const metadata = RunbookModalMetadataSchema.safeParse(jsonOrUndefined(submission.view.private_metadata));
  if (!metadata.success) {
    return {
      response_action: 'errors',
      errors: { [STEPS_BLOCK]: 'This form is out of date; run the command again.' },
    };
  }
  const { channel, name, workspace } = metadata.data;
  const caller = callerOf({
    client: deps.slack,
    ctx: { team: submission.team, user: submission.user, channel, correlationId: randomUUID() },
  });
  const text = submission.view.state.values[STEPS_BLOCK]?.[STEPS_INPUT]?.value ?? '';
  const steps = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const scope = { name, workspace };
  const added = await addRunbook(deps, caller, { ...scope, steps });
  if (added.kind !== 'added') {
    return {
      response_action: 'errors',
      errors: { [STEPS_BLOCK]: addRefusalText(added, scope).slice(0, 2000) },
    };
  }
  await deps.slack.chat
    .postMessage({ channel, text: addedText(submission.user, scope, added.steps) })
    .catch((error: unknown) => deps.logger.warn('runbook confirmation not posted', { error }));
  return undefined;
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `/cloud runbook run NAME ARGS…`: the run's message in this channel, its first step handed to the worker. */
async function startRun(context: BotCommandContext, name: string, args: readonly string[]): Promise<Reply> {
  const { deps, ctx, client } = context;
  const started = await startRunbookRun(
    deps,
    {
      async access(channel) {
        const access = await ensureBotCanPost(client, channel);
        return access.kind === 'refused' ? access : { kind: 'open' };
      },
      async post(run) {
        const message = runMessage(run);
        const posted = await client.chat.postMessage({
          channel: run.channel,
          text: message.text,
          blocks: message.blocks,
        });
        return posted.ts;
      },
      startFirstStep: (run) =>
        deps.handoff.dispatch({
          kind: 'runbook-step',
          correlationId: ctx.correlationId,
          team: run.team,
          runId: run.id,
          step: 0,
        }),
    },
    callerOf(context),
    { name, args },
  );
  switch (started.kind) {
    case 'invalid_name':
      return notice(runbookNameProblem(name, started.fault));
    case 'not_found':
      return notice(noRunbook(name));
    case 'arguments_do_not_fit':
      return notice(argumentProblem(started.fault));
    case 'channel_refused':
      return notice(`A run needs its thread here. ${channelRefusalHint(started.refusal)}`);
    case 'not_posted':
      return notice('The run message could not be posted, so the run did not start.');
    case 'not_saved':
      return notice('The run could not be saved, so it did not start.');
    case 'started':
      return notice(
        `:arrow_forward: Started run ${codeSpan(shortId(started.runId))} of ${codeSpan(name)}; its thread follows each step.`,
      );
  }
}
