import type { Logger } from '@aws-lambda-powertools/logger';
import {
  checkAliasName,
  expandAlias,
  PLACEHOLDER_VALUES,
  placeholderArguments,
  readTemplate,
} from '../commands/aliases.js';
import { catalog } from '../commands/catalog.js';
import { engineNotNamedMessage } from '../commands/engine-verbs.js';
import { type FrontParse, parseFront } from '../commands/parse/front.js';
import { type CommandOperation, SLASH_COMMAND } from '../commands/registry.js';
import { tokenize } from '../commands/tokenize.js';
import { isPrototypeKey } from '../prototype-keys.js';
import type { AliasScope, NewAuditEntry, Store, StoredAlias } from '../store/index.js';
import { type AdminDeps, isPolicyAdmin } from './admins.js';
import type { Caller } from './caller.js';

/**
 * Aliases: adding, replacing, removing and listing them, and what a call of one runs. An alias
 * grants nothing: its expansion goes down the same path as the same command typed (the channel's
 * guardrails, approvals, previews, forms).
 *
 * Who may change aliases: a workspace alias is changed by the people who change the approval
 * policy (`isPolicyAdmin`). A channel alias may be added by anyone in the channel, because it runs
 * nothing its user could not type; once added, only its author or an admin may replace or remove
 * it, so nobody can turn a colleague's alias into another command under the same name.
 *
 * The name and the expansion are read by the command language (`lib/commands/aliases.ts`); where
 * it refuses them, its own sentence is passed on as it is (`message`), for every surface to show.
 */

/** Per channel and for the workspace: enough for shortcuts, and a list that fits one message. */
export const MAX_ALIASES_PER_SCOPE = 50;

export interface AliasDeps extends AdminDeps {
  readonly store: Pick<Store, 'aliases' | 'approvalPolicy' | 'audit'>;
  readonly logger: Logger;
}

/** Whose alias: the caller's channel's, or the whole workspace's. */
export type AliasScopeKind = AliasScope['kind'];

type CatalogFront = FrontParse<CommandOperation>;

/** Why an expansion cannot be an alias's, or cannot run. */
export type ExpansionProblem =
  /** Not a well-formed expansion (empty, too long, parameters out of place): the command language's words. */
  | { readonly kind: 'unreadable'; readonly message: string }
  /** Its words name no command: the parser's words. */
  | { readonly kind: 'not_a_command'; readonly message: string }
  /** Help, one of the bot's own commands, or another alias. */
  | { readonly kind: 'not_an_operation' }
  /** Bypassing approvals is decided by the person at the moment, with their reason, never stored. */
  | { readonly kind: 'break_glass' }
  /**
   * No operation command with the placeholder arguments tried for its parameters; `message` is the
   * parser's first complaint, when it had one.
   */
  | {
      readonly kind: 'does_not_run';
      readonly placeholders: readonly string[];
      readonly message: string | undefined;
    };

/** Why the caller may not change the alias. */
export type AliasRefusal =
  | { readonly kind: 'refused'; readonly reason: 'workspace_needs_admin' }
  /** A channel alias someone else added: only its author or an admin may replace or remove it. */
  | { readonly kind: 'refused'; readonly reason: 'not_author'; readonly author: string };

export interface AddAliasRequest {
  readonly scope: AliasScopeKind;
  readonly name: string;
  /** The command it runs, without the slash command: `volumes delete $1`. */
  readonly expansion: string;
}

export type AddAliasOutcome =
  | {
      readonly kind: 'added' | 'replaced';
      readonly alias: StoredAlias;
      /** How many parameters a call takes: `$1` … `$n`. */
      readonly parameterCount: number;
    }
  | { readonly kind: 'invalid_name'; readonly message: string }
  | { readonly kind: 'invalid_expansion'; readonly problem: ExpansionProblem }
  | AliasRefusal
  | { readonly kind: 'at_cap'; readonly limit: number };

export interface RemoveAliasRequest {
  readonly scope: AliasScopeKind;
  readonly name: string;
}

export type RemoveAliasOutcome =
  | { readonly kind: 'removed'; readonly alias: StoredAlias }
  | { readonly kind: 'invalid_name'; readonly message: string }
  | { readonly kind: 'not_found' }
  | AliasRefusal
  /** Someone else removed it between the read and the delete. */
  | { readonly kind: 'already_removed' };

export interface AliasLists {
  /** The caller's channel's aliases, by name. */
  readonly channel: readonly StoredAlias[];
  /** The workspace's, by name; a channel's alias wins over the workspace's of the same name. */
  readonly workspace: readonly StoredAlias[];
}

/** What a call of an alias asks for. */
export type AliasCall =
  /** The first word names no alias here (the surface answers "no such command"). */
  | { readonly kind: 'not_an_alias' }
  /** `NAME --help`: what the alias is, nothing run. */
  | { readonly kind: 'help'; readonly alias: StoredAlias }
  /** Stored by an earlier release under other rules, or written by hand: it no longer passes them. */
  | {
      readonly kind: 'cannot_run';
      readonly alias: StoredAlias;
      readonly problem: Exclude<ExpansionProblem, { readonly kind: 'does_not_run' }>;
    }
  /** The call's arguments do not fit the alias's parameters: the command language's words. */
  | { readonly kind: 'bad_arguments'; readonly alias: StoredAlias; readonly message: string }
  | {
      readonly kind: 'expanded';
      readonly alias: StoredAlias;
      /** The expansion's front, for the same path as typed text. */
      readonly front: Extract<CatalogFront, { readonly kind: 'operation-args' }>;
      /** The command as Slack's transport would carry it, for the parser. */
      readonly transportText: string;
      /** The command as a person would type it, to show what ran. */
      readonly displayText: string;
    };

/**
 * Adds the alias, or replaces the one of that name in that scope. The expansion must be an
 * operation command the parser accepts with placeholder arguments for its parameters; a new name
 * needs room under `MAX_ALIASES_PER_SCOPE`.
 */
export async function addAlias(
  deps: AliasDeps,
  caller: Caller,
  request: AddAliasRequest,
): Promise<AddAliasOutcome> {
  const { name, expansion } = request;
  const named = checkAliasName(name, catalog);
  if (!named.ok) return { kind: 'invalid_name', message: named.message };
  const checked = await checkExpansion(name, expansion);
  if (!checked.ok) return { kind: 'invalid_expansion', problem: checked.problem };

  const scope = scopeOf(caller, request.scope);
  const existing = await deps.store.aliases.get(caller.team, scope, name);
  const refusal = await changeRefusal(deps, caller, scope, existing);
  if (refusal) return refusal;
  if (existing === undefined) {
    const listed = await deps.store.aliases.list(caller.team, caller.channel);
    const count = scope.kind === 'workspace' ? listed.workspace.length : listed.channel.length;
    if (count >= MAX_ALIASES_PER_SCOPE) return { kind: 'at_cap', limit: MAX_ALIASES_PER_SCOPE };
  }
  const alias = await deps.store.aliases.put(caller.team, scope, name, expansion, caller.user);
  await audit(deps, caller, 'alias.add', name, 'succeeded', `${SLASH_COMMAND} ${expansion}`);
  return {
    kind: existing ? 'replaced' : 'added',
    alias,
    parameterCount: checked.parameterCount,
  };
}

export async function removeAlias(
  deps: AliasDeps,
  caller: Caller,
  request: RemoveAliasRequest,
): Promise<RemoveAliasOutcome> {
  const { name } = request;
  const named = checkAliasName(name, catalog);
  if (!named.ok) return { kind: 'invalid_name', message: named.message };
  const scope = scopeOf(caller, request.scope);
  const existing = await deps.store.aliases.get(caller.team, scope, name);
  if (existing === undefined) return { kind: 'not_found' };
  const refusal = await changeRefusal(deps, caller, scope, existing);
  if (refusal) return refusal;
  if (!(await deps.store.aliases.remove(caller.team, scope, name))) return { kind: 'already_removed' };
  await audit(deps, caller, 'alias.remove', name, 'succeeded', `${SLASH_COMMAND} ${existing.expansion}`);
  return { kind: 'removed', alias: existing };
}

/** The aliases the caller's channel sees: its own and the workspace's. Anyone may list them. */
export async function listAliases(
  deps: Pick<AliasDeps, 'store'>,
  caller: Pick<Caller, 'team' | 'channel'>,
): Promise<AliasLists> {
  return deps.store.aliases.list(caller.team, caller.channel);
}

/** A typed first word that could name an alias (any case; aliases are stored lowercase). */
const TYPED_ALIAS_NAME = /^[A-Za-z][A-Za-z0-9-]{0,31}$/;

/**
 * `NAME ARGS` when NAME is an alias the caller's channel sees (its own first, then the
 * workspace's): the expansion with the arguments in place, checked again as it was when added. A
 * call that asks for more than a read is audited as requested before it goes on. Running an
 * alias asks nothing of the person's role: the expansion meets the same rules as typed text.
 */
export async function callAlias(
  deps: Pick<AliasDeps, 'store' | 'logger'>,
  caller: Pick<Caller, 'team' | 'user' | 'channel'>,
  text: string,
): Promise<AliasCall> {
  const tokenized = tokenize(text);
  if (!tokenized.ok) return { kind: 'not_an_alias' };
  const [first, ...rest] = tokenized.tokens;
  if (first?.kind !== 'word' || !TYPED_ALIAS_NAME.test(first.text)) return { kind: 'not_an_alias' };
  const name = first.text.toLowerCase();
  if (isPrototypeKey(name) || catalog.findTopic(name).found) return { kind: 'not_an_alias' };
  const alias = await deps.store.aliases.find(caller.team, caller.channel, name);
  if (alias === undefined) return { kind: 'not_an_alias' };

  if (rest.length === 1 && rest[0]?.kind === 'flag' && rest[0].name.toLowerCase() === 'help') {
    return { kind: 'help', alias };
  }
  const template = readTemplate(alias.expansion);
  if (!template.ok) {
    return { kind: 'cannot_run', alias, problem: { kind: 'unreadable', message: template.message } };
  }
  const expanded = expandAlias(name, template.template, rest);
  if (!expanded.ok) return { kind: 'bad_arguments', alias, message: expanded.message };
  const front = parseFront(expanded.transportText, catalog);
  if (front.kind !== 'operation-args') return { kind: 'cannot_run', alias, problem: frontProblem(front) };
  if (front.breakGlass !== undefined) return { kind: 'cannot_run', alias, problem: { kind: 'break_glass' } };

  if (front.op.class !== 'read') {
    await audit(deps, caller, 'alias.run', name, 'requested', `${SLASH_COMMAND} ${expanded.displayText}`);
  }
  return {
    kind: 'expanded',
    alias,
    front,
    transportText: expanded.transportText,
    displayText: expanded.displayText,
  };
}

// ---------------------------------------------------------------------------------------------

function scopeOf(caller: Pick<Caller, 'channel'>, kind: AliasScopeKind): AliasScope {
  return kind === 'workspace' ? { kind: 'workspace' } : { kind: 'channel', channel: caller.channel };
}

/**
 * Why the caller may not add, replace or remove the alias, or undefined when they may. The
 * workspace's policy is read, and the workspace asked, only when being an admin decides it.
 */
async function changeRefusal(
  deps: AliasDeps,
  caller: Caller,
  scope: AliasScope,
  existing: StoredAlias | undefined,
): Promise<AliasRefusal | undefined> {
  if (scope.kind === 'channel' && (existing === undefined || existing.createdBy === caller.user)) {
    return undefined;
  }
  const policy = await deps.store.approvalPolicy.get(caller.team);
  if (await isPolicyAdmin(deps, caller, policy)) return undefined;
  if (scope.kind === 'workspace') return { kind: 'refused', reason: 'workspace_needs_admin' };
  return { kind: 'refused', reason: 'not_author', author: existing?.createdBy ?? '' };
}

export type ExpansionCheck =
  | { readonly ok: true; readonly parameterCount: number }
  | { readonly ok: false; readonly problem: ExpansionProblem };

/**
 * The expansion must be an operation command the parser accepts, with placeholder arguments in
 * place of `$1` … `$n`. Not help, not a bot command (so never another alias or `alias` itself),
 * and never `--break-glass`.
 */
export async function checkExpansion(name: string, expansion: string): Promise<ExpansionCheck> {
  const read = readTemplate(expansion);
  if (!read.ok) return { ok: false, problem: { kind: 'unreadable', message: read.message } };
  const { template } = read;
  // The full parser (the operations' schemas) loads only when an alias is added.
  const { parseCommand } = await import('../commands/parse.js');
  let firstProblem: string | undefined;
  for (const value of PLACEHOLDER_VALUES) {
    const expanded = expandAlias(name, template, placeholderArguments(template, value));
    if (!expanded.ok) return { ok: false, problem: { kind: 'unreadable', message: expanded.message } };
    const front = parseFront(expanded.transportText, catalog);
    if (front.kind !== 'operation-args') return { ok: false, problem: frontProblem(front) };
    if (front.breakGlass !== undefined) return { ok: false, problem: { kind: 'break_glass' } };
    const parsed = parseCommand(expanded.transportText);
    if (parsed.kind === 'operation' || parsed.kind === 'form') {
      return { ok: true, parameterCount: template.parameterCount };
    }
    if (parsed.kind === 'error') firstProblem ??= parsed.message;
  }
  return {
    ok: false,
    problem: { kind: 'does_not_run', placeholders: PLACEHOLDER_VALUES, message: firstProblem },
  };
}

/** Why a front that names no operation cannot be an alias's expansion. */
function frontProblem(
  front: Exclude<CatalogFront, { readonly kind: 'operation-args' }>,
): Extract<ExpansionProblem, { readonly kind: 'not_a_command' | 'not_an_operation' }> {
  if (front.kind === 'engine-args') {
    return { kind: 'not_a_command', message: engineNotNamedMessage(front, SLASH_COMMAND) };
  }
  return front.kind === 'error'
    ? { kind: 'not_a_command', message: front.message }
    : { kind: 'not_an_operation' };
}

/** A lost audit line is logged, never thrown: the change itself has happened. */
async function audit(
  deps: Pick<AliasDeps, 'store' | 'logger'>,
  caller: Pick<Caller, 'team' | 'user'>,
  action: string,
  name: string,
  result: NewAuditEntry['result'],
  detail: string,
): Promise<void> {
  await deps.store.audit
    .append({ team: caller.team, actor: caller.user, action, target: `alias ${name}`, result, detail })
    .catch((error: unknown) => deps.logger.error('audit entry not written', { error }));
}
