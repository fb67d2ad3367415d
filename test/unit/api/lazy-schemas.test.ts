import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOperation } from '../../../lib/api/operation.js';
import { operations } from '../../../lib/api/operations/index.js';

/**
 * Building every schema of the operations table cost about a third of loading it, on each cold
 * start, while a command reads the schemas of one operation: a row's schemas are built when first
 * read, once.
 */
describe('an operation row given functions for its schemas', () => {
  it('builds each schema on its first read, once, and answers the same schema afterwards', () => {
    let built = 0;
    const op = defineOperation({
      group: 'volumes',
      action: 'lazy-example',
      summary: 'An example row',
      method: 'GET',
      path: '/volumes/{volumeId}',
      scopes: ['volumes:read_only'],
      paginated: false,
      request: () => {
        built += 1;
        return z.strictObject({ volumeId: z.number().int() });
      },
      response: z.object({ id: z.number().int() }),
      example: 'volumes lazy-example 1',
    });
    expect(built).toBe(0);
    const first = op.request;
    expect(op.request).toBe(first);
    expect(built).toBe(1);
    expect(op.request.safeParse({ volumeId: 1 }).success).toBe(true);
    expect(op.request.safeParse({ volumeId: 1, other: true }).success).toBe(false);
  });

  it('keeps every row of the table readable: each schema builds and parses', () => {
    for (const op of operations) {
      expect(op.request, op.id).toBeInstanceOf(z.ZodType);
      expect(op.response, op.id).toBeInstanceOf(z.ZodType);
      expect(op.request, op.id).toBe(op.request);
    }
  });
});
