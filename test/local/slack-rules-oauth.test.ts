import { afterEach, describe, expect, it } from 'vitest';
import { SECOND_TEAM } from '../../infra/local/slack/oauth.js';
import { type SlackStandIn, startSlackStandIn } from '../../infra/local/slack/server.js';
import { DOCUMENT_PAGE_STYLE } from '../../lib/slack-kit/page-style.js';

/**
 * The stand-in's side of "Add to Slack" (rules of `infra/local/slack/rules.ts`), tested on the
 * stand-in by itself over HTTP, as a browser opens the authorize page.
 */

const app = { clientId: 'local.client', clientSecret: 'secret', redirectUri: 'http://127.0.0.1:9/redirect' };

let standIn: SlackStandIn | undefined;

afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function authorizePage(query: Record<string, string>): Promise<{ status: number; html: string }> {
  standIn ??= await startSlackStandIn({ oauthApp: app });
  const url = new URL('/oauth/v2/authorize', standIn.url);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    scope: 'commands,chat:write',
    ...query,
  }).toString();
  const response = await fetch(url);
  return { status: response.status, html: await response.text() };
}

/** The workspace whose radio button the page opens with checked. */
function checkedTeam(html: string): string | undefined {
  return /<input type="radio" name="team" value="([^"]+)" checked>/.exec(html)?.[1];
}

describe('authorize-team', () => {
  it('opens on the workspace the team parameter names', async () => {
    const page = await authorizePage({ team: SECOND_TEAM.id });
    expect(page.status).toBe(200);
    expect(checkedTeam(page.html)).toBe(SECOND_TEAM.id);
    expect(page.html.match(/ checked>/g)).toHaveLength(1);
    // The person may still pick the other workspace.
    expect(page.html).toContain('value="T0LOCAL"');
  });

  it('opens on the first workspace without a team, or with one the person is not in', async () => {
    expect(checkedTeam((await authorizePage({})).html)).toBe('T0LOCAL');
    expect(checkedTeam((await authorizePage({ team: 'T0ELSEWHERE' })).html)).toBe('T0LOCAL');
  });

  it('escapes what the request names instead of echoing it as markup', async () => {
    const page = await authorizePage({ team: '"><script>x</script>', scope: '<b>chat:write</b>' });
    expect(page.html).not.toContain('<script>x');
    expect(page.html).not.toContain('<b>');
  });

  it('is styled like the sandbox page: the shared stylesheet, Allow as the primary button', async () => {
    const { html } = await authorizePage({});
    expect(html).toContain(`<style>${DOCUMENT_PAGE_STYLE}</style>`);
    expect(html).toMatch(/<button class="button primary" type="submit" name="decision" value="allow">Allow</);
  });
});
