import { randomUUID } from 'node:crypto';
import type { ViewOutput } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import * as z from 'zod';
import { type LinkRefusal, linksOf, linkToken, unlinkProfile, useProfile } from '../../core/membership.js';
import { CallbackId } from '../../slack-kit/interaction-ids.js';
import { notice, type Reply } from '../../slack-kit/reply.js';
import { bold, codeSpan, countOf, slackDate } from '../../slack-kit/text.js';
import { callerOf } from '../caller.js';
import type { BotCommandContext, BotDeps } from '../context.js';
import { republishHome } from '../home-refresh.js';
import { openModal } from '../modals.js';
import '../../zod-settings.js';

/**
 * `/cloud login|logout|whoami|use`: a person's linked API tokens, each under a profile name. The
 * core links, unlinks and switches them (`lib/core/membership.ts`); this is the login modal, its
 * submission and what each command is told.
 */

// ---------------------------------------------------------------------------------------------
// login

const LoginMetadataSchema = z.object({ channel: z.string(), profile: z.string() });

export const TOKEN_BLOCK = 'token';
const TOKEN_INPUT = 'token_input';
const PROFILE_BLOCK = 'profile';
const PROFILE_INPUT = 'profile_input';

export function loginModal(channel: string, profile: string) {
  return {
    type: 'modal' as const,
    callback_id: CallbackId.login,
    title: { type: 'plain_text' as const, text: 'Link your API token' },
    submit: { type: 'plain_text' as const, text: 'Link token' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    private_metadata: JSON.stringify({ channel, profile }),
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text:
            'Paste a *personal access token* of the cloud API. It is checked with the API, stored encrypted ' +
            'and used only for your own commands. Give it only the scopes you want to use from Slack.',
        },
      },
      {
        type: 'input',
        block_id: PROFILE_BLOCK,
        label: { type: 'plain_text', text: 'Profile name' },
        hint: {
          type: 'plain_text',
          text: 'Letters, digits, - and _; link several tokens under different names.',
        },
        element: {
          type: 'plain_text_input',
          action_id: PROFILE_INPUT,
          initial_value: profile,
          max_length: 32,
        },
      },
      {
        type: 'input',
        block_id: TOKEN_BLOCK,
        label: { type: 'plain_text', text: 'Personal access token' },
        element: {
          type: 'plain_text_input',
          action_id: TOKEN_INPUT,
          min_length: 16,
          max_length: 200,
          placeholder: { type: 'plain_text', text: 'Paste the token here' },
        },
      },
    ],
  };
}

/** `profile` was read as a profile name by the parser (`--profile` is of kind `profile`). */
export async function openLogin(
  { ctx, client }: BotCommandContext,
  profile: string,
): Promise<Reply | undefined> {
  if (!ctx.triggerId) return notice('Run `/cloud login` to link a token.');
  const again = `Run ${codeSpan(`/cloud login${profile === 'default' ? '' : ` --profile ${profile}`}`)} again.`;
  await openModal(client, ctx.triggerId, loginModal(ctx.channel, profile), again);
  return undefined;
}

export interface LoginSubmission {
  readonly team: string;
  readonly user: string;
  readonly view: ViewOutput;
  readonly client: WebClient;
}

type LoginAck = { response_action: 'errors'; errors: Record<string, string> } | undefined;

/** What the modal shows under the field a refused login is about. */
const REFUSAL_FIELDS: Readonly<Record<LinkRefusal, { readonly block: string; readonly text: string }>> = {
  profile_name_invalid: {
    block: PROFILE_BLOCK,
    text: 'Use 1 to 32 letters, digits, ., - or _, starting with a letter or digit.',
  },
  token_malformed: { block: TOKEN_BLOCK, text: 'That does not look like a token.' },
  token_rejected: {
    block: TOKEN_BLOCK,
    text: 'The API did not accept this token: it may be mistyped, revoked or expired.',
  },
  api_unreachable: { block: TOKEN_BLOCK, text: 'The API did not answer in time. Try again in a moment.' },
  check_failed: {
    block: TOKEN_BLOCK,
    text: 'The token could not be checked with the API. Try again in a moment.',
  },
};

/**
 * The login modal's submission: the token is linked by the core (`linkToken`), which checks it
 * with the API first. The token is never echoed: not in errors, not in the confirmation.
 */
export async function handleLoginSubmission(
  deps: BotDeps,
  submission: LoginSubmission,
): Promise<{ ack: LoginAck }> {
  const values = submission.view.state.values;
  const token = values[TOKEN_BLOCK]?.[TOKEN_INPUT]?.value?.trim() ?? '';
  const profile = values[PROFILE_BLOCK]?.[PROFILE_INPUT]?.value?.trim() || 'default';
  const metadata = LoginMetadataSchema.safeParse(safeJson(submission.view.private_metadata));
  const ctx = {
    team: submission.team,
    user: submission.user,
    channel: metadata.success ? metadata.data.channel : '',
    correlationId: randomUUID(),
  };

  const outcome = await linkToken(deps, callerOf({ ctx, client: submission.client }), { profile, token });
  if (outcome.kind === 'refused') {
    const { block, text } = REFUSAL_FIELDS[outcome.reason];
    return { ack: { response_action: 'errors', errors: { [block]: text } } };
  }

  // The confirmation and the Home's refresh (a hand-off) are independent: told together.
  const confirmation = async () => {
    if (!metadata.success) return;
    const expiry = outcome.expiry ? `expires ${slackDate(outcome.expiry, 'at')}` : 'does not expire';
    await submission.client.chat
      .postEphemeral({
        channel: metadata.data.channel,
        user: submission.user,
        text:
          `:white_check_mark: Linked as ${bold(outcome.apiUsername)} (profile ${codeSpan(outcome.profile)}, now active). ` +
          `Scopes: ${codeSpan(outcome.scopes)}; the token ${expiry}.`,
      })
      .catch((error: unknown) => deps.logger.warn('login confirmation not posted', { error }));
  };
  await Promise.all([
    confirmation(),
    republishHome(deps, submission.team, [submission.user], ctx.correlationId),
  ]);
  return { ack: undefined };
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// logout, whoami, use

export async function logout(context: BotCommandContext, profile: string | undefined): Promise<Reply> {
  const { deps, ctx } = context;
  const outcome = await unlinkProfile(deps, callerOf(context), { profile });
  if (outcome.kind === 'no_such_profile') {
    return notice(`You have no linked token named \`${outcome.profile}\`. \`/cloud whoami\` lists yours.`);
  }
  await republishHome(deps, ctx.team, [ctx.user], ctx.correlationId);
  const unlinked = `Unlinked profile \`${outcome.profile}\`; its token is deleted from the bot. Revoke it in the cloud console too if you no longer need it.`;
  const agents = outcome.agentsRevoked;
  return notice(
    agents === 0
      ? unlinked
      : `${unlinked}\n:robot_face: It was your last linked token, so ${agents === 1 ? 'your agent was' : `your ${countOf(agents, 'agent')} were`} revoked too: agents act with your tokens, and you have none left.`,
  );
}

export async function whoami(context: BotCommandContext): Promise<Reply> {
  const links = await linksOf(context.deps, callerOf(context));
  if (links.length === 0) return notice('You have no linked token. Run `/cloud login` to link one.');
  const lines = links.map((link) => {
    const active = link.active ? ' *(active)*' : '';
    const state = link.status === 'invalid' ? ' :warning: rejected by the API — log in again' : '';
    const expiry = link.expiry ? `expires ${slackDate(link.expiry, 'at')}` : 'no expiry';
    return `• ${codeSpan(link.profile)}${active}: ${bold(link.apiUsername)}, scopes ${codeSpan(link.scopes)}, ${expiry}${state}`;
  });
  return notice(`Your linked tokens:\n${lines.join('\n')}`);
}

export async function switchProfile(context: BotCommandContext, profile: string): Promise<Reply> {
  const { deps, ctx } = context;
  const outcome = await useProfile(deps, callerOf(context), { profile });
  if (outcome.kind === 'switched') await republishHome(deps, ctx.team, [ctx.user], ctx.correlationId);
  return notice(
    outcome.kind === 'switched'
      ? `Your commands now run with profile \`${outcome.profile}\`.`
      : `You have no linked token named \`${outcome.profile}\`. Link one with \`/cloud login --profile ${outcome.profile}\`.`,
  );
}
