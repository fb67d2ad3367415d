import {
  type DynamoDbLocal,
  type DynamoDbLocalOptions,
  startDynamoDbLocal,
} from '../../infra/local/dynamodb.js';

/**
 * How long a test waits for a DynamoDB Local it starts to answer: longer than `npm start`'s 20 s,
 * because with two test files at a time on a busy 2-core machine a start (the JVM, and Java
 * compiling the launcher) has taken more than that. The hooks that start one allow 60 s.
 */
export const TEST_START_TIMEOUT_MS = 45_000;

/** A DynamoDB Local of the test's own (one it may freeze or stop), given that long to start. */
export function startOwnDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  return startDynamoDbLocal({ startTimeoutMs: TEST_START_TIMEOUT_MS, ...options });
}
