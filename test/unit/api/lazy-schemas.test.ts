import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { defineOperation, lazySchema } from '../../../lib/api/operation.js';
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

describe('the shared schemas of the operations table', () => {
  afterEach(() => {
    vi.doUnmock('zod');
    vi.resetModules();
  });

  it('builds a shared schema on its first use, once, and answers the same schema afterwards', () => {
    let built = 0;
    const shared = lazySchema(() => {
      built += 1;
      return z.object({ id: z.number().int() });
    });
    expect(built).toBe(0);
    const first = shared();
    expect(shared()).toBe(first);
    expect(built).toBe(1);
  });

  it('builds none of them while the table loads', async () => {
    // Count zod's builders (z.object, z.string, …) called while modules load, in a fresh registry.
    let calls = 0;
    vi.resetModules();
    vi.doMock('zod', async (importOriginal) => {
      // The code imports zod as a namespace (`import * as z`): every builder of the module counts.
      const actual = await importOriginal<typeof import('zod')>();
      return Object.fromEntries(
        Object.entries(actual).map(([key, value]) =>
          /^[a-z]/.test(key) && typeof value === 'function'
            ? [
                key,
                (...args: unknown[]) => {
                  calls += 1;
                  return Reflect.apply(value, actual, args);
                },
              ]
            : [key, value],
        ),
      );
    });
    // The field builders and the few schemas of every request (ids, pages, errors) load eagerly.
    await import('../../../lib/api/operation.js');
    const afterOperation = calls;
    expect(afterOperation).toBeGreaterThan(0);
    const { operations: fresh } = await import('../../../lib/api/operations/index.js');
    expect(calls - afterOperation).toBe(0);
    // Reading a row builds its schemas, shared ones included.
    expect(fresh.find((op) => op.id === 'volumes.view')?.response).toBeInstanceOf(z.ZodType);
    expect(calls).toBeGreaterThan(afterOperation);
  });

  it('answers one schema for every row sharing it', () => {
    const response = (id: string) => operations.find((op) => op.id === id)?.response;
    expect(response('volumes.view')).toBeDefined();
    expect(response('volumes.view')).toBe(response('volumes.update'));
  });
});
