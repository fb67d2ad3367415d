import type { KnownBlock } from '@slack/types';
import {
  type AliasTemplate,
  checkAliasName,
  expandAlias,
  PLACEHOLDER_VALUES,
  parameterList,
  placeholderArguments,
  readTemplate,
} from '../commands/aliases.js';
import { catalog } from '../commands/catalog.js';
import { type FrontParse, parseFront } from '../commands/parse/front.js';
import type { ParsedCommand } from '../commands/parse/result.js';
import { type CommandOperation, SLASH_COMMAND } from '../commands/registry.js';
import { tokenize } from '../commands/tokenize.js';
import { isPolicyAdmin } from '../core/admins.js';
import { isPrototypeKey } from '../prototype-keys.js';
import { contextBlock } from '../slack-kit/blocks.js';
import { SLACK_LIMITS, truncate } from '../slack-kit/limits.js';
import { notice, type Reply } from '../slack-kit/reply.js';
import { codeSpan, slackDate, userMention } from '../slack-kit/text.js';
import type { AliasScope, StoredAlias } from '../store/index.js';
import { withAliasLine } from './alias-line.js';
import { callerOf } from './caller.js';
import type { BotCommandContext, BotDeps, RequestContext } from './context.js';

/**
 * `/cloud alias add|list|remove`, and `/cloud NAME ARGS` for an alias. An alias grants nothing: its
 * expansion goes down the same path as the same command typed (the channel's guardrails, approvals,
 * previews, forms), and the answer says what it ran.
 *
 * Who may change aliases: a workspace alias (`--workspace`) is changed by the people who change the
 * approval policy (workspace admins and the policy's admins). A channel alias may be added by
 * anyone in the channel, because it runs nothing its user could not type; once added, only its
 * author or an admin may replace or remove it, so nobody can turn a colleague's alias into another
 * command under the same name.
 */

type BotParsed = Extract<ParsedCommand, { kind: 'bot' }>;
type CatalogFront = FrontParse<CommandOperation>;

/** Per channel and for the workspace: enough for shortcuts, and a list that fits one message. */
export const MAX_ALIASES_PER_SCOPE = 50;
const LINES_PER_SECTION = 10;

export async function handleAliasCommand(context: BotCommandContext, parsed: BotParsed): Promise<Reply> {
  const workspace = parsed.flags.workspace === true;
  const scope: AliasScope = workspace
    ? { kind: 'workspace' }
    : { kind: 'channel', channel: context.ctx.channel };
  switch (parsed.subcommand) {
    case 'add':
      return addAlias(context, scope, parsed.args[0] ?? '', parsed.args[1] ?? '');
    case 'remove':
      return removeAlias(context, scope, parsed.args[0] ?? '');
    default:
      return listAliases(context);
  }
}

// ---------------------------------------------------------------------------------------------
// add, remove, list

async function addAlias(
  context: BotCommandContext,
  scope: AliasScope,
  name: string,
  expansion: string,
): Promise<Reply> {
  const { deps, ctx } = context;
  const named = checkAliasName(name, catalog);
  if (!named.ok) return notice(named.message);
  const checked = await checkExpansion(name, expansion);
  if (!checked.ok) return notice(checked.message);

  const existing = await deps.store.aliases.get(ctx.team, scope, name);
  const refusal = await changeRefusal(context, scope, existing, 'replace');
  if (refusal) return notice(refusal);
  if (existing === undefined) {
    const listed = await deps.store.aliases.list(ctx.team, ctx.channel);
    const count = scope.kind === 'workspace' ? listed.workspace.length : listed.channel.length;
    if (count >= MAX_ALIASES_PER_SCOPE) {
      return notice(
        `${scopeWords(scope, true)} has ${MAX_ALIASES_PER_SCOPE} aliases, the most it may have. Remove one first (\`${SLASH_COMMAND} alias list\`).`,
      );
    }
  }
  await deps.store.aliases.put(ctx.team, scope, name, expansion, ctx.user);
  await audit(context, 'alias.add', name, `${SLASH_COMMAND} ${expansion}`);
  const parameters = checked.template.parameterCount;
  const call = `${SLASH_COMMAND} ${name}${parameters > 0 ? ` ${parameterList(parameters)}` : ''}`;
  return notice(
    `${existing ? 'Replaced' : 'Added'} alias ${codeSpan(name)} for ${scopeWords(scope, false)}: ${codeSpan(call)} runs ${codeSpan(`${SLASH_COMMAND} ${expansion}`)}, under the guardrails and approvals of the channel it is used in.`,
  );
}

async function removeAlias(context: BotCommandContext, scope: AliasScope, name: string): Promise<Reply> {
  const { deps, ctx } = context;
  const named = checkAliasName(name, catalog);
  if (!named.ok) return notice(named.message);
  const existing = await deps.store.aliases.get(ctx.team, scope, name);
  if (existing === undefined) {
    const other = scope.kind === 'workspace' ? '' : ' (a workspace alias is removed with `--workspace`)';
    return notice(
      `${scopeWords(scope, true)} has no alias ${codeSpan(name)}${other}. \`${SLASH_COMMAND} alias list\` lists them.`,
    );
  }
  const refusal = await changeRefusal(context, scope, existing, 'remove');
  if (refusal) return notice(refusal);
  const removed = await deps.store.aliases.remove(ctx.team, scope, name);
  if (!removed) return notice(`Alias ${codeSpan(name)} was already removed.`);
  await audit(context, 'alias.remove', name, `${SLASH_COMMAND} ${existing.expansion}`);
  return notice(`Removed alias ${codeSpan(name)} of ${scopeWords(scope, false)}.`);
}

async function listAliases({ deps, ctx }: BotCommandContext): Promise<Reply> {
  const { channel, workspace } = await deps.store.aliases.list(ctx.team, ctx.channel);
  if (channel.length === 0 && workspace.length === 0) {
    return notice(
      `No aliases here yet. Add one with ${codeSpan(`${SLASH_COMMAND} alias add rmvol "volumes delete $1"`)}.`,
    );
  }
  const own = new Set(channel.map((alias) => alias.name));
  const line = (alias: StoredAlias) => {
    const shadowed =
      alias.scope.kind === 'workspace' && own.has(alias.name) ? ' _(this channel has its own)_' : '';
    return `• ${codeSpan(alias.name)} → ${codeSpan(`${SLASH_COMMAND} ${alias.expansion}`)} by ${userMention(alias.createdBy)} ${slackDate(alias.createdAt)}${shadowed}`;
  };
  const blocks: KnownBlock[] = [];
  const section = (title: string, aliases: readonly StoredAlias[]) => {
    if (aliases.length === 0) return;
    const lines = aliases.map(line);
    for (let i = 0; i < lines.length; i += LINES_PER_SECTION) {
      const head = i === 0 ? `*${title}*\n` : '';
      blocks.push({
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: truncate(
            `${head}${lines.slice(i, i + LINES_PER_SECTION).join('\n')}`,
            SLACK_LIMITS.sectionText,
          ),
        },
      });
    }
  };
  section('Aliases of this channel', channel);
  section('Aliases of the workspace', workspace);
  blocks.push(
    contextBlock(
      `Run one with ${codeSpan(`${SLASH_COMMAND} NAME ARGS`)}; a channel's alias wins over the workspace's of the same name.`,
    ),
  );
  return {
    text: `${channel.length} channel and ${workspace.length} workspace aliases`,
    blocks,
    visibility: 'ephemeral',
  };
}

/** Why this person may not replace or remove the alias, or undefined when they may. */
async function changeRefusal(
  context: BotCommandContext,
  scope: AliasScope,
  existing: StoredAlias | undefined,
  verb: 'replace' | 'remove',
): Promise<string | undefined> {
  const authorOfExisting = existing !== undefined && existing.createdBy === context.ctx.user;
  if (scope.kind === 'channel' && (existing === undefined || authorOfExisting)) return undefined;
  const policy = await context.deps.store.approvalPolicy.get(context.ctx.team);
  if (await isPolicyAdmin(context.deps, callerOf(context), policy)) return undefined;
  if (scope.kind === 'workspace') {
    return 'Only workspace admins (or the admins named in the approval policy) can change workspace aliases. Leave out `--workspace` to change an alias of this channel.';
  }
  return `Alias ${codeSpan(existing?.name ?? '')} was added by ${userMention(existing?.createdBy ?? '')}; only they or a workspace admin can ${verb} it.`;
}

type ExpansionCheck =
  | { readonly ok: true; readonly template: AliasTemplate }
  | { readonly ok: false; readonly message: string };

/**
 * The expansion must be an operation command the parser accepts, with placeholder arguments in
 * place of `$1` … `$n`. Not help, not a bot command (so never another alias or `alias` itself),
 * and never `--break-glass`: bypassing approvals is decided by the person at the moment, with
 * their reason, not stored under a short name.
 */
async function checkExpansion(name: string, expansion: string): Promise<ExpansionCheck> {
  const read = readTemplate(expansion);
  if (!read.ok) return read;
  const { template } = read;
  const { parseCommand } = await import('../commands/parse.js');
  let firstProblem: string | undefined;
  for (const value of PLACEHOLDER_VALUES) {
    const expanded = expandAlias(name, template, placeholderArguments(template, value));
    if (!expanded.ok) return expanded;
    const front = parseFront(expanded.transportText, catalog);
    const notOperation = frontRefusal(front);
    if (notOperation) return { ok: false, message: notOperation };
    const parsed = parseCommand(expanded.transportText);
    if (parsed.kind === 'operation' || parsed.kind === 'form') return { ok: true, template };
    if (parsed.kind === 'error') firstProblem ??= parsed.message;
  }
  return {
    ok: false,
    message: `The expansion is not a command that runs (checked with ${PLACEHOLDER_VALUES.map((v) => codeSpan(v)).join(' and ')} for its parameters): ${firstProblem ?? 'it does not parse'}`,
  };
}

/** Why an expansion's front is not an operation an alias may run, or undefined when it is. */
function frontRefusal(front: CatalogFront): string | undefined {
  switch (front.kind) {
    case 'operation-args':
      return front.breakGlass === undefined
        ? undefined
        : '`--break-glass` cannot be part of an alias: type the command with its reason when it is needed.';
    case 'error':
      return `The expansion is not a command: ${front.message}`;
    case 'help':
    case 'bot':
      return `An alias runs an operation such as ${codeSpan('volumes delete $1')}, not help, the bot's own commands or another alias.`;
  }
}

// ---------------------------------------------------------------------------------------------
// running an alias

/** The same path as typed text: the front of the expansion in, the answer out. */
export type AnswerExpansion = (
  front: CatalogFront,
  transportText: string,
  viaAlias: { readonly name: string; readonly line: string },
) => Promise<Reply | undefined>;

/** A typed first word that could name an alias (any case; aliases are stored lowercase). */
const TYPED_ALIAS_NAME = /^[A-Za-z][A-Za-z0-9-]{0,31}$/;

/**
 * `/cloud NAME ARGS` when NAME is an alias here: the answer to its expansion with what it ran on
 * top (none when a form opened). `not-an-alias` when the first word names no alias, so the caller
 * answers "no such command".
 */
export async function answerAliasCall(
  deps: BotDeps,
  ctx: RequestContext,
  text: string,
  answerExpansion: AnswerExpansion,
): Promise<Reply | undefined | 'not-an-alias'> {
  const tokenized = tokenize(text);
  if (!tokenized.ok) return 'not-an-alias';
  const [first, ...rest] = tokenized.tokens;
  if (first?.kind !== 'word' || !TYPED_ALIAS_NAME.test(first.text)) return 'not-an-alias';
  const name = first.text.toLowerCase();
  if (isPrototypeKey(name) || catalog.findTopic(name).found) return 'not-an-alias';
  const alias = await deps.store.aliases.find(ctx.team, ctx.channel, name);
  if (alias === undefined) return 'not-an-alias';

  const where = alias.scope.kind === 'workspace' ? 'the workspace' : 'this channel';
  const definition = `Alias ${codeSpan(name)} of ${where} runs ${codeSpan(`${SLASH_COMMAND} ${alias.expansion}`)}`;
  if (rest.length === 1 && rest[0]?.kind === 'flag' && rest[0].name.toLowerCase() === 'help') {
    return notice(`${definition}. Added by ${userMention(alias.createdBy)} ${slackDate(alias.createdAt)}.`);
  }
  // Stored by an earlier release under other rules, or written by hand: checked again before use.
  const template = readTemplate(alias.expansion);
  if (!template.ok) return notice(`${definition}, which cannot run: ${template.message}`);
  const expanded = expandAlias(name, template.template, rest);
  if (!expanded.ok) return notice(expanded.message);
  const front = parseFront(expanded.transportText, catalog);
  const refusal = frontRefusal(front);
  if (refusal) return notice(`${definition}, which cannot run: ${refusal}`);

  if (front.kind === 'operation-args' && front.op.class !== 'read') {
    await deps.store.audit
      .append({
        team: ctx.team,
        actor: ctx.user,
        action: 'alias.run',
        target: `alias ${name}`,
        result: 'requested',
        detail: `${SLASH_COMMAND} ${expanded.displayText}`,
      })
      .catch((error: unknown) => deps.logger.error('audit entry not written', { error }));
  }
  const ran = `:link: Alias ${codeSpan(name)} (${where}): ${codeSpan(`${SLASH_COMMAND} ${expanded.displayText}`)}`;
  const reply = await answerExpansion(front, expanded.transportText, { name, line: ran });
  return reply && withAliasLine(reply, ran);
}

// ---------------------------------------------------------------------------------------------

function scopeWords(scope: AliasScope, capital: boolean): string {
  const words = scope.kind === 'workspace' ? 'the workspace' : 'this channel';
  return capital ? `${words[0]?.toUpperCase()}${words.slice(1)}` : words;
}

async function audit(context: BotCommandContext, action: string, name: string, detail: string) {
  await context.deps.store.audit
    .append({
      team: context.ctx.team,
      actor: context.ctx.user,
      action,
      target: `alias ${name}`,
      result: 'succeeded',
      detail,
    })
    .catch((error: unknown) => context.deps.logger.error('audit entry not written', { error }));
}
