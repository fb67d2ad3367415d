import { spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareColdStart } from './cold-start/bundles.js';
import { slashCommandEvent } from './slash-command-event.js';
const dir = await mkdtemp(join(tmpdir(), 'bench-'));
const a = await prepareColdStart(dir);
console.log(a.ours.file, a.ours.bytes, a.baseline.bytes, a.baseline.gzipBytes);
console.log([...a.ours.composition].slice(0, 10), [...a.baseline.composition].slice(0, 10));
const secret = 'abc';
for (const b of [a.ours.file, a.baseline.file]) {
  const r = spawnSync(process.execPath, [a.driver, b], { env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', SLACK_SIGNING_SECRET: secret, SLACK_BOT_TOKEN: 'xoxb', TABLE_NAME: 't', TOKEN_ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'), WORKER_FUNCTION_NAME: 'w', BENCH_EVENT: JSON.stringify(slashCommandEvent({ signingSecret: secret, text: 'help', user: 'U1' })) } });
  console.log(r.stdout.toString().slice(0, 2000), r.stderr.toString().slice(0, 2000));
}
