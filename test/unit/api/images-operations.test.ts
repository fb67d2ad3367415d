import { describe, expect, it } from 'vitest';
import { responseSchemaOf } from '../../../lib/api/operation.js';
import { imageOperations } from '../../../lib/api/operations/images.js';
import { getOperation, requireOperation } from '../../../lib/api/operations/index.js';
import { issuesOf, publishedExample } from '../../support/openapi-examples.js';

describe('images.create', () => {
  it('accepts a disk id with a label, description and cloud-init flag', () => {
    expect(
      issuesOf('images.create', {
        disk_id: 25674,
        label: 'web-golden',
        description: 'Patched base',
        cloud_init: true,
      }),
    ).toEqual([]);
  });
  it('requires disk_id', () => {
    expect(issuesOf('images.create', { label: 'web-golden' })).toEqual(['disk_id: is required']);
  });
  it('rejects a description outside 1..65000 characters', () => {
    expect(issuesOf('images.create', { disk_id: 1, description: '' })).toEqual([
      'description: must be 1 to 65000 characters',
    ]);
    expect(issuesOf('images.create', { disk_id: 1, description: 'x'.repeat(65001) })).toEqual([
      'description: is 65,001 characters; the most it can be is 65,000',
    ]);
  });
  it('watches the captured image until it is available', () => {
    expect(getOperation('images.create').watch).toEqual({
      statusField: 'status',
      final: ['available'],
      view: 'images.view',
    });
  });
});

describe('images.upload', () => {
  it('accepts a label and a region', () => {
    expect(issuesOf('images.upload', { label: 'my-appliance', region: 'eu-central' })).toEqual([]);
  });
  it('requires label and region', () => {
    expect(issuesOf('images.upload', { description: 'Appliance' })).toEqual([
      'label: is required',
      'region: is required',
    ]);
  });
  it('answers with the upload address and the pending image', () => {
    const upload = getOperation('images.upload').response.parse({
      upload_to: 'https://upload.example.net/images/abc',
      image: { id: 'private/15', label: 'my-appliance', status: 'pending_upload' },
    });
    expect(upload).toMatchObject({ image: { status: 'pending_upload' } });
  });
});

describe('images.update', () => {
  it('accepts a null description, which clears it', () => {
    expect(issuesOf('images.update', { imageId: 'private/15', description: null })).toEqual([]);
  });
  it('rejects a description longer than 65000 characters', () => {
    expect(issuesOf('images.update', { imageId: 'private/15', description: 'x'.repeat(65001) })).toEqual([
      'description: is 65,001 characters; the most it can be is 65,000',
    ]);
  });
  it('rule 2: applies to private images only', () => {
    expect(issuesOf('images.update', { imageId: 'node/debian12', label: 'mine' })).toEqual([
      'imageId: must be a private image id (private/...)',
    ]);
  });
});

describe('images.delete', () => {
  it('rule 2: applies to private images only', () => {
    expect(issuesOf('images.delete', { imageId: 'node/debian12' })).toEqual([
      'imageId: must be a private image id (private/...)',
    ]);
    expect(issuesOf('images.delete', { imageId: 'private/15' })).toEqual([]);
  });
  it('needs approval because it cannot be undone', () => {
    expect(getOperation('images.delete').destructive?.consequence).toBe(
      'Deletes the private image; this cannot be undone.',
    );
  });
});

describe('images.list and images.view', () => {
  it('rule 1: work without a token for public images, with images:read_only for private ones', () => {
    for (const id of ['images.list', 'images.view']) {
      expect(requireOperation(id).access, id).toBe('public');
      expect(requireOperation(id).scopes, id).toEqual(['images:read_only']);
    }
  });
  it('rule 4: filter on status but never order by it', () => {
    const list = getOperation('images.list');
    expect(list.filterable).toContain('status');
    expect(list.unorderable).toEqual(['status']);
  });
  it('take a string image id', () => {
    expect(issuesOf('images.view', { imageId: 'node/debian12' })).toEqual([]);
    expect(issuesOf('images.view', { imageId: 12 })).toEqual(['imageId: must be text']);
  });
});

describe('images responses', () => {
  it.each(imageOperations.map((op) => [op.id, op] as const))(
    '%s accepts the published example',
    (_id, op) => {
      const result = responseSchemaOf(op).safeParse(publishedExample(op));
      expect(result.error?.issues ?? []).toEqual([]);
    },
  );
});
