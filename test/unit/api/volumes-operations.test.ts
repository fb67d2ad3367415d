import { describe, expect, it } from 'vitest';
import { issuesOf } from '../../support/openapi-examples.js';

describe('volumes.create', () => {
  it('accepts a label with a region', () => {
    expect(issuesOf('volumes.create', { label: 'data', region: 'us-east', size: 20 })).toEqual([]);
  });
  it('rule 2: needs a region when no node_id is given', () => {
    expect(issuesOf('volumes.create', { label: 'data' })).toEqual([
      'region: is required when node_id is not given',
    ]);
  });
  it('rule 2: rejects config_id without node_id', () => {
    expect(issuesOf('volumes.create', { label: 'data', region: 'us-east', config_id: 3 })).toEqual([
      'config_id: may only be given with node_id',
    ]);
  });
  it('rejects a label longer than 32 characters', () => {
    expect(issuesOf('volumes.create', { label: 'x'.repeat(33), region: 'us-east' })).toEqual([
      'label: is 33 characters; the most it can be is 32',
    ]);
  });
});

describe('volumes.attach', () => {
  it('accepts a volume id and a node id', () => {
    expect(issuesOf('volumes.attach', { volumeId: 12, node_id: 34 })).toEqual([]);
  });
  it('requires node_id', () => {
    expect(issuesOf('volumes.attach', { volumeId: 12 })).toEqual(['node_id: is required']);
  });
  it('rejects a volume id that is not a whole number', () => {
    expect(issuesOf('volumes.attach', { volumeId: 'twelve', node_id: 3 })).toEqual([
      'volumeId: must be a whole number',
    ]);
  });
  it('rule 3: rejects config_id when persist_across_boots is false', () => {
    expect(
      issuesOf('volumes.attach', { volumeId: 12, node_id: 3, config_id: 1, persist_across_boots: false }),
    ).toEqual(['config_id: must not be given when persist_across_boots is false']);
  });
});

describe('volumes.list', () => {
  it('rejects a page_size outside 25..500', () => {
    expect(issuesOf('volumes.list', { page_size: 10 })).toEqual(['page_size: must be between 25 and 500']);
    expect(issuesOf('volumes.list', { page_size: 501 })).toEqual(['page_size: must be between 25 and 500']);
    expect(issuesOf('volumes.list', { page_size: 25 })).toEqual([]);
  });
  it('rejects unknown fields', () => {
    expect(issuesOf('volumes.list', { colour: 'red' })).toHaveLength(1);
  });
});
