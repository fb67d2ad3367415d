import { type AgentAccess, accessOf } from '../../core/agents.js';
import { bold, slackDate } from '../../slack-kit/text.js';
import type { AgentGrant } from '../../store/index.js';
import { truncate } from '../../truncate.js';

/**
 * A person's agents in words, the same in `/cloud agents` and on the Home tab: the agent's name as
 * its client gives it (outside text: shown as text, never markup), where it acts from, what it
 * may do, since when and when it was last used.
 */

/** A client names itself; its name is shown cut to this. */
const AGENT_NAME_SHOWN = 80;

/** The agent's name, as text (`bold` escapes it), cut where a client made it long. */
export function agentName(grant: Pick<AgentGrant, 'clientName'>): string {
  return bold(plainAgentName(grant));
}

/** The agent's name as plain text (a confirm dialog's), cut where a client made it long. */
export function plainAgentName(grant: Pick<AgentGrant, 'clientName'>): string {
  const name = truncate(grant.clientName.trim(), AGENT_NAME_SHOWN);
  return name === '' ? 'An agent without a name' : name;
}

/** What the agent may do. */
export function accessWords(access: AgentAccess): string {
  return access === 'change' ? 'read and ask for changes' : 'read';
}

/** One agent on one line: its name, home, what it may do, since when, last used. */
export function agentLine(grant: AgentGrant): string {
  const used = grant.lastUsedAt ? `last used ${slackDate(grant.lastUsedAt)}` : 'not used yet';
  return (
    `${agentName(grant)} · home <#${grant.homeChannel}> · may ${accessWords(accessOf(grant))} · ` +
    `since ${slackDate(grant.createdAt)} · ${used}`
  );
}
