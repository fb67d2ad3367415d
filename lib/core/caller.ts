/**
 * Who asks the core for something: the person (their Slack team and user), where they ask from (a
 * channel, whose guardrails, aliases and runbooks apply) and through which surface. Every request
 * to the core carries one, and nothing the core decides depends on how a surface speaks.
 */
export interface Caller {
  readonly team: string;
  readonly user: string;
  /** The channel the request is made in. */
  readonly channel: string;
  readonly surface: Surface;
  /**
   * Whether the workspace makes this person an admin or owner, asked only when a rule needs it. A
   * lookup that fails throws: it says nothing about the person, so it is never taken for "no".
   */
  readonly isWorkspaceAdmin: () => Promise<boolean>;
  /** The agent acting for the person, when the request came through one (`surface: 'agent'`). */
  readonly agent?: AgentIdentity | undefined;
}

/**
 * The way the request came in: a person in Slack (commands, buttons, forms, Home), or an agent
 * acting for a person (MCP), whose home channel is the caller's channel.
 */
export type Surface = 'slack' | 'agent';

/** Which agent asks for the person: its grant and the name its client gives itself. */
export interface AgentIdentity {
  readonly grantId: string;
  readonly clientId: string;
  readonly name: string;
}
