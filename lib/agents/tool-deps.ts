import type { WebClient } from '@slack/web-api';
import type { AgentOperationKind } from '../core/agent-operations.js';
import type { OperationDeps } from '../core/operations.js';
import type { Handoff } from '../worker/handoff.js';

/**
 * What the agents' tools are given, in a module of its own: the tools (`tools.ts`) and their
 * answers (`tool-answers.ts`, loaded on the first call) both take it, and neither imports the other.
 */
export interface AgentToolDeps extends OperationDeps {
  /**
   * The bot's Slack client (per team through `inSlackTeam`), to post and update cards; made on
   * first use, so a list or a read loads none of the Slack packages.
   */
  readonly slack: () => Promise<WebClient>;
  /** Where Homes are republished from (the worker); without it the surface publishes them itself. */
  readonly handoff?: Handoff;
}

/** The tool that reaches an operation of each kind (the tools and `docs/agents.md` both say it). */
export const TOOL_OF_KIND = {
  read: 'read',
  change: 'request_change',
  destructive: 'request_destructive_change',
} as const satisfies Record<AgentOperationKind, string>;
