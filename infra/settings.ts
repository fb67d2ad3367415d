import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Logger } from '@aws-lambda-powertools/logger';
import { type Config, loadConfig } from '../lib/config.js';
import type { SettingsChange } from '../lib/core/settings/diff.js';
import { applySettingsFromCi, planSettings, type SettingsDeps } from '../lib/core/settings/settings.js';
import type { DocumentProblem } from '../lib/core/settings/yaml-text.js';
import { createStoreFromConfig } from '../lib/runtime.js';
import { slackSettingsSurface } from '../lib/slack/settings-surface.js';
import { createSlackAccess } from '../lib/slack-access.js';
import { inSlackTeam } from '../lib/slack-kit/web-client.js';

/**
 * A workspace's settings document from Git, as a CI job applies it with the deployment's
 * configuration in its environment (the variables the functions read: `TABLE_NAME`, `KMS_KEY_ID`,
 * the Slack credentials) and AWS credentials that may read and write the table:
 *
 *   npm run settings -- plan FILE --team T0123
 *   npm run settings -- apply FILE --team T0123 --base DIGEST [--actor NAME]
 *
 * `plan` prints what would change and the digest of the settings it planned against, and exits 1
 * when the file is invalid (each problem with its line). `apply` writes only while the settings
 * are still at that digest (exit 3 otherwise: plan again), and records the version as applied from
 * CI by `--actor` (the CI job's actor, e.g. `github:alice`). Names in the file are resolved with
 * the workspace's bot token, as in Slack. Nothing secret is printed: the settings hold no tokens.
 */

export const EXIT = { ok: 0, invalid: 1, usage: 2, stale: 3 } as const;

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

export async function runSettingsCommand(
  argv: readonly string[],
  config: Config,
  output: Output,
): Promise<number> {
  const parsed = readArguments(argv);
  if (!parsed.ok) {
    output.err(parsed.message);
    return EXIT.usage;
  }
  const { command, file, team, base, actor } = parsed;
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) {
    output.err(`Cannot read ${file}.`);
    return EXIT.usage;
  }
  const store = createStoreFromConfig(config, 'background');
  const slack = createSlackAccess(config.slackAuth, store, config.SLACK_API_URL);
  const surface = slackSettingsSurface(slack.client);
  const deps: SettingsDeps = {
    store,
    logger: new Logger({ serviceName: 'settings', logLevel: 'WARN' }),
    approvalAdmins: config.APPROVAL_ADMINS,
  };
  return inSlackTeam(team, async () => {
    if (command === 'plan') {
      const plan = await planSettings(deps, surface, team, text);
      if (plan.kind === 'invalid') return invalid(output, file, plan.problems);
      printChanges(output, plan.changes);
      output.out(`base: ${plan.baseDigest}`);
      return EXIT.ok;
    }
    if (base === undefined) {
      output.err('apply needs --base DIGEST: the digest `plan` printed.');
      return EXIT.usage;
    }
    const applied = await applySettingsFromCi(deps, surface, { team, text, expectedDigest: base, actor });
    switch (applied.kind) {
      case 'invalid':
        return invalid(output, file, applied.problems);
      case 'no_changes':
        output.out('No changes: the settings are this file already.');
        return EXIT.ok;
      case 'stale':
        output.err(
          `The settings changed since the plan (planned against ${applied.expected.slice(0, 12)}, now ${applied.found.slice(0, 12)}): nothing was written. Plan again.`,
        );
        return EXIT.stale;
      case 'applied':
        output.out(
          `Applied: the settings are now version ${applied.version.version} (${applied.changes} written).`,
        );
        return EXIT.ok;
    }
  });
}

type Arguments =
  | {
      readonly ok: true;
      readonly command: 'plan' | 'apply';
      readonly file: string;
      readonly team: string;
      readonly base: string | undefined;
      readonly actor: string;
    }
  | { readonly ok: false; readonly message: string };

const USAGE =
  'Usage: npm run settings -- plan FILE --team T0123 | apply FILE --team T0123 --base DIGEST [--actor NAME]';

function readArguments(argv: readonly string[]): Arguments {
  let values: { team?: string | undefined; base?: string | undefined; actor?: string | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { team: { type: 'string' }, base: { type: 'string' }, actor: { type: 'string' } },
    }));
  } catch (error) {
    return { ok: false, message: `${(error as Error).message}\n${USAGE}` };
  }
  const [command, file] = positionals;
  if ((command !== 'plan' && command !== 'apply') || !file || positionals.length !== 2) {
    return { ok: false, message: USAGE };
  }
  if (!values.team || !/^[TE][A-Z0-9]{2,20}$/.test(values.team)) {
    return { ok: false, message: `--team is the workspace's id (T0123…).\n${USAGE}` };
  }
  if (values.base !== undefined && !/^[a-f0-9]{64}$/.test(values.base)) {
    return { ok: false, message: '--base is the 64-character digest `plan` printed.' };
  }
  const actor = (values.actor ?? 'ci').slice(0, 100);
  return { ok: true, command, file, team: values.team, base: values.base, actor: `ci:${actor}` };
}

function invalid(output: Output, file: string, problems: readonly DocumentProblem[]): number {
  for (const problem of problems) {
    output.err(`${file}:${problem.line > 0 ? `${problem.line}:` : ''} ${problem.message}`);
  }
  output.err(`${problems.length} problem${problems.length === 1 ? '' : 's'}: nothing would change.`);
  return EXIT.invalid;
}

function printChanges(output: Output, changes: readonly SettingsChange[]): void {
  if (changes.length === 0) {
    output.out('No changes.');
    return;
  }
  for (const change of changes) {
    const where = `${change.scope} ${change.setting}`;
    if (change.kind === 'added') output.out(`+ ${where}: ${change.after}`);
    else if (change.kind === 'removed') output.out(`- ${where} (was ${change.before})`);
    else output.out(`~ ${where}: ${change.before} -> ${change.after}`);
  }
  output.out(`${changes.length} change${changes.length === 1 ? '' : 's'}.`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const code = await runSettingsCommand(process.argv.slice(2), loadConfig(), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  }).catch((error: unknown) => {
    process.stderr.write(`settings: ${(error as Error).name}: ${(error as Error).message}\n`);
    return 4;
  });
  process.exit(code);
}
