import { randomUUID } from 'node:crypto';
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { CallbackId } from '../../slack-kit/interaction-ids.js';
import type { Reply } from '../../slack-kit/reply.js';
import type { BotDeps, RequestContext } from '../context.js';
import { answerOperation, safely } from '../dispatch.js';

// Loaded on first use: a cold start that answers a command needs neither.
const profiles = () => import('../bot-commands/profiles.js');
const forms = () => import('../forms.js');
const errorReplies = () => import('../render/errors.js');
const worker = () => import('../worker-handlers.js');
const stepUp = () => import('../step-up-codes.js');

/** Modal submissions: an operation's form, the private login form, a step-up code and a runbook's steps. */
export function registerViews(app: App, deps: BotDeps): void {
  app.view(CallbackId.operationForm, async ({ ack, body, view, client }) => {
    const submission = (await forms()).readOperationForm(view);
    if (!submission.ok) {
      await ack(
        'errors' in submission ? { response_action: 'errors', errors: submission.errors } : undefined,
      );
      return;
    }
    await ack();
    const ctx: RequestContext = {
      ...submitter(body),
      channel: submission.channel,
      responseUrl: submission.responseUrl,
      correlationId: randomUUID(),
    };
    const reply = await safely(deps, ctx, submission.op.id, () =>
      answerOperation(deps, ctx, client, { op: submission.op, input: submission.input, options: {} }),
    );
    if (reply && !reply.shownElsewhere) await postReply(deps, client, ctx, reply);
  });

  app.view(CallbackId.login, async ({ ack, body, view, client }) => {
    const { handleLoginSubmission, TOKEN_BLOCK } = await profiles();
    const result = await handleLoginSubmission(deps, { ...submitter(body), view, client }).catch(
      async (error: unknown) => {
        const ack = await storageTroubleUnder(TOKEN_BLOCK, 'your token may not be linked yet', error);
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause.name : undefined;
        deps.logger.error('login not stored: storage unavailable', { cause });
        return { ack };
      },
    );
    await ack(result.ack);
  });

  app.view(CallbackId.stepUpCode, async ({ ack, body, view, client }) => {
    const { team, user } = submitter(body);
    const correlationId = randomUUID();
    const { handleCodeSubmission, CODE_BLOCK } = await stepUp();
    const result = await handleCodeSubmission(
      deps,
      { team, user, view, client, correlationId },
      (channel, reply) => postReply(deps, client, { team, user, channel, correlationId }, reply),
    ).catch(async (error: unknown) => {
      // Nothing was counted unless the vote was written; the code itself never reaches the log.
      deps.logger.error('step-up code not checked', { correlationId, cause: errorName(error) });
      const text = (await errorReplies()).modalErrorText(error, 'your vote may not have been counted');
      return {
        ack: {
          response_action: 'errors' as const,
          errors: {
            [CODE_BLOCK]: text ?? 'The code could not be checked just now. Submit again in a minute.',
          },
        },
      };
    });
    await ack(result.ack);
  });
  app.view(CallbackId.runbookAdd, async ({ ack, body, view, client }) => {
    const { handleRunbookSubmission } = await import('../bot-commands/runbook.js');
    const result = await handleRunbookSubmission(
      { ...deps, slack: client },
      { ...submitter(body), view },
    ).catch((error: unknown) => storageTroubleUnder('steps', 'the runbook may not have been saved', error));
    await ack(result);
  });
  app.view(CallbackId.settingsImport, async ({ ack, body, view, client }) => {
    const { handleSettingsSubmission } = await import('../bot-commands/settings.js');
    const result = await handleSettingsSubmission(
      { ...deps, slack: client },
      { ...submitter(body), view },
    ).catch((error: unknown) =>
      storageTroubleUnder('document', 'the settings change may not have been asked for', error),
    );
    await ack(result);
  });
}

/** Who submitted a modal, and in which workspace. */
function submitter(body: { team: { id: string } | null; user: { id: string; team_id?: string } }): {
  readonly team: string;
  readonly user: string;
} {
  return { team: body.team?.id ?? body.user.team_id ?? '', user: body.user.id };
}

/**
 * Storage trouble, shown under the modal's `field` (only plain text fits there) so the person can
 * submit again; anything else is rethrown, for Bolt's error handler.
 */
async function storageTroubleUnder(field: string, unsure: string, error: unknown) {
  const text = (await errorReplies()).modalErrorText(error, unsure);
  if (text === undefined) throw error;
  return { response_action: 'errors' as const, errors: { [field]: text } };
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/**
 * The reply to a submitted form. A modal has no response_url of its own: the form carries the one
 * of the command or click that opened it, which works in any channel the person is in. Without it
 * (or once it is used up), the bot posts in the channel, and when the channel refuses the bot
 * (not a member, archived), it tells the person directly.
 */
async function postReply(deps: BotDeps, client: WebClient, ctx: RequestContext, reply: Reply): Promise<void> {
  const { deliverSafely } = await worker();
  await deliverSafely({ ...deps, slack: client }, ctx, reply);
}
