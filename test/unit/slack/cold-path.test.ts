import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS } from '../../../infra/build.js';

/**
 * What the Slack function loads before its first answer, read from the deployed build (esbuild's
 * metafile: the entry and the chunks it imports statically; lazily imported chunks load on first
 * use). On Lambda all of it is paid on the first command after every idle period, inside Slack's
 * 3 s: zod costs about 25 ms of that and building the operations table about 20 ms
 * (bench/RESULTS.md), and `/cloud help` needs neither — the command catalog answers it.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** What reads an operation's schemas; loaded once a command names an operation, never at start. */
const SCHEMA_SIDE = [
  'lib/commands/field-shapes.ts',
  'lib/commands/operation-registry.ts',
  'lib/commands/parse.ts',
  'lib/commands/parse/flags.ts',
  'lib/commands/parse/input.ts',
  'lib/commands/parse/list-options.ts',
  'lib/commands/help.ts',
  'lib/commands/usage.ts',
];

/** Modules of the command side: parsing, help, and the listener that answers `/cloud …`. */
const COMMAND_SIDE =
  /^lib\/commands\/|^lib\/slack\/listeners\/(commands|deliveries)\.ts$|^lib\/slack\/render\/help\.ts$|^lib\/changes\/guardrails\.ts$/;

const ZOD = /^node_modules\/zod\//;
const TABLE = /^lib\/api\/operations\//;

/**
 * The AWS SDK's clients: the table client (`lib/store/http-table.ts`) stands in for them on the
 * Slack path, using only the SDK's marshalling (`@aws-sdk/util-dynamodb`, plain functions).
 */
const AWS_SDK = /^node_modules\/(@aws-sdk\/(?!util-dynamodb\/)|@smithy\/)/;

interface SlackBuild {
  /** Every input of the bundle, lazy chunks included. */
  readonly bundled: ReadonlySet<string>;
  /** Inputs with code in the entry or the chunks it imports statically. */
  readonly atStart: ReadonlySet<string>;
  /** Project modules loaded at start that import zod or a module of the operations table themselves. */
  readonly bringingIn: readonly string[];
}

async function buildSlackFunction(): Promise<SlackBuild> {
  const { metafile } = await build({
    ...BUNDLE_OPTIONS,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    entryPoints: { index: 'functions/slack/handler.ts' },
    outdir: 'cold-path',
    external: ['@resvg/resvg-wasm'],
    absWorkingDir: ROOT,
    write: false,
    metafile: true,
    // Inputs named as `node_modules/…` even where node_modules is a link (a second checkout that
    // shares the first one's): the paths below are matched by that name.
    preserveSymlinks: true,
    sourcemap: false,
    logLevel: 'silent',
  });
  const entry = Object.keys(metafile.outputs).find((path) => path.endsWith('/index.mjs'));
  if (entry === undefined) throw new Error('esbuild wrote no index.mjs for functions/slack');
  const loaded = new Set<string>();
  const visit = (output: string) => {
    if (loaded.has(output)) return;
    loaded.add(output);
    for (const imported of metafile.outputs[output]?.imports ?? []) {
      if (imported.kind === 'import-statement' && imported.path in metafile.outputs) visit(imported.path);
    }
  };
  visit(entry);
  const atStart = new Set(
    [...loaded].flatMap((output) =>
      Object.entries(metafile.outputs[output]?.inputs ?? {}).flatMap(([input, { bytesInOutput }]) =>
        bytesInOutput > 0 ? [input] : [],
      ),
    ),
  );
  const heavy = (path: string) => ZOD.test(path) || TABLE.test(path);
  const bringingIn = [...atStart]
    .filter((input) => !input.startsWith('node_modules/') && !heavy(input))
    .filter((input) =>
      (metafile.inputs[input]?.imports ?? []).some(
        (imported) => imported.kind === 'import-statement' && heavy(imported.path),
      ),
    )
    .sort();
  return { bundled: new Set(Object.keys(metafile.inputs)), atStart, bringingIn };
}

let slack: SlackBuild;

beforeAll(async () => {
  slack = await buildSlackFunction();
}, 60_000);

describe('the Slack function at a cold start', () => {
  it('answers commands from the catalog: no module that reads an operation schema loads at start', () => {
    expect(slack.atStart.has('lib/commands/catalog.ts')).toBe(true);
    expect(SCHEMA_SIDE.filter((module) => slack.atStart.has(module))).toEqual([]);
    // They are still in the bundle, loaded when a command names an operation.
    expect(SCHEMA_SIDE.filter((module) => !slack.bundled.has(module))).toEqual([]);
  });

  it('brings in neither zod nor the operations table through the command side', () => {
    expect(slack.bringingIn.filter((module) => COMMAND_SIDE.test(module))).toEqual([]);
  });

  it('loads neither zod, nor the operations table, nor the AWS SDK before its first answer', () => {
    expect(slack.bringingIn).toEqual([]);
    expect([...slack.atStart].filter((input) => ZOD.test(input) || TABLE.test(input))).toEqual([]);
    expect([...slack.atStart].filter((input) => AWS_SDK.test(input))).toEqual([]);
    // Each is still in the bundle, loaded on first use.
    expect([...slack.bundled].some((input) => ZOD.test(input))).toBe(true);
    expect([...slack.bundled].some((input) => TABLE.test(input))).toBe(true);
  });
});
