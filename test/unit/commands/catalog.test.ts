import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { operations } from '../../../lib/api/operations/index.js';
import { CATALOG_OPERATIONS } from '../../../lib/commands/catalog.generated.js';
import { catalog } from '../../../lib/commands/catalog.js';
import { CATALOG_PATH, catalogRowOf, renderCommandCatalog } from '../../../lib/commands/catalog-file.js';
import { helpFor } from '../../../lib/commands/help.js';
import { type HelpFit, topicHelp } from '../../../lib/commands/help-topics.js';
import { registry } from '../../../lib/commands/operation-registry.js';
import { type FrontParse, parseFront } from '../../../lib/commands/parse/front.js';
import type { HelpTopic } from '../../../lib/commands/parse/result.js';
import type { CommandOperation } from '../../../lib/commands/registry.js';

/**
 * The command catalog stands in for the operations table wherever the Slack function answers
 * without running an operation (help, bot commands, unknown names). It is generated from the
 * table; these tests fail when it is stale or when an answer from it differs from the table's.
 */

/** Operations by id, so answers from the catalog and from the table compare as data. */
function byId<Op extends CommandOperation>(parsed: FrontParse<Op>) {
  return parsed.kind === 'operation-args' ? { ...parsed, op: parsed.op.id } : parsed;
}

const typed = [
  '',
  '--help',
  'help',
  'HELP Volumes',
  'help vol',
  'help volumes lst',
  'help volumes ls',
  'help nosuch',
  'help login',
  'help approvals list',
  'volum list',
  'volumes',
  'volumes --help',
  'volumes help',
  'volumes atach 12 --node-id 3',
  'volumes list --help',
  'db mysql-list --page 2',
  'nodes 12',
  '12 volumes',
  'login --profile staging',
  'login extra words',
  'logn',
  'approvals',
  'approvals lst',
  'policy --allow read,change',
  'reports add alerts --every 15m',
  'use',
  'whoami --json',
  'volumes list "unterminated',
];

describe('the command catalog', () => {
  it('is what `npm run generate` writes from the operations table (run it after changing a row)', async () => {
    expect(await readFile(CATALOG_PATH, 'utf8')).toBe(renderCommandCatalog());
  });

  it('holds every row of the table with its command fields, in table order', () => {
    expect(CATALOG_OPERATIONS).toEqual(operations.map(catalogRowOf));
  });

  it('parses every group, alias, action and bot command as the table does, up to the arguments', () => {
    const names = registry.groups.flatMap((group) => [
      group.name,
      ...group.aliases,
      ...group.actions.flatMap((op) =>
        [op.action, ...(op.aliases ?? [])].map((action) => `${group.name} ${action} 1 --x`),
      ),
      `help ${group.name}`,
      ...group.actions.map((op) => `help ${group.name} ${op.action}`),
    ]);
    const bot = registry.botCommands.map((command) => command.name);
    for (const text of [...typed, ...names, ...bot]) {
      expect(byId(parseFront(text, catalog)), text).toEqual(byId(parseFront(text, registry)));
    }
  });

  it('answers help for the overview, groups, bot commands and unknown names as the table does, fitted or not', () => {
    const readsOfVolumes: HelpFit = {
      why: "your token's scopes and this channel's policy",
      allows: (op) => op.class === 'read' && op.scopes.every((scope) => scope.startsWith('volumes:')),
    };
    const topics: (HelpTopic | undefined)[] = [
      undefined,
      ...registry.groups.map((group) => ({ group: group.name })),
      ...registry.botCommands.map((command) => ({ group: command.name })),
      { group: 'nosuch' },
      { group: 'volumes', action: 'nosuch' },
      { group: 'x'.repeat(200) },
    ];
    for (const fit of [undefined, readsOfVolumes]) {
      for (const topic of topics) {
        const answer = topicHelp(topic, catalog, fit);
        expect('doc' in answer && answer.doc, JSON.stringify(topic)).toEqual(helpFor(topic, registry, fit));
      }
    }
  });

  it("leaves an operation's own help to the table, naming the operation whatever alias was typed", () => {
    const answer = topicHelp({ group: 'volumes', action: 'ls' }, catalog);
    expect('operation' in answer && answer.operation.id).toBe('volumes.list');
  });
});
