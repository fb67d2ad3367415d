import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb.js';
import { TEST_START_TIMEOUT_MS } from '../support/dynamodb-local.js';

/**
 * Starts one DynamoDB Local for the whole run and stops it afterwards (the Java process with it).
 * Test files get its endpoint with `inject('dynamoEndpoint')` and create their own tables.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dynamo = await startDynamoDbLocal({ tableName: null, startTimeoutMs: TEST_START_TIMEOUT_MS });
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
