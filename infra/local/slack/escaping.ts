import type { SlackStore } from './store.js';

/**
 * A slash command's text as Slack sends it when the command has `should_escape: true` (our
 * manifest; rule `escaping`): `&`, `<` and `>` become entities, then a mention of a known person
 * becomes `<@U…|name>`, of a known channel `<#C…|name>`, of a user group `<!subteam^S…|@handle>`,
 * `@here`/`@channel`/`@everyone` become `<!here>`…, and a link becomes `<url>`. Names Slack does
 * not know stay as typed. The sandbox page sends what a person types through this, so help's own
 * examples (`--approvers @alice`) work there as in Slack.
 */

const SPECIAL_MENTIONS = new Set(['here', 'channel', 'everyone']);

/** A mention or link starts the text or follows a space, a comma or an opening bracket. */
const TOKEN = /(^|[\s,(])(?:@([A-Za-z0-9._-]+)|#([a-z0-9_-]+)|(https?:\/\/[^\s<>|,]+))/g;

export function escapeCommandText(typed: string, store: SlackStore): string {
  const entities = typed.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return entities.replace(TOKEN, (whole, before: string, at?: string, hash?: string, url?: string) => {
    if (url !== undefined) return `${before}<${url}>`;
    if (hash !== undefined) {
      const channel = store.channels().find((c) => c.name === hash && !c.is_im);
      return channel ? `${before}<#${channel.id}|${channel.name}>` : whole;
    }
    const name = at ?? '';
    if (SPECIAL_MENTIONS.has(name)) return `${before}<!${name}>`;
    const user = store.seed.users.find((u) => u.name === name);
    if (user) return `${before}<@${user.id}|${user.name}>`;
    const group = Object.entries(store.seed.usergroupHandles ?? {}).find(([, handle]) => handle === name);
    return group ? `${before}<!subteam^${group[0]}|@${name}>` : whole;
  });
}
