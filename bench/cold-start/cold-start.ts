import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { type RunningEmulator, startEmulator } from '../../infra/local/emulator/server.js';
import { type SlackStandIn, startSlackStandIn } from '../../infra/local/slack/server.js';
import { helpFor } from '../../lib/commands/help.js';
import { renderApprovalCard } from '../../lib/slack/render/approval.js';
import { renderHelp } from '../../lib/slack/render/help.js';
import { BASELINE_ANSWER, FLOOR_ANSWER } from '../baseline/answer.js';
import { type BenchTable, createBenchTable, linkBenchUser } from '../bench-table.js';
import type { BenchmarkResult, Row } from '../benchmark.js';
import {
  ackText,
  approveClickEvent,
  BENCH_CHANNEL,
  BENCH_TEAM,
  loginSubmissionEvent,
  slashCommandEvent,
} from '../slash-command-event.js';
import { ratio, type Summary } from '../stats.js';
import { formatBytes, formatRatio } from '../table.js';
import { compositionDifference } from './bundle-composition.js';
import {
  type BuiltFunction,
  type ColdStartArtifacts,
  type FileSet,
  type FloorVariant,
  prepareColdStart,
} from './bundles.js';
import {
  COLD_METRICS,
  type ColdContender,
  type ColdSummaries,
  runContender,
  runInRounds,
  summarizeCold,
} from './cold-process.js';
import { type ColdTiming, floorFindings } from './floor-findings.js';

/**
 * Cold start to first answer: a new `node` process loads a function bundle and answers one signed
 * slash command, for the bot (`/cloud help`, which needs no API call) and for the minimal Bolt
 * app. The bot claims each delivery in DynamoDB before it answers, so its processes talk to
 * DynamoDB Local, as they would to DynamoDB in AWS. Runs alternate between the two, in alternating
 * order, so drift on a busy machine falls on both alike; one pair runs first to warm the file
 * cache and is not counted.
 */

const BENCHMARK = 'Cold start';
/** The target: `/cloud help` at most this many times the minimal Bolt app's spawn → answer. */
const COLD_START_LIMIT = 1.2;
/** The target of the paths that call the API or change something: at most this many times the baseline. */
const ACTING_PATH_LIMIT = 1.5;
/** What each acting path does in its first answer besides what help does, for a missed target. */
const ACTING_PATH_WORK: Record<ActingPath, string> = {
  volumes:
    'the full parser with the operations table and zod, the runner with the API client, the token lookup and its decryption, the channel guard, one API call, the list rendering',
  login:
    'the view payload, the API client and the operations table, `GET /profile`, the token encrypted and stored, the "Linked as" message posted',
  approve:
    'the click claim, the payload schema, the approvals module with the operations table and its store reads and writes, the card update and thread reply, the audit entry, the signed Lambda Invoke',
};
/**
 * What would close each cold-start gap, from what profiles (`BENCH_CPU_PROFILE_DIR`) and builds
 * compared side by side showed; said where a target is missed.
 */
const WHAT_WOULD_CLOSE: Record<'help' | 'volumes' | 'login' | 'approve', string> = {
  help: "What would close it: its first answer without the fit read (the caller's token and the channel's policy, one BatchGetItem beside the claim, about 9 ms of the first answer over the floor's) would come sooner, so help unfitted on a cold start and fitted when warm would; the rest is its import, about 20 ms over the baseline's: Bolt's wiring of the listeners, the command catalog (38 KB, read at start to answer help and parse the front of a command), the logger and metrics.",
  volumes:
    "What would close it, beyond the loading measured above: zod. Loaded at start instead (a build whose entry imports it), the first answers of the list and of Approve were 9 to 10 ms shorter and the import 10 ms longer, so loading and starting classic zod costs each acting path about 10 ms; `zod/mini`, from the same package, loaded with one schema in 3.7 ms against classic's 11.1 ms in a fresh process (a rewrite of the operations table's and the stored items' schemas, which also builds each schema object without its methods). The rest is its work: the token's lookup and decryption, the API call, the rendering.",
  login:
    "What would close it: as for the list (loading its first-use files, zod), then the Slack client's first post; its storage writes are one transaction.",
  approve:
    "What would close it: not loading alone (see above). Its work is four exchanges in a row, each waiting for the one before: the claim with the request and both policies read beside it; the conditional vote; the card, the thread reply and the audit entry together; the two hand-offs together; and the Slack client's first calls. Within the limit it would have to answer Slack before the card shows the vote, leaving the card to the worker: the card is what the approver waits to see, so that is a choice about the product, not a speed-up.",
};
const USER = 'U0BENCH';
/** Logs in by the modal in every run; a user of its own, so `USER`'s link stays as it is. */
const LOGIN_USER = 'U0LOGIN';
/** Approves requests `USER` made; any member but the requester may under the default policy. */
const APPROVER = 'U0APPROVE';

type ActingPath = 'volumes' | 'login' | 'approve';
/** An acting path run on the one-file build (`oursOneFile`). */
type OneFileName = `${ActingPath}OneFile`;
const ACTING_PATHS = ['volumes', 'login', 'approve'] as const satisfies readonly ActingPath[];

type ContenderName = 'help' | ActingPath | OneFileName | 'floor' | FloorVariant | 'baseline';

/** How the results table names each floor variant, and what it leaves out of the floor. */
const FLOOR_VARIANT_NAMES: Record<FloorVariant, string> = {
  floorSdkClaim: 'floor, SDK claim',
};
/** Packages a variant was made to do without: finding one among what it loads voids its numbers. */
const LEFT_OUT: Record<FloorVariant, readonly string[]> = {
  floorSdkClaim: ['zod'],
};

type Contender = ColdContender<ContenderName>;

/**
 * The acting paths on the one-file build: the same event, preparation and checks, so the two
 * builds answer the same requests and leave the same state behind.
 */
function oneFileContenders(
  acting: Record<ActingPath, Contender>,
  build: BuiltFunction,
): Record<OneFileName, Contender> {
  const onOneFile = (path: ActingPath): Contender => ({
    ...acting[path],
    name: `${path}OneFile`,
    variant: acting[path].variant.replace(/^ours: /, 'ours, one file: '),
    build,
  });
  return {
    volumesOneFile: onOneFile('volumes'),
    loginOneFile: onOneFile('login'),
    approveOneFile: onOneFile('approve'),
  };
}

function functionEnv(
  signingSecret: string,
  slack: SlackStandIn,
  table: BenchTable,
  dynamoEndpoint: string,
  cloudApiUrl: string,
  lambdaUrl: string,
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_API_URL: slack.apiUrl,
    TABLE_NAME: table.tableName,
    TOKEN_ENCRYPTION_KEY: table.encryptionKey,
    // The bot claims every delivery in DynamoDB before answering, `help` included.
    DYNAMODB_ENDPOINT: dynamoEndpoint,
    CLOUD_API_URL: cloudApiUrl,
    WORKER_FUNCTION_NAME: 'chatops-bench-worker',
    // An approval hands its job to the worker with Lambda's Invoke, answered here as Lambda would.
    AWS_ENDPOINT_URL_LAMBDA: lambdaUrl,
    // The budget only cuts storage calls off past it; it changes no path that finishes within it.
    // On a machine shared with other work a cold process has taken longer than the 700 ms default
    // (1500 ms is the most the configuration allows), which made a slow run fail instead of count.
    SLACK_STORAGE_BUDGET_MS: '1500',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
  };
}

function expectAckText(result: unknown, expected: (text: string | undefined) => boolean, what: string) {
  const text = ackText(result);
  if (!expected(text)) throw new Error(`expected ${what}, got ${JSON.stringify(result)}`);
}

export interface ColdStartOptions {
  /** Counted runs of each bundle. */
  readonly runs: number;
  /** Scratch directory for the bundles. */
  readonly workDir: string;
  /** DynamoDB Local, for the bot's delivery claim. */
  readonly dynamoEndpoint: string;
}

export async function runColdStart(options: ColdStartOptions): Promise<BenchmarkResult> {
  const artifacts = await prepareColdStart(options.workDir);
  // The channel the cards and commands are in, with the bot as a member (a real workspace refuses
  // a post to a channel that does not exist).
  const slack = await startSlackStandIn({
    channels: [{ id: BENCH_CHANNEL, name: 'bench', is_private: false, is_im: false }],
  });
  const table = await createBenchTable(options.dynamoEndpoint);
  // The API is remote to the function: the emulator runs here, not in the measured process.
  const emulator = await startEmulator({ rateLimit: false });
  const lambda = await startLambdaInvokeEndpoint();
  try {
    return await measure(options, artifacts, slack, table, emulator, lambda);
  } finally {
    lambda.server.close();
    await emulator.close();
    table.close();
    await slack.close();
  }
}

async function measure(
  options: ColdStartOptions,
  artifacts: ColdStartArtifacts,
  slack: SlackStandIn,
  table: BenchTable,
  emulator: RunningEmulator,
  lambda: LambdaInvokeEndpoint,
): Promise<BenchmarkResult> {
  for (const [variant, leftOut] of Object.entries(LEFT_OUT) as [FloorVariant, readonly string[]][]) {
    const loaded = [...artifacts.floorVariants[variant].loadedAtStart.composition.keys()];
    const found = loaded.filter((name) => leftOut.some((prefix) => name.startsWith(prefix)));
    if (found.length > 0) {
      throw new Error(
        `${FLOOR_VARIANT_NAMES[variant]} still loads ${found.join(', ')} before its first answer`,
      );
    }
  }
  const signingSecret = randomBytes(16).toString('hex');
  const env = functionEnv(signingSecret, slack, table, options.dynamoEndpoint, emulator.url, lambda.url);
  await linkBenchUser(table.store, BENCH_TEAM, USER, emulator.demoToken);
  const helpText = renderHelp(helpFor(undefined)).text;
  const seededVolume = [...emulator.control.world.volumes.values()][0];
  const firstVolume = seededVolume?.label;
  if (!seededVolume || !firstVolume) throw new Error('The emulator has no seeded volume to list');
  const slackClient = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl });
  // Each Approve run needs a request of its own, pending, with its card in the channel.
  let pendingApproval: { id: string; messageTs: string } | undefined;
  const requestApproval = async () => {
    const approval = await table.store.approvals.create({
      team: BENCH_TEAM,
      requester: USER,
      operationId: 'volumes.delete',
      input: { volume_id: seededVolume.id },
      summary: `volume ${seededVolume.id}`,
      channel: BENCH_CHANNEL,
      requiredApprovals: 1,
      expiryMinutes: 60,
    });
    const card = renderApprovalCard({ approval });
    const posted = await slackClient.chat.postMessage({
      channel: BENCH_CHANNEL,
      text: card.text,
      blocks: card.blocks,
    });
    if (!posted.ts) throw new Error('the stand-in did not post the approval card');
    await table.store.approvals.setMessage(BENCH_TEAM, approval.id, BENCH_CHANNEL, posted.ts);
    pendingApproval = { id: approval.id, messageTs: posted.ts };
  };
  const command = (text: string) => () => slashCommandEvent({ signingSecret, text, user: USER });
  // The floor apps answer only after their claim, so the answer and the item it left are checked
  // together: a variant whose claim went nowhere would otherwise time a cheaper path than the bot's.
  const floorContender = (name: 'floor' | FloorVariant, variant: string, build: BuiltFunction): Contender => {
    let trigger: string | null = null;
    return {
      name,
      variant,
      build,
      env,
      event: () => {
        const event = command('help')();
        trigger = new URLSearchParams(event.body).get('trigger_id');
        return event;
      },
      check: async (result) => {
        expectAckText(result, (text) => text === FLOOR_ANSWER, 'the floor answer');
        const { Item: claim } = await table.table.get({
          TableName: table.tableName,
          Key: { pk: `CLAIM#command:${BENCH_TEAM}:${trigger}`, sk: 'CLAIM' },
        });
        const nowSeconds = Date.now() / 1000;
        if (claim?.kind !== 'delivery_claim' || !(Number(claim.expires_at) > nowSeconds)) {
          throw new Error(`no unexpired delivery claim for the trigger ${trigger}: ${JSON.stringify(claim)}`);
        }
      },
    };
  };

  const acting: Record<ActingPath, Contender> = {
    volumes: {
      name: 'volumes',
      variant: 'ours: /cloud volumes list',
      build: artifacts.ours,
      env,
      event: command('volumes list'),
      check: async (result) => {
        const before = volumeListCalls;
        volumeListCalls = emulator.control.requestCounts()['volumes.list'] ?? 0;
        if (volumeListCalls !== before + 1) throw new Error('the emulator saw no volumes.list call');
        expectAckText(
          result,
          () => JSON.stringify(result).includes(firstVolume),
          `a list with ${firstVolume}`,
        );
      },
    },
    login: {
      name: 'login',
      variant: 'ours: login modal submitted',
      build: artifacts.ours,
      env,
      event: () => loginSubmissionEvent({ signingSecret, user: LOGIN_USER, token: emulator.demoToken }),
      check: async (result) => {
        const { statusCode, body } = result as { statusCode?: unknown; body?: unknown };
        if (statusCode !== 200 || (body !== undefined && body !== '')) {
          throw new Error(`expected the modal to close (200, no errors), got ${JSON.stringify(result)}`);
        }
        const confirmations = slack.store
          .callsTo('chat.postEphemeral')
          .filter((call) => call.body.user === LOGIN_USER && String(call.body.text).includes('Linked as'));
        if (confirmations.length !== ++loginConfirmations) throw new Error('no "Linked as" confirmation');
        const link = await table.store.tokenLinks.getLink(BENCH_TEAM, LOGIN_USER, 'default');
        if (!link) throw new Error('the token was not stored');
      },
    },
    approve: {
      name: 'approve',
      variant: 'ours: Approve clicked',
      build: artifacts.ours,
      env,
      prepare: requestApproval,
      event: () => {
        if (!pendingApproval) throw new Error('no approval request to click');
        return approveClickEvent({
          signingSecret,
          user: APPROVER,
          approvalId: pendingApproval.id,
          messageTs: pendingApproval.messageTs,
        });
      },
      check: async (result) => {
        const { statusCode } = result as { statusCode?: unknown };
        if (statusCode !== 200)
          throw new Error(`expected the click to be acknowledged, got ${JSON.stringify(result)}`);
        const clicked = pendingApproval;
        if (!clicked) throw new Error('no approval request was clicked');
        const approval = await table.store.approvals.get(BENCH_TEAM, clicked.id);
        if (approval?.status !== 'approved')
          throw new Error(`the request is ${approval?.status ?? 'gone'}, not approved`);
        // The approved run is handed off once; the same click also hands off the Homes of the
        // request's people (a request-homes job), which the answer waits for too and is counted.
        const invoked = lambda.invocations.filter(
          (job) => job.kind === 'approval' && job.approvalId === clicked.id,
        );
        if (invoked.length !== 1)
          throw new Error(`the worker was invoked ${invoked.length} times to run it, not once`);
        const updated = slack.store
          .callsTo('chat.update')
          .filter((call) => call.body.ts === clicked.messageTs);
        if (updated.length === 0) throw new Error('the card was not updated');
      },
    },
  };
  const contenders: Record<ContenderName, Contender> = {
    help: {
      name: 'help',
      variant: 'ours: /cloud help',
      build: artifacts.ours,
      env,
      event: command('help'),
      check: async (result) => expectAckText(result, (text) => text === helpText, 'the help text'),
    },
    ...acting,
    // The acting paths again on the one-file build: the same events, checked the same way.
    ...oneFileContenders(acting, artifacts.oursOneFile),
    floor: floorContender('floor', 'floor: minimal Bolt + config + claim', artifacts.floor),
    floorSdkClaim: floorContender(
      'floorSdkClaim',
      FLOOR_VARIANT_NAMES.floorSdkClaim,
      artifacts.floorVariants.floorSdkClaim,
    ),
    baseline: {
      name: 'baseline',
      variant: 'baseline (minimal Bolt)',
      build: artifacts.baseline,
      env,
      event: () => slashCommandEvent({ signingSecret, text: '', user: USER }),
      check: async (result) =>
        expectAckText(result, (text) => text === BASELINE_ANSWER, 'the baseline answer'),
    },
  };
  let volumeListCalls = emulator.control.requestCounts()['volumes.list'] ?? 0;
  let loginConfirmations = 0;

  const names = Object.keys(contenders) as ContenderName[];
  const authTestsBefore = slack.store.callsTo('auth.test').length;
  const samples = await runInRounds(names, options.runs, (name) =>
    runContender(artifacts.driver, contenders[name]),
  );
  const processes = names.length * (options.runs + 1);
  const authTests = slack.store.callsTo('auth.test').length - authTestsBefore;

  const all = Object.fromEntries(names.map((name) => [name, summarizeCold(samples[name])])) as Record<
    ContenderName,
    ColdSummaries
  >;
  const baseline = all.baseline;
  const single = (value: number): Summary => ({ runs: 1, median: value, min: value, max: value });

  const timeRows = (variant: string, s: ColdSummaries, compare: boolean): Row[] =>
    COLD_METRICS.map(([metric, key]) => ({
      benchmark: BENCHMARK,
      variant,
      metric,
      unit: 'ms',
      summary: s[key],
      ...(compare && { vsBaseline: ratio(s[key].median, baseline[key].median) }),
    }));
  const sets = [
    { key: 'loadedAtStart', label: 'loaded at start (entry + static chunks)' },
    { key: 'deployed', label: 'deployed (every .mjs)' },
  ] as const;
  const sizeRows = (
    variant: string,
    built: BuiltFunction,
    compare: boolean,
    only?: (typeof sets)[number]['key'],
  ): Row[] =>
    sets
      .filter(({ key }) => only === undefined || key === only)
      .flatMap(({ key, label }) => {
        const set = built[key];
        const reference = artifacts.baseline[key];
        const files = `${set.files.length} ${set.files.length === 1 ? 'file' : 'files'}`;
        return [
          {
            benchmark: 'Bundle size',
            variant,
            metric: `${label}, ${files}`,
            unit: 'bytes' as const,
            summary: single(set.bytes),
            ...(compare && { vsBaseline: ratio(set.bytes, reference.bytes) }),
          },
          {
            benchmark: 'Bundle size',
            variant,
            metric: `${label}, gzip`,
            unit: 'bytes' as const,
            summary: single(set.gzipBytes),
            ...(compare && { vsBaseline: ratio(set.gzipBytes, reference.gzipBytes) }),
          },
        ];
      });
  const packagesBeyond = (ours: FileSet, reference: FileSet, count: number) =>
    compositionDifference(ours.composition, reference.composition)
      .filter((d) => d.difference > 0)
      .slice(0, count)
      .map((d) => `${d.name} ${formatBytes(d.difference)}`)
      .join(', ');
  const sizeTarget = (label: string, ours: FileSet, reference: FileSet, floor: FileSet, rest: string) => ({
    name: `Bundle size, ${label}`,
    requirement: '≤ 1.1× the minimal Bolt app (bytes)',
    measured: ratio(ours.bytes, reference.bytes),
    limit: 1.1,
    direction: 'at-most' as const,
    format: formatRatio,
    whyMissed:
      `${formatBytes(ours.bytes - reference.bytes)} more than the baseline. By the source maps, the packages that make up the difference (generated characters, ours minus baseline): ${packagesBeyond(ours, reference, 6)}. ` +
      `The floor app (the baseline plus the bot's config check and its DynamoDB claim, nothing else) is ${formatRatio(ratio(floor.bytes, reference.bytes))} (${packagesBeyond(floor, reference, 3)}); ${rest}`,
  });
  const ours = all.help;
  const coldRatio = ratio(ours.spawnToAnswer.median, baseline.spawnToAnswer.median);
  const floorRatio = ratio(all.floor.spawnToAnswer.median, baseline.spawnToAnswer.median);
  const loadedDifference = artifacts.ours.loadedAtStart.bytes - artifacts.baseline.loadedAtStart.bytes;
  const importShare =
    (ours.import.median - baseline.import.median) /
    Math.max(1e-9, ours.spawnToAnswer.median - baseline.spawnToAnswer.median);
  const timing = (name: ContenderName): ColdTiming => ({
    spawnToAnswer: all[name].spawnToAnswer.median,
    import: all[name].import.median,
    answer: all[name].answer.median,
  });
  const findings = floorFindings({
    baseline: timing('baseline'),
    ours: timing('help'),
    floor: timing('floor'),
    sdkClaim: timing('floorSdkClaim'),
    limit: COLD_START_LIMIT,
  });
  const pathRatio = (name: ContenderName) =>
    `${contenders[name].variant.replace(/^ours: /, '')} ${formatRatio(ratio(all[name].spawnToAnswer.median, baseline.spawnToAnswer.median))}`;

  return {
    title: 'Cold start to first answer',
    setup: [
      `Built by \`buildFunctions\` (infra/build.ts), which splits code at dynamic imports into chunks: the bot's \`functions/slack\`; the baseline \`bench/baseline/minimal-bolt.ts\`, an \`App\` with \`AwsLambdaReceiver\` answering \`/cloud\` with a fixed text; the floor \`bench/baseline/floor-bolt.ts\`, the baseline plus the bot's \`loadConfig\` and its delivery claim in DynamoDB through the bot's table client (\`lib/store/http-table.ts\`); and the floor with its claim through the AWS SDK's document client instead ("floor, SDK claim", \`floor-sdk-claim.ts\`, the same app \`floor-app.ts\` making the same claim), as the bot's store made it before. The benchmark stops if a floor loads zod (by the source maps).`,
      `Each run is a new \`node\` process (${process.version}) that imports the bundle and invokes its handler with one signed API Gateway v2 event. The bot answers four paths: \`/cloud help\` (parse, render, the delivery claim), \`/cloud volumes list\` (the claim, the token lookup and decryption with the local key, one API call to the emulator, rendering; the emulator runs in the benchmark's process), the login modal submitted (the token checked with \`GET /profile\`, encrypted and stored, the "Linked as" message posted to the Slack stand-in), and Approve clicked on a pending \`volumes delete\` card (the click claim, the request and the channel's rule read, the vote written, the card updated and a thread reply posted through the stand-in, the audit entry, and the job handed to the worker with Lambda's Invoke, answered by a local endpoint as Lambda answers an asynchronous invoke; a new request and its card are made before each run, not measured). The baseline and the floor apps answer \`/cloud\`.`,
      "Every answer is checked: help against its rendered text; the list for a seeded volume and the emulator's count of `volumes.list` calls; the login by the empty 200 that closes the modal, the confirmation the stand-in received and the stored link; the click by the request's stored status (approved), exactly one Invoke carrying its id and the card's update; the baseline against its fixed text; the floor and its variants against theirs and the unexpired delivery claim each left in the table under the event's trigger id.",
      'The three acting paths run a second time on a one-file build of the bot ("ours, one file"; `oneFileBuild` in `bench/cold-start/bundles.ts`: the same options without splitting, so what the function imports lazily sits in the same file, each module evaluated when first imported). Its import parses all of the function, so it is not a way to ship; its first answer is the path\'s work with nothing left to load, which bounds what grouping or trimming the first-use files can win. Its runs are checked as the others are.',
      `${options.runs} counted runs of each, in rounds whose orders follow a Williams design (each contender starts a round, and runs right after each other one, equally often: a run leaves work behind in DynamoDB Local and the emulator, and none always finds the same one's); one uncounted round before them warms the file cache.`,
      '"spawn → answer" is measured by this process, from just before `spawn` until the answer line arrives; the other times are measured inside the child. "× baseline" of every path is against the same baseline. "CPU time" is the child\'s own (`process.cpuUsage`, user + system, all its threads) while it loads the bundle and while it answers: other work on the machine stretches wall times much more than CPU times.',
      'Bundle size: "loaded at start" is the entry and every chunk it imports statically (read with esbuild from the output), evaluated before the handler runs; `/cloud help` loads nothing else, while the list and the login load the chunks of the API client, the runner and the bot\'s commands on first use. "Deployed" is every JavaScript file of the function. Which package each byte comes from is read from the source maps the build writes.',
    ],
    rows: [
      ...names
        .filter((name) => name !== 'baseline')
        .flatMap((name) => timeRows(contenders[name].variant, all[name], true)),
      ...timeRows(contenders.baseline.variant, baseline, false),
      ...sizeRows('ours (functions/slack)', artifacts.ours, true),
      ...sizeRows('floor: minimal Bolt + config + claim', artifacts.floor, true),
      ...(Object.keys(FLOOR_VARIANT_NAMES) as FloorVariant[]).flatMap((variant) =>
        sizeRows(FLOOR_VARIANT_NAMES[variant], artifacts.floorVariants[variant], true, 'loadedAtStart'),
      ),
      ...sizeRows('baseline (minimal Bolt)', artifacts.baseline, false),
    ],
    targets: [
      {
        name: 'Cold start, /cloud help',
        requirement: '≤ 1.2× the minimal Bolt app (spawn → answer, medians)',
        measured: coldRatio,
        limit: COLD_START_LIMIT,
        direction: 'at-most',
        format: formatRatio,
        whyMissed:
          `The bot's process took ${(ours.spawnToAnswer.median - baseline.spawnToAnswer.median).toFixed(0)} ms longer (median). ` +
          `Loading the bundle accounts for ${(importShare * 100).toFixed(0)}% of that ` +
          `(import ${ours.import.median.toFixed(0)} ms against ${baseline.import.median.toFixed(0)} ms), ` +
          `the first answer for the rest (${ours.answer.median.toFixed(1)} ms against ${baseline.answer.median.toFixed(1)} ms; the bot's first answer includes its delivery claim, the process's first DynamoDB request). ` +
          `Before its first answer the bot loads ${formatBytes(artifacts.ours.loadedAtStart.bytes)} of JavaScript, ${loadedDifference >= 0 ? `${formatBytes(loadedDifference)} more` : `${formatBytes(-loadedDifference)} less`} than the baseline. ` +
          `The floor app, which adds only the bot's config check and its delivery claim (through the bot's table client) to the baseline, takes ${formatRatio(floorRatio)} (${all.floor.spawnToAnswer.median.toFixed(0)} ms; import ${all.floor.import.median.toFixed(0)} ms, first answer ${all.floor.answer.median.toFixed(1)} ms): ` +
          `of the ${(ours.spawnToAnswer.median - baseline.spawnToAnswer.median).toFixed(0)} ms, ${(all.floor.spawnToAnswer.median - baseline.spawnToAnswer.median).toFixed(0)} ms are the config and the claim and ${(ours.spawnToAnswer.median - all.floor.spawnToAnswer.median).toFixed(0)} ms the rest of the bot loaded before its first answer (the Bolt wiring and listeners, the command catalog and the parser's front, help rendering, the fit's reads, logger and metrics; the operations table, zod and the repositories load on first use). ` +
          `${findings.join(' ')} ${WHAT_WOULD_CLOSE.help}`,
      },
      ...ACTING_PATHS.map((name) => {
        const path = all[name];
        const extra = path.spawnToAnswer.median - baseline.spawnToAnswer.median;
        const oneFile = all[`${name}OneFile`];
        const loading = path.answer.median - oneFile.answer.median;
        // Today's process with the one-file build's answer: what the path would take if loading
        // its first-use files cost nothing (the one file's larger import left aside).
        const unloaded = ratio(path.spawnToAnswer.median - loading, baseline.spawnToAnswer.median);
        return {
          name: `Cold start, ${contenders[name].variant.replace(/^ours: /, '')}`,
          requirement: `≤ ${ACTING_PATH_LIMIT}× the minimal Bolt app (spawn → answer, medians)`,
          measured: ratio(path.spawnToAnswer.median, baseline.spawnToAnswer.median),
          limit: ACTING_PATH_LIMIT,
          direction: 'at-most' as const,
          format: formatRatio,
          whyMissed:
            `The process took ${extra.toFixed(0)} ms longer than the baseline's (median; ${formatRatio(ACTING_PATH_LIMIT)} allows ${(baseline.spawnToAnswer.median * (ACTING_PATH_LIMIT - 1)).toFixed(0)} ms). ` +
            `Its import is the same bundle as help's (${path.import.median.toFixed(0)} ms against the baseline's ${baseline.import.median.toFixed(0)} ms); its first answer took ${path.answer.median.toFixed(1)} ms against help's ${ours.answer.median.toFixed(1)} ms: ` +
            `${(path.answer.median - ours.answer.median).toFixed(0)} ms for what it loads on first use and does (${ACTING_PATH_WORK[name]}); ` +
            `in CPU time the first answer took ${path.answerCpu.median.toFixed(0)} ms against help's ${ours.answerCpu.median.toFixed(0)} ms, the rest of its first answer being waits on DynamoDB, the API and Slack. ` +
            `Built as one file (no splitting: all of its code parsed at import, ${(oneFile.import.median - path.import.median).toFixed(0)} ms longer, and each module evaluated when first used), the same request's first answer took ${oneFile.answer.median.toFixed(1)} ms, so loading its first-use files costs about ${loading.toFixed(0)} ms of the answer; if that cost nothing, the path would take ${formatRatio(unloaded)}, ${unloaded <= ACTING_PATH_LIMIT ? 'within' : 'still over'} the limit: ${unloaded <= ACTING_PATH_LIMIT ? 'loading is what stands between it and the target' : 'what it does once loaded (the work listed above, zod included) is over the limit by itself'}. ` +
            WHAT_WOULD_CLOSE[name],
        };
      }),
      sizeTarget(
        'loaded at start',
        artifacts.ours.loadedAtStart,
        artifacts.baseline.loadedAtStart,
        artifacts.floor.loadedAtStart,
        "the rest is the bot's own code loaded before its first answer.",
      ),
    ],
    notes: [
      // Not a target: code loaded only on first use does not reach what people wait for.
      `Deployed (every .mjs of the function, a figure, not a target): ${formatBytes(artifacts.ours.deployed.bytes)}, ${formatRatio(ratio(artifacts.ours.deployed.bytes, artifacts.baseline.deployed.bytes))} the minimal Bolt app's ${formatBytes(artifacts.baseline.deployed.bytes)}; beyond it (generated characters): ${packagesBeyond(artifacts.ours.deployed, artifacts.baseline.deployed, 6)}. What a cold start evaluates of it is the row "Bundle size, loaded at start"; the rest loads on first use (the operations table and zod, the repositories, the AWS SDK clients for KMS and SSM).`,
      `Cold start of each path against the same baseline (spawn → answer, medians): ${(['help', 'volumes', 'login', 'approve', 'floor'] as const).map(pathRatio).join('; ')}. On the one-file build (not a way to ship: its import parses all of the function): ${ACTING_PATHS.map((path) => pathRatio(`${path}OneFile`)).join('; ')}.`,
      `Neither app calls Slack's \`auth.test\`: both hand Bolt the bot token through \`authorize\` (with a plain \`token\` Bolt calls it on the first event of every process, a round trip to Slack on Lambda). Counted: ${authTests} calls for ${processes} processes.`,
      'What AWS adds and this machine does not: on Lambda, `/cloud volumes list` and the login also load the KMS client (now on first use, not at start) and make one KMS round trip; here the token cipher uses the local key.',
      `Largest parts of what the bot loads at start: ${[...artifacts.ours.loadedAtStart.composition]
        .slice(0, 8)
        .map(([name, size]) => `${name} ${formatBytes(size)}`)
        .join(', ')}.`,
    ],
  };
}

interface LambdaInvokeEndpoint {
  readonly url: string;
  readonly server: Server;
  /** The jobs received, in order. */
  readonly invocations: { kind?: unknown; approvalId?: unknown }[];
}

/**
 * Lambda's Invoke as an asynchronous invocation answers it (202, no body), so the approval path
 * makes the same round trip it makes in AWS; the jobs are kept to check each run handed off once.
 */
async function startLambdaInvokeEndpoint(): Promise<LambdaInvokeEndpoint> {
  const invocations: { kind?: unknown; approvalId?: unknown }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (
        request.method === 'POST' &&
        /^\/2015-03-31\/functions\/[^/]+\/invocations/.test(request.url ?? '')
      ) {
        try {
          invocations.push(
            JSON.parse(Buffer.concat(chunks).toString('utf8')) as { kind?: unknown; approvalId?: unknown },
          );
        } catch {
          invocations.push({});
        }
        response.writeHead(202, { 'content-type': 'application/json' }).end();
        return;
      }
      response.writeHead(404).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, invocations };
}
