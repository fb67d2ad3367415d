import type { Logger } from '@aws-lambda-powertools/logger';
import { OPERATION_CLASSES, type OperationClass } from '../api/operation.js';
import type { CardAccess, ChannelRefusal } from '../changes/ports.js';
import { type AgentGrant, type AgentScope, SLACKBOT_GRANT_ID } from '../store/agent-grants.js';
import type { NewAuditEntry, Store } from '../store/index.js';
import type { Caller } from './caller.js';

/**
 * The agents that act for a person (MCP clients signed in through the bot's OAuth pages, and
 * Slackbot): listing them, taking one away, letting Slackbot act from a home channel, and taking
 * them all when the person leaves (logout of their last profile). The grants themselves are the
 * store's (`lib/store/agent-grants.ts`); the rules about them are here.
 *
 * Who may do what:
 * - A person sees and revokes their own agents only: grants live in their partition, so there is
 *   no way to name another person's. Nobody else, admins included, revokes them here: a person
 *   who leaves takes theirs with the last profile, a workspace that removes the app takes all.
 * - An agent manages no agents (`surface: 'agent'` is refused): it must not grant Slackbot more
 *   than the person did, nor take the person's other agents away.
 * - Slackbot's home is the channel its changes become approval cards in: a channel (not a direct
 *   message, where nobody but the person would see what their agent asks), whose guardrails let
 *   the commands its access covers run, and in which the surface can post cards. The person needs
 *   a linked profile: an agent runs with the person's own token, and a person without one has no
 *   agents (logging out of the last profile takes them).
 */

export interface AgentDeps {
  readonly store: Pick<Store, 'agentGrants' | 'audit' | 'tokenLinks' | 'channelPolicy'>;
  readonly logger: Logger;
}

/** What an agent may do: run reads, or also ask for changes (each still waits for people). */
export type AgentAccess = 'read' | 'change';

/** The scopes a grant holds for an access. */
export const SCOPES_OF_ACCESS: { readonly [A in AgentAccess]: readonly AgentScope[] } = {
  read: ['cloud:read'],
  change: ['cloud:read', 'cloud:change'],
};

/** What a grant's scopes let its agent do. */
export function accessOf(grant: Pick<AgentGrant, 'scopes'>): AgentAccess {
  return grant.scopes.includes('cloud:change') ? 'change' : 'read';
}

/** The name Slackbot's grant is shown with; its client id is `slackbot`. */
export const SLACKBOT_CLIENT = { id: 'slackbot', name: 'Slackbot' } as const;

/** A request made through an agent: agents do not manage agents. */
export interface AgentCallerRefusal {
  readonly kind: 'refused';
  readonly reason: 'agent_caller';
}

function agentCallerRefusal(caller: Caller): AgentCallerRefusal | undefined {
  return caller.surface === 'agent' ? { kind: 'refused', reason: 'agent_caller' } : undefined;
}

// ---------------------------------------------------------------------------------------------
// listing

/** The caller's agents, oldest first: position 1 is the first (what `revoke 1` names). */
export async function listAgents(
  deps: Pick<AgentDeps, 'store'>,
  caller: Caller,
): Promise<readonly AgentGrant[]> {
  return deps.store.agentGrants.listFor(caller.team, caller.user);
}

// ---------------------------------------------------------------------------------------------
// revoking one

export interface RevokeAgentRequest {
  /** Which agent: its position in the caller's list (`1` is the oldest) or its grant id. */
  readonly which: string;
}

export type RevokeAgentOutcome =
  /** The grant is gone, and with it every token issued under it. */
  | { readonly kind: 'revoked'; readonly grant: AgentGrant }
  /** Neither a position nor a grant id. */
  | { readonly kind: 'invalid_reference' }
  /** No agent of the caller's at that position or with that id. */
  | { readonly kind: 'not_found'; readonly count: number }
  /** Someone (another window, a replayed refresh token) revoked it between the read and the delete. */
  | { readonly kind: 'already_revoked'; readonly grant: AgentGrant }
  | AgentCallerRefusal;

/** A position as people type it from the list: a small whole number. */
const POSITION = /^[1-9][0-9]{0,3}$/;
/** A grant id as the store keys it (random ids, or `slackbot`). */
const GRANT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Takes one of the caller's agents away: its grant, and so every token issued under it. */
export async function revokeAgent(
  deps: AgentDeps,
  caller: Caller,
  request: RevokeAgentRequest,
): Promise<RevokeAgentOutcome> {
  const refusal = agentCallerRefusal(caller);
  if (refusal) return refusal;
  const which = request.which.trim();
  // Digits are a position; anything else is an id (a random grant id is 22 base64url characters,
  // digits alone by a chance below 1 in 10^17).
  const isPosition = /^\d+$/.test(which);
  if (isPosition ? !POSITION.test(which) : !GRANT_ID.test(which)) return { kind: 'invalid_reference' };
  const grants = await listAgents(deps, caller);
  const grant = isPosition ? grants[Number(which) - 1] : grants.find((candidate) => candidate.id === which);
  if (grant === undefined) return { kind: 'not_found', count: grants.length };
  if (!(await deps.store.agentGrants.revoke(caller.team, caller.user, grant.id))) {
    return { kind: 'already_revoked', grant };
  }
  await audit(deps, caller, {
    action: 'agents.revoke',
    target: `agent ${grant.clientName}`,
    detail: `${grant.clientName} (${grant.clientId}), home channel ${grant.homeChannel}: its grant and tokens revoked`,
  });
  return { kind: 'revoked', grant };
}

// ---------------------------------------------------------------------------------------------
// Slackbot's home

/** Whether a channel can be an agent's home, as the surface that shows its cards says. */
export type HomeChannelAccess =
  | CardAccess
  /** A conversation of the person alone with the bot: nobody else would see what the agent asks. */
  | { readonly kind: 'direct_message' };

/** The surface's side of a home channel. */
export interface AgentHomeChannels {
  /** Whether approval cards can be posted in `channel` (joining it when the surface may). */
  canBeHome(channel: string): Promise<HomeChannelAccess>;
}

export interface SlackbotHomeRequest {
  readonly access: AgentAccess;
}

export type SlackbotHomeOutcome =
  /** Slackbot acts for the caller from the caller's channel now; `previous` is the grant it replaced. */
  | { readonly kind: 'granted'; readonly grant: AgentGrant; readonly previous: AgentGrant | undefined }
  /** The caller has no linked profile: an agent would have no token to run with. */
  | { readonly kind: 'no_profile' }
  /** The channel's guardrails do not let the commands of `access` run there. */
  | {
      readonly kind: 'guardrails';
      readonly access: AgentAccess;
      readonly allowedClasses: readonly OperationClass[];
    }
  | { readonly kind: 'direct_message' }
  | { readonly kind: 'channel_refused'; readonly refusal: ChannelRefusal }
  | AgentCallerRefusal;

/** The classes an access needs the home's guardrails to allow: all of `every`, one of `some`. */
const CLASSES_NEEDED: {
  readonly [A in AgentAccess]: { every: readonly OperationClass[]; some: readonly OperationClass[] };
} = {
  read: { every: ['read'], some: ['read'] },
  change: { every: ['read'], some: OPERATION_CLASSES.filter((c) => c !== 'read') },
};

/**
 * Lets the caller's Slackbot act for them, with the caller's channel as its home and `access`.
 * Run again, it moves the home (and changes the access): there is one Slackbot grant per person.
 * The checks that need only the store come first; the surface is asked last.
 */
export async function setSlackbotHome(
  deps: AgentDeps & { readonly channels: AgentHomeChannels },
  caller: Caller,
  request: SlackbotHomeRequest,
): Promise<SlackbotHomeOutcome> {
  const refusal = agentCallerRefusal(caller);
  if (refusal) return refusal;
  const [links, policy, previous] = await Promise.all([
    deps.store.tokenLinks.listLinks(caller.team, caller.user),
    deps.store.channelPolicy.get(caller.team, caller.channel),
    deps.store.agentGrants.get(caller.team, caller.user, SLACKBOT_GRANT_ID),
  ]);
  if (links.links.length === 0) return { kind: 'no_profile' };
  if (policy !== undefined) {
    const needed = CLASSES_NEEDED[request.access];
    const allowed = policy.allowedClasses;
    if (!needed.every.every((c) => allowed.includes(c)) || !needed.some.some((c) => allowed.includes(c))) {
      return { kind: 'guardrails', access: request.access, allowedClasses: allowed };
    }
  }
  const access = await deps.channels.canBeHome(caller.channel);
  if (access.kind === 'direct_message') return access;
  if (access.kind === 'refused') return { kind: 'channel_refused', refusal: access.refusal };

  const grant = await deps.store.agentGrants.create({
    id: SLACKBOT_GRANT_ID,
    team: caller.team,
    user: caller.user,
    clientId: SLACKBOT_CLIENT.id,
    clientName: SLACKBOT_CLIENT.name,
    homeChannel: caller.channel,
    scopes: SCOPES_OF_ACCESS[request.access],
  });
  const moved =
    previous === undefined ? '' : `; before: home channel ${previous.homeChannel}, ${accessOf(previous)}`;
  await audit(deps, caller, {
    action: 'agents.slackbot',
    target: `channel ${caller.channel}`,
    detail: `Slackbot acts for them from this channel: ${request.access}${moved}`,
  });
  return { kind: 'granted', grant, previous };
}

// ---------------------------------------------------------------------------------------------
// leaving

/**
 * The caller unlinked a profile: when it was their last, their agents go too. An agent runs with
 * the person's own token, so one left without any would only fail; and logging out of everything
 * says "stop acting for me" more plainly than anything else a person types. While a profile is
 * left (even one the API rejected, which `/cloud login` mends), the agents stay: the person is
 * still here, and unlinking one token of several is not leaving. How many went (0 when any
 * profile is left or there were none).
 */
export async function revokeAgentsOfLeaver(deps: AgentDeps, caller: Caller): Promise<number> {
  const { links } = await deps.store.tokenLinks.listLinks(caller.team, caller.user);
  if (links.length > 0) return 0;
  const revoked = await deps.store.agentGrants.revokeAllFor(caller.team, caller.user);
  if (revoked > 0) {
    await audit(deps, caller, {
      action: 'agents.revoke_all',
      detail: `${revoked} agent(s) revoked with the last linked profile`,
    });
  }
  return revoked;
}

// ---------------------------------------------------------------------------------------------

async function audit(
  deps: AgentDeps,
  caller: Caller,
  entry: Pick<NewAuditEntry, 'action' | 'target' | 'detail'>,
): Promise<void> {
  // What was revoked stays revoked: a lost audit line is logged, never taken for a failed revoke.
  await deps.store.audit
    .append({ team: caller.team, actor: caller.user, result: 'succeeded', ...entry })
    .catch((error: unknown) => deps.logger.error('audit entry not written', { error }));
}
