import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ApiError } from '../../../lib/api/errors.js';
import { filterFromFlags, filterProblems, validateFilter } from '../../../lib/api/filter.js';
import { defineOperation, PageQuerySchema } from '../../../lib/api/operation.js';
import { volumeOperations } from '../../../lib/api/operations/volumes.js';

function volumeOperation(action: string) {
  const op = volumeOperations.find((candidate) => candidate.action === action);
  if (!op) throw new Error(`volumes.${action} is not in the operations table`);
  return op;
}

const volumesList = volumeOperation('list');
const volumesView = volumeOperation('view');

/** Like the images list: filterable fields, one of which may not be used for ordering. */
const imagesList = defineOperation({
  group: 'images',
  action: 'list',
  summary: 'List images',
  method: 'GET',
  path: '/images',
  access: 'public',
  scopes: [],
  paginated: true,
  filterable: ['label', 'deprecated', 'is_public', 'size', 'type', 'vendor', 'status'],
  unorderable: ['status'],
  request: z.strictObject({ ...PageQuerySchema.shape }),
  response: z.object({ id: z.string() }),
  example: 'images list',
});

function rejection(op: Parameters<typeof validateFilter>[0], filter: unknown): ApiError {
  try {
    validateFilter(op, filter);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected the filter to be rejected');
}

describe('validateFilter', () => {
  it.each([
    { label: 'web1' },
    { '+or': [{ type: 'manual' }, { is_public: true }] },
    { size: { '+gte': 100, '+lt': 2000 } },
    { '+order_by': 'label', '+order': 'desc' },
    { label: { '+contains': 'debian' }, vendor: { '+neq': 'Other' } },
    { '+and': [{ deprecated: false }, { '+or': [{ size: { '+gt': 1 } }, { label: 'x' }] }] },
  ])('accepts %j', (filter) => {
    expect(validateFilter(imagesList, filter)).toEqual(filter);
  });

  it('rejects a field that is not filterable, naming it and listing the allowed fields', () => {
    const error = rejection(volumesList, { region: 'us-east' });

    expect(error.code).toBe('invalid_request');
    expect(error.errors).toEqual([
      {
        field: 'region',
        reason: 'is not a filterable field of volumes.list (filterable fields: label, tags)',
      },
    ]);
    expect(error.message).toContain('region');
  });

  it('rejects any field on an operation without filterable fields', () => {
    expect(filterProblems(volumesView, { label: 'x' })).toEqual([
      { field: 'label', reason: 'is not a filterable field of volumes.view (no field is filterable)' },
    ]);
  });

  it('checks fields inside +or and +and', () => {
    expect(filterProblems(volumesList, { '+or': [{ label: 'a' }, { colour: 'red' }] })).toEqual([
      expect.objectContaining({ field: 'colour' }),
    ]);
  });

  it('rejects +order_by on a field that is not filterable', () => {
    expect(filterProblems(volumesList, { '+order_by': 'size' })).toEqual([
      expect.objectContaining({
        field: '+order_by',
        reason: expect.stringContaining('"size" is not a filterable'),
      }),
    ]);
  });

  it('rejects +order_by on a field the operation cannot be ordered by', () => {
    expect(filterProblems(imagesList, { '+order_by': 'status' })).toEqual([
      {
        field: '+order_by',
        reason:
          'images.list cannot be ordered by status (orderable fields: label, deprecated, is_public, size, type, vendor)',
      },
    ]);
  });

  it('rejects +order without +order_by', () => {
    expect(filterProblems(volumesList, { '+order': 'asc' })).toEqual([
      { field: '+order', reason: 'needs +order_by beside it' },
    ]);
  });

  it('rejects an +order other than asc or desc', () => {
    expect(filterProblems(volumesList, { '+order_by': 'label', '+order': 'up' })).toEqual([
      { field: '+order', reason: 'must be asc or desc, not "up"' },
    ]);
  });

  it('rejects a field operator used outside a field', () => {
    expect(filterProblems(imagesList, { '+gte': 100 })).toEqual([
      { field: '+gte', reason: '+gte applies to a field, e.g. {"size": {"+gte": 100}}' },
    ]);
  });

  it('rejects unknown operators and operands of the wrong kind', () => {
    expect(filterProblems(imagesList, { size: { '+between': [1, 2] }, label: { '+contains': 3 } })).toEqual([
      expect.objectContaining({
        field: 'size',
        reason: expect.stringContaining('unknown operator +between'),
      }),
      { field: 'label', reason: '+contains needs text, not 3' },
    ]);
  });

  it('rejects an empty +or and a filter that is not an object', () => {
    expect(filterProblems(volumesList, { '+or': [] })).toEqual([
      { field: '+or', reason: 'needs a non-empty list of filter objects' },
    ]);
    expect(filterProblems(volumesList, ['label'])).toEqual([
      { field: 'X-Filter', reason: 'must be a JSON object, not ["label"]' },
    ]);
  });
});

describe('filterFromFlags', () => {
  it('turns flags into equality conditions plus ordering', () => {
    expect(
      filterFromFlags(imagesList, { label: 'debian', is_public: true }, { orderBy: 'size', order: 'desc' }),
    ).toEqual({
      label: 'debian',
      is_public: true,
      '+order_by': 'size',
      '+order': 'desc',
    });
  });

  it('leaves out flags that were not given and returns undefined when none were', () => {
    expect(filterFromFlags(volumesList, { label: undefined, tags: 'prod' })).toEqual({ tags: 'prod' });
    expect(filterFromFlags(volumesList, { label: undefined })).toBeUndefined();
  });

  it('rejects a flag for a field that cannot be filtered', () => {
    expect(() => filterFromFlags(volumesList, { region: 'us-east' })).toThrow(
      /region: is not a filterable field of volumes.list/,
    );
  });
});
