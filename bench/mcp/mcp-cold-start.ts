import { createHash, randomBytes } from 'node:crypto';
import { type RunningEmulator, startEmulator } from '../../infra/local/emulator/server.js';
import { keys } from '../../lib/store/keys.js';
import { type BenchTable, createBenchTable, linkBenchUser } from '../bench-table.js';
import type { BenchmarkResult, Row } from '../benchmark.js';
import { compositionDifference } from '../cold-start/bundle-composition.js';
import type { FileSet } from '../cold-start/bundles.js';
import {
  COLD_METRICS,
  type ColdContender,
  type ColdSummaries,
  runContender,
  runInRounds,
  summarizeCold,
} from '../cold-start/cold-process.js';
import { BENCH_CHANNEL, BENCH_TEAM } from '../slash-command-event.js';
import { ratio, type Summary } from '../stats.js';
import { formatBytes, formatRatio } from '../table.js';
import type { Target } from '../targets.js';
import { type McpArtifacts, prepareMcpColdStart } from './bundles.js';
import { jsonRpcResult, type McpRequest, mcpEvent } from './mcp-event.js';
import { perOperationToolsList } from './per-operation-tools.js';

/**
 * Cold start of the agents' MCP endpoint to its first answer: a new `node` process loads the
 * agents' function (`functions/mcp`) and answers one MCP request, `tools/list` or a `read` of
 * `volumes.list`, against the minimal MCP server on the same SDK (`bench/baseline/minimal-mcp.ts`)
 * answering the same kind of request. Both run side by side on the same DynamoDB Local and API
 * emulator, in rounds ordered so that each runs after each other one equally often; one round first warms the file
 * cache and is not counted. Also measured: how many bytes `tools/list` is for a person who may do
 * everything, and what one tool per operation would have been.
 */

const BENCHMARK = 'MCP cold start';
/** The target: each MCP request at most this many times the minimal MCP server's spawn → answer. */
const MCP_COLD_START_LIMIT = 1.3;
/**
 * What would close each gap, from what CPU profiles and builds compared side by side showed
 * (`BENCH_CPU_PROFILE_DIR`); said where a target is missed.
 */
const WHAT_WOULD_CLOSE: Record<McpPath, string> = {
  list: "What would close it: what the agents' function loads at start beyond the floor, about 110 KiB. The operations table is no longer part of it (`tools/list` fits the five tools from the generated catalog, `lib/commands/catalog.generated.ts`), nor the OAuth pages (loaded on the first sign-in request), nor the Slack packages (the first change), nor ajv (the SDK's shims, `functions/mcp/sdk-shims.ts`). The largest parts left are the generated catalog (about 40 KiB: the fit needs each operation's scopes, class and method, and the catalog also carries the summaries and aliases help shows), zod's compiler (about 29 KiB: `z.compile`, which the API client uses from an operation's second answer on; it is a module of the zod package the SDK already loads at start, so the build cannot leave it to the read), and Powertools metrics (about 12 KiB, and a `Metrics` made at start). Then five tools' input schemas instead of one, and the fit over the catalog. The fit's reads cost no round trip of their own: the caller's items come in the batch that reads the token and its grant.",
  read: "What would close it: a read's first answer loads and does what the floor's does not. It loads the read path: one file of the project's code (`lib/agents/read-path.ts` and what only it reaches, about 41 KB: the answers, the API client, the core's agent calls, the repositories of the person's token, the channel's policy and the audit; it was about fifteen files loaded one after another) and the called operation's group of the operations table (`volumes.list` builds the volumes rows, not the 149), both started when the request arrives. Then it decrypts the person's token (its items came with the bearer token's), checks the channel's guardrail, makes the API call and checks its answer against the operation's response schema, and writes the audit entry, sent before the SDK builds its answer. Phase marks (`performance.now()` and `process.cpuUsage()` in fresh processes, medians of 11) put the read about 23 ms of CPU beyond the list: about 11 ms loading the read path and the called operation's rows (compiling 41 KB, building the schemas its modules declare, the module loader's steps, collecting garbage), 4 ms the checks, 4 ms the API call with its answer checked, 4 ms the SDK's own answer to a call; the audit entry's write then holds the answer about 2 ms. None of it is a rule the read could skip; what remains beyond it is the start the list shares (its import and fit, above).",
};
const PUBLIC_URL = 'https://bench.example.com';
const USER = 'U0AGENT';
const FIVE_TOOLS = ['find_operations', 'get_request', 'read', 'request_change', 'request_destructive_change'];

type McpPath = 'list' | 'read';
type Side = 'ours' | 'floor' | 'trimmed' | 'baseline';
type ContenderName = `${Side}${Capitalize<McpPath>}`;
const PATHS = ['list', 'read'] as const satisfies readonly McpPath[];
const SIDES = ['ours', 'floor', 'trimmed', 'baseline'] as const satisfies readonly Side[];
const contenderOf = (side: Side, path: McpPath): ContenderName =>
  `${side}${path === 'list' ? 'List' : 'Read'}`;
const PATH_NAMES: Record<McpPath, string> = { list: 'tools/list', read: 'tools/call read volumes.list' };
const SIDE_NAMES: Record<Side, string> = {
  ours: 'ours',
  floor: 'floor: minimal MCP server + config + bearer check in DynamoDB, no ajv',
  trimmed: "minimal MCP server without ajv (the agents' SDK shims)",
  baseline: 'baseline (minimal MCP server)',
};

type Contender = ColdContender<ContenderName>;

export interface McpColdStartOptions {
  /** Counted runs of each contender. */
  readonly runs: number;
  /** Scratch directory for the bundles. */
  readonly workDir: string;
  readonly dynamoEndpoint: string;
}

export async function runMcpColdStart(options: McpColdStartOptions): Promise<BenchmarkResult> {
  const artifacts = await prepareMcpColdStart(options.workDir);
  const table = await createBenchTable(options.dynamoEndpoint);
  // The API is remote to the function: the emulator runs here, not in the measured process.
  const emulator = await startEmulator({ rateLimit: false });
  try {
    return await measure(options, artifacts, table, emulator);
  } finally {
    await emulator.close();
    table.close();
  }
}

/** The agents' function's configuration, as `functions/mcp` reads it in AWS, pointed at the local services. */
function agentsEnv(table: BenchTable, dynamoEndpoint: string, cloudApiUrl: string): NodeJS.ProcessEnv {
  // Nothing a read or a list does reaches Slack or the worker: both point at a closed port, so a
  // path that tried would fail its run instead of timing a call to somewhere real.
  const nowhere = 'http://127.0.0.1:9';
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
    SLACK_BOT_TOKEN: 'xoxb-bench',
    // The app's pair for Sign in with Slack, which the function requires (agents sign people in);
    // neither a list nor a read signs anyone in.
    SLACK_CLIENT_ID: 'bench.client',
    SLACK_CLIENT_SECRET: randomBytes(16).toString('hex'),
    SLACK_API_URL: `${nowhere}/api/`,
    BOT_PUBLIC_URL: PUBLIC_URL,
    TABLE_NAME: table.tableName,
    TOKEN_ENCRYPTION_KEY: table.encryptionKey,
    DYNAMODB_ENDPOINT: dynamoEndpoint,
    CLOUD_API_URL: cloudApiUrl,
    WORKER_FUNCTION_NAME: 'chatops-bench-worker',
    AWS_ENDPOINT_URL_LAMBDA: nowhere,
  };
}

function resultOf(answer: unknown): Record<string, unknown> {
  const read = jsonRpcResult(answer);
  if ('problem' in read) throw new Error(read.problem);
  return read.result;
}

function toolNames(answer: unknown): string[] {
  const tools = resultOf(answer).tools;
  if (!Array.isArray(tools)) throw new Error('the result lists no tools');
  return tools.map((tool) => String((tool as { name?: unknown }).name)).sort();
}

function expectText(answer: unknown, expected: string): void {
  const result = resultOf(answer);
  if (result.isError) throw new Error(`the tool answered an error: ${JSON.stringify(result).slice(0, 500)}`);
  if (!JSON.stringify(result.content).includes(expected)) {
    throw new Error(`the tool's answer does not name ${expected}: ${JSON.stringify(result).slice(0, 500)}`);
  }
}

function bodyBytes(answer: unknown): number {
  const { body } = answer as { body?: unknown };
  if (typeof body !== 'string') throw new Error('the answer has no body');
  return Buffer.byteLength(body);
}

async function measure(
  options: McpColdStartOptions,
  artifacts: McpArtifacts,
  table: BenchTable,
  emulator: RunningEmulator,
): Promise<BenchmarkResult> {
  // A floor that loaded the Slack clients would hide what they cost the agents' function.
  const slackInFloor = [...artifacts.floor.loadedAtStart.composition.keys()].filter((name) =>
    name.startsWith('@slack/'),
  );
  if (slackInFloor.length > 0) {
    throw new Error(`The MCP floor loads ${slackInFloor.join(', ')} before its first answer`);
  }
  const seededVolume = [...emulator.control.world.volumes.values()][0];
  const firstVolume = seededVolume?.label;
  if (!firstVolume) throw new Error('The emulator has no seeded volume to list');

  // A person who may do everything: their token has every scope, the home channel no policy, the
  // grant both scopes. The agent signed in as the OAuth pages leave it: a grant and its token.
  await linkBenchUser(table.store, BENCH_TEAM, USER, emulator.demoToken);
  const grant = await table.store.agentGrants.create({
    team: BENCH_TEAM,
    user: USER,
    clientId: 'https://agent.example.com/client.json',
    clientName: 'Bench Agent',
    homeChannel: BENCH_CHANNEL,
    scopes: ['cloud:read', 'cloud:change'],
  });
  const { accessToken } = await table.store.agentGrants.issueTokens(grant, `${PUBLIC_URL}/mcp`);
  // A cold start comes after the function sat idle, longer than the five minutes within which the
  // grant's last use is not written again: each run finds it stale and writes it, as such a start would.
  const forgetLastUse = async () => {
    await table.table.update({
      TableName: table.tableName,
      Key: { pk: keys.user(BENCH_TEAM, USER), sk: keys.agentGrant(grant.id) },
      UpdateExpression: 'REMOVE last_used_at',
    });
  };

  const baselineToken = randomBytes(32).toString('base64url');
  const baselineEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    BOT_PUBLIC_URL: PUBLIC_URL,
    CLOUD_API_URL: emulator.url,
    BASELINE_API_TOKEN: emulator.demoToken,
    BASELINE_MCP_TOKEN_SHA256: createHash('sha256').update(baselineToken).digest('hex'),
  };
  const oursEnv = agentsEnv(table, options.dynamoEndpoint, emulator.url);
  // The floor reads with the same token from the environment as the baseline.
  const floorEnv: NodeJS.ProcessEnv = { ...oursEnv, BASELINE_API_TOKEN: emulator.demoToken };
  // The floor checks the token as the agents' function does, last use included: a floor that
  // skipped the write would time a cheaper check than the agents' function makes.
  const expectLastUseWritten = async () => {
    const { Item } = await table.table.get({
      TableName: table.tableName,
      Key: { pk: keys.user(BENCH_TEAM, USER), sk: keys.agentGrant(grant.id) },
    });
    if (typeof Item?.last_used_at !== 'string') throw new Error("the grant's last use was not written");
  };

  let volumeListCalls = emulator.control.requestCounts()['volumes.list'] ?? 0;
  const expectOneApiRead = () => {
    const before = volumeListCalls;
    volumeListCalls = emulator.control.requestCounts()['volumes.list'] ?? 0;
    if (volumeListCalls !== before + 1) throw new Error('the emulator saw no volumes.list call');
  };
  const toolsListBytes: number[] = [];
  const request = (mcp: McpRequest, token: string) => () => mcpEvent(mcp, token);
  // The minimal server, as built with the SDK's defaults or without ajv: the same requests and checks.
  const minimalServer = (side: 'trimmed' | 'baseline', path: McpPath): Contender => ({
    name: contenderOf(side, path),
    variant: `${SIDE_NAMES[side]}: ${path === 'list' ? 'tools/list' : 'call list_volumes'}`,
    build: artifacts[side],
    env: baselineEnv,
    event:
      path === 'list'
        ? request({ method: 'tools/list' }, baselineToken)
        : request({ method: 'tools/call', name: 'list_volumes', arguments: {} }, baselineToken),
    check: async (answer) => {
      if (path === 'list') {
        const names = toolNames(answer);
        if (names.join() !== 'list_volumes') throw new Error(`listed ${names.join(', ')}`);
      } else {
        expectText(answer, firstVolume);
        expectOneApiRead();
      }
    },
  });

  const contenders: Record<ContenderName, Contender> = {
    oursList: {
      name: 'oursList',
      variant: 'ours: tools/list',
      build: artifacts.ours,
      env: oursEnv,
      prepare: forgetLastUse,
      event: request({ method: 'tools/list' }, accessToken),
      check: async (answer) => {
        const names = toolNames(answer);
        if (names.join() !== FIVE_TOOLS.join()) throw new Error(`listed ${names.join(', ')}`);
        toolsListBytes.push(bodyBytes(answer));
      },
    },
    oursRead: {
      name: 'oursRead',
      variant: 'ours: read volumes.list',
      build: artifacts.ours,
      env: oursEnv,
      prepare: forgetLastUse,
      event: request(
        { method: 'tools/call', name: 'read', arguments: { operation: 'volumes.list', arguments: {} } },
        accessToken,
      ),
      check: async (answer) => {
        expectText(answer, firstVolume);
        expectOneApiRead();
      },
    },
    floorList: {
      name: 'floorList',
      variant: `${SIDE_NAMES.floor}: tools/list`,
      build: artifacts.floor,
      env: floorEnv,
      prepare: forgetLastUse,
      event: request({ method: 'tools/list' }, accessToken),
      check: async (answer) => {
        const names = toolNames(answer);
        if (names.join() !== 'list_volumes') throw new Error(`listed ${names.join(', ')}`);
        await expectLastUseWritten();
      },
    },
    floorRead: {
      name: 'floorRead',
      variant: `${SIDE_NAMES.floor}: call list_volumes`,
      build: artifacts.floor,
      env: floorEnv,
      prepare: forgetLastUse,
      event: request({ method: 'tools/call', name: 'list_volumes', arguments: {} }, accessToken),
      check: async (answer) => {
        expectText(answer, firstVolume);
        expectOneApiRead();
        await expectLastUseWritten();
      },
    },
    trimmedList: minimalServer('trimmed', 'list'),
    trimmedRead: minimalServer('trimmed', 'read'),
    baselineList: minimalServer('baseline', 'list'),
    baselineRead: minimalServer('baseline', 'read'),
  };

  const names = Object.keys(contenders) as ContenderName[];
  const samples = await runInRounds(names, options.runs, (name) =>
    runContender(artifacts.driver, contenders[name]),
  );
  const all = Object.fromEntries(names.map((name) => [name, summarizeCold(samples[name])])) as Record<
    ContenderName,
    ColdSummaries
  >;
  const perOperation = await perOperationToolsList(PUBLIC_URL);
  const listBytes = toolsListBytes.at(-1) ?? 0;
  if (toolsListBytes.some((bytes) => bytes !== listBytes)) {
    throw new Error(`tools/list was not the same size in every run: ${toolsListBytes.join(', ')}`);
  }

  const single = (value: number): Summary => ({ runs: 1, median: value, min: value, max: value });
  const timeRows = (side: Side, path: McpPath): Row[] => {
    const name = contenderOf(side, path);
    const reference = all[contenderOf('baseline', path)];
    return COLD_METRICS.map(([metric, key]) => ({
      benchmark: BENCHMARK,
      variant: contenders[name].variant,
      metric,
      unit: 'ms',
      summary: all[name][key],
      ...(side !== 'baseline' && { vsBaseline: ratio(all[name][key].median, reference[key].median) }),
    }));
  };
  const sizeRows = (side: Side): Row[] =>
    (
      [
        ['loaded at start (entry + static chunks)', 'loadedAtStart'],
        ['deployed (every .mjs)', 'deployed'],
      ] as const
    ).map(([label, key]) => {
      const set = artifacts[side][key];
      return {
        benchmark: 'MCP bundle size',
        variant: side === 'ours' ? 'ours (functions/mcp)' : SIDE_NAMES[side],
        metric: `${label}, ${set.files.length} ${set.files.length === 1 ? 'file' : 'files'}`,
        unit: 'bytes',
        summary: single(set.bytes),
        ...(side !== 'baseline' && { vsBaseline: ratio(set.bytes, artifacts.baseline[key].bytes) }),
      };
    });
  const packagesBeyond = (ours: FileSet, reference: FileSet, count: number) =>
    compositionDifference(ours.composition, reference.composition)
      .filter((d) => d.difference > 0)
      .slice(0, count)
      .map((d) => `${d.name} ${formatBytes(d.difference)}`)
      .join(', ');
  const ms = (value: number) => `${value.toFixed(0)} ms`;

  const targets: Target[] = PATHS.map((path) => {
    const ours = all[contenderOf('ours', path)];
    const floor = all[contenderOf('floor', path)];
    const trimmed = all[contenderOf('trimmed', path)];
    const baseline = all[contenderOf('baseline', path)];
    const extra = ours.spawnToAnswer.median - baseline.spawnToAnswer.median;
    const ajvCost = baseline.spawnToAnswer.median - trimmed.spawnToAnswer.median;
    const floorExtra = floor.spawnToAnswer.median - trimmed.spawnToAnswer.median;
    return {
      name: `MCP cold start, ${PATH_NAMES[path]}`,
      requirement: `≤ ${MCP_COLD_START_LIMIT}× the minimal MCP server on the same SDK (spawn → answer, medians)`,
      measured: ratio(ours.spawnToAnswer.median, baseline.spawnToAnswer.median),
      limit: MCP_COLD_START_LIMIT,
      direction: 'at-most',
      format: formatRatio,
      whyMissed:
        `The agents' function took ${ms(extra)} longer than the minimal server (median; ${formatRatio(MCP_COLD_START_LIMIT)} allows ${ms(baseline.spawnToAnswer.median * (MCP_COLD_START_LIMIT - 1))}): ` +
        `import ${ms(ours.import.median)} against ${ms(baseline.import.median)} (CPU ${ms(ours.importCpu.median)} against ${ms(baseline.importCpu.median)}), ` +
        `first answer ${ms(ours.answer.median)} against ${ms(baseline.answer.median)} (CPU ${ms(ours.answerCpu.median)} against ${ms(baseline.answerCpu.median)}). ` +
        `The agents' function is built without the SDK's ajv validator (\`functions/mcp/sdk-shims.ts\`); the minimal server built the same way takes ${formatRatio(ratio(trimmed.spawnToAnswer.median, baseline.spawnToAnswer.median))} (import CPU ${ms(trimmed.importCpu.median)}). ` +
        `The floor, that server with only the bot's configuration and its bearer check (the token's item, its grant and the caller's items in one batch read from DynamoDB; the last use written beside the call), takes ${formatRatio(ratio(floor.spawnToAnswer.median, baseline.spawnToAnswer.median))} (import CPU ${ms(floor.importCpu.median)}, first answer CPU ${ms(floor.answerCpu.median)}): ` +
        `of the ${ms(extra)}, leaving ajv out saves ${ms(ajvCost)}, the configuration and that check cost ${ms(floorExtra)} and the rest of the agents' function ${ms(extra + ajvCost - floorExtra)}. ` +
        `Before its first answer the agents' function loads ${formatBytes(artifacts.ours.loadedAtStart.bytes)} of JavaScript, the floor ${formatBytes(artifacts.floor.loadedAtStart.bytes)}, the minimal server ${formatBytes(artifacts.baseline.loadedAtStart.bytes)}; beyond the floor (generated characters): ${packagesBeyond(artifacts.ours.loadedAtStart, artifacts.floor.loadedAtStart, 8)}. ` +
        WHAT_WOULD_CLOSE[path],
    };
  });

  return {
    title: 'MCP cold start to first answer',
    setup: [
      "Built by `buildFunctions` (`infra/build.ts`), as deployed: the agents' function `functions/mcp` (minified, split at dynamic imports, its start in one chunk, no rasteriser), and the baseline and the floor each built as the `mcp` function of a scratch tree, so with the very same options. The baseline, `bench/baseline/minimal-mcp.ts`, is the smallest MCP server on Lambda on the same SDK (`@modelcontextprotocol/server` `createMcpHandler`, stateless, JSON answers, a new `McpServer` per request, the SDK's `requireBearerAuth`; `mcp-app.ts`) with one tool, `list_volumes`, that reads `GET /volumes` from the API over `node:http`, as the agents' function does (a first `fetch` costs a fresh process about 16 ms more CPU, which would flatter the comparison). The floor, `floor-mcp.ts`, is the same server checking its bearer token as the agents' function does. The agents' function is built with its own MCP SDK shims (`functions/mcp/sdk-shims.ts`: the SDK's CfWorker JSON Schema validator as the default, in place of ajv, whose modules all run at import; its servers validate no JSON Schema and are given the CfWorker one). The baseline keeps the SDK's defaults, as the minimal server a team would write does; the floor, the least the agents' function could be, is built with the agents' shims, and so is the minimal server a second time (\"without ajv\"), which says what leaving ajv out is worth on its own.",
      'Each run is a new `node` process (' +
        process.version +
        ") that imports the bundle and invokes its handler with one API Gateway v2 event: an MCP `POST /mcp` (protocol 2026-07-28, its headers and `_meta`) with a bearer token, either `tools/list` or a `tools/call`: `read` of `volumes.list` for the agents' function, `list_volumes` for the baseline and the floor. Each reads the emulator's first page of volumes, in the benchmark's process.",
      "What each side counts. The agents' function: its configuration, the store and the OAuth pages wired at start (its Slack client is made on the first change asked for, which neither request is); the bearer token's item (by its SHA-256), its grant, the person's token items and the home channel's policy in one batch read from DynamoDB Local, since the token names where they are (sent before the fetch Request is built, which then overlaps the table's answer), and the grant's last use written beside the call (each run of the agents' function and of the floor clears it first, as a start after five idle minutes finds it); the tools fitted to those items; five tools registered; for the read, the person's API token looked up and decrypted (local key), the channel's guardrail, one API call, its answer checked against the operation's response schema, and an audit entry written. The baseline: the SDK's bearer check against one SHA-256 hash held in memory (a token no store holds and nobody can revoke), one tool, and for the call one API request with a token from the environment. The floor: the baseline with the bot's `loadConfig` and the agents' function's own bearer check (`store.agentGrants.verifyAccessToken` through the bot's table client, `noteUse` beside the call), checked where the SDK's `requireBearerAuth` checks it, after the Request is built. None posts to Slack.",
      "Every answer is checked: the agents' `tools/list` names its five tools, the others' their one; each call's answer names a seeded volume and the emulator counted exactly one `volumes.list` call for it; after each floor run the grant's last use is in the table.",
      `${options.runs} counted runs of each, in rounds whose orders follow a Williams design (each contender starts a round, and runs right after each other one, equally often: a run leaves work behind in DynamoDB Local and the emulator, and none always finds the same one's); one uncounted round before them warms the file cache. "× baseline" compares each request with the baseline answering the same kind of request (\`tools/list\` with \`tools/list\`, the read with the call). "spawn → answer" and the CPU times are measured as for the Slack function's cold start.`,
      `\`tools/list\` size: the bytes of the agents' function's HTTP answer to \`tools/list\` for a person who may do everything (every token scope, no channel policy, both grant scopes: all five tools), the same in every run; against the same list served with one tool per operation (${perOperation.operations} tools: the operation's id, its summary as description, its request schema as input schema, the hints of its kind; \`bench/mcp/per-operation-tools.ts\`), served by the same SDK with the same options.`,
    ],
    rows: [
      ...SIDES.flatMap((side) => PATHS.flatMap((path) => timeRows(side, path))),
      ...SIDES.flatMap(sizeRows),
      {
        benchmark: 'MCP tools/list size',
        variant: 'ours: five tools, a full-scope person',
        metric: 'HTTP answer body',
        unit: 'bytes',
        summary: single(listBytes),
        vsBaseline: ratio(listBytes, perOperation.bytes),
      },
      {
        benchmark: 'MCP tools/list size',
        variant: `one tool per operation (${perOperation.operations} tools)`,
        metric: 'HTTP answer body',
        unit: 'bytes',
        summary: single(perOperation.bytes),
      },
    ],
    targets,
    notes: [
      `In CPU time (import and first answer, medians), which other work on the machine stretches far less than wall time: ${PATHS.map(
        (path) => {
          const cpu = (side: Side) => {
            const s = all[contenderOf(side, path)];
            return s.importCpu.median + s.answerCpu.median;
          };
          return `${PATH_NAMES[path]} ${formatRatio(ratio(cpu('ours'), cpu('baseline')))} the baseline's (the floor ${formatRatio(ratio(cpu('floor'), cpu('baseline')))})`;
        },
      ).join('; ')}.`,
      `Against the minimal server built without ajv as the agents' function is (spawn → answer, medians): ${PATHS.map(
        (path) => {
          const spawn = (side: Side) => all[contenderOf(side, path)].spawnToAnswer.median;
          return `${PATH_NAMES[path]} ${formatRatio(ratio(spawn('ours'), spawn('trimmed')))}`;
        },
      ).join('; ')}; in CPU time (import and first answer) ${PATHS.map((path) => {
        const cpu = (side: Side) => {
          const s = all[contenderOf(side, path)];
          return s.importCpu.median + s.answerCpu.median;
        };
        return `${PATH_NAMES[path]} ${formatRatio(ratio(cpu('ours'), cpu('trimmed')))}`;
      }).join(
        '; ',
      )}. The SDK's ajv validator costs the minimal server ${formatBytes(artifacts.baseline.loadedAtStart.bytes - artifacts.trimmed.loadedAtStart.bytes)} at start.`,
      `\`tools/list\` for a full-scope person is ${formatBytes(listBytes)} (${listBytes} bytes), ${formatRatio(ratio(listBytes, perOperation.bytes))} of the ${formatBytes(perOperation.bytes)} that one tool per operation would be ("× baseline" of the size rows is against that list); the input schemas an agent needs come from \`find_operations\`, for the operations it looks for.`,
      `Largest parts of what the agents' function loads at start: ${[
        ...artifacts.ours.loadedAtStart.composition,
      ]
        .slice(0, 8)
        .map(([name, size]) => `${name} ${formatBytes(size)}`)
        .join(', ')}.`,
    ],
  };
}
