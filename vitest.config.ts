import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    globalSetup: ['test/setup/dynamodb.ts'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // Vitest's default is one worker fewer than the cores, which on the team's 2-core machines runs
    // the files one at a time; the tests spend much of their time waiting on DynamoDB Local,
    // sockets and Chromium, so two files at a time keep both cores busy.
    maxWorkers: 2,
    // A worker keeps the modules it has loaded from one file to the next instead of starting a
    // fresh process and loading Bolt, the AWS SDK and the whole bot again for each file: that was
    // about a third of the suite's CPU. Test files still load afresh, and none relies on a module's
    // state being new (each builds its stack, tables and servers in its own hooks).
    isolate: false,
  },
});
