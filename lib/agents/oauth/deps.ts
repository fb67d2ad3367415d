import type { Logger } from '@aws-lambda-powertools/logger';
import type { Store } from '../../store/index.js';
import type { ClientMetadataPolicy } from './client-metadata.js';
import type { SlackSignIn } from './slack-sign-in.js';
import type { AgentOAuthUrls } from './urls.js';
import type { BotWorkspaces } from './workspaces.js';

/** What the OAuth endpoints for agents need; `oauthRoutes` builds the URLs from `publicUrl`. */
export interface OAuthRouteDeps {
  readonly store: Pick<Store, 'agentGrants' | 'agentAuthorizations' | 'agentClients' | 'audit'>;
  /** `BOT_PUBLIC_URL`: the issuer, and the base of the MCP resource's URL. */
  readonly publicUrl: string;
  /**
   * Sign in with Slack as the Slack app; undefined when the app's client id and secret are not
   * configured, and then no agent can sign in (the page says so) while the rest keeps working.
   */
  readonly slackSignIn: SlackSignIn | undefined;
  readonly workspaces: BotWorkspaces;
  /** How agents' metadata documents may be fetched: `PRODUCTION_CLIENT_METADATA_POLICY` in AWS. */
  readonly clientMetadata: ClientMetadataPolicy;
  readonly logger: Logger;
}

export interface OAuthContext extends OAuthRouteDeps {
  readonly urls: AgentOAuthUrls;
}
