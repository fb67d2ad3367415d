import { describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../../../lib/api/operation.js';
import { ENGINE_KINDS, isOperationId } from '../../../../lib/api/operations/index.js';
import { nextActionsOf, operationOfAction, rowAccessory } from '../../../../lib/slack/render/next-actions.js';
import { routeOf } from '../../../../lib/slack/render/related-operations.js';
import { RESOURCE_KINDS, type ResourceKind } from '../../../../lib/slack/render/resource-kinds.js';
import { volume } from './fixtures.js';

/**
 * Next actions used to be found by route and an action whose route matched no operation was
 * dropped without a word. Now each names an operation; these tests keep every one real and about
 * the item it follows.
 */

/** The item routes a kind's collection regex accepts, one per database engine where it varies. */
function itemRoutesOf(kind: ResourceKind): string[] {
  const source = kind.collection.source.replace(/^\^/, '').replace(/\$$/, '').replaceAll('\\/', '/');
  const collections = source.includes('(?:')
    ? ENGINE_KINDS.map((engine) =>
        source.replace('(?:(?:mysql|postgresql)/)?', `${engine}/`).replace('(?:mysql|postgresql)', engine),
      )
    : [source];
  return collections.map((collection) => `${collection.replaceAll('\\{\\}', '{}')}/{}`);
}

const declared = RESOURCE_KINDS.flatMap((kind) =>
  (kind.actions ?? []).map((action) => ({ kind, action, name: `${kind.key}: ${action.label}` })),
);

describe('next actions of the resource kinds', () => {
  it('are declared for the kinds that offer them', () => {
    expect(declared.length).toBeGreaterThan(20);
  });

  it.each(declared.map((d) => [d.name, d] as const))(
    '%s names a real operation for every item route',
    (_name, d) => {
      if (typeof d.action.operation === 'string') expect(isOperationId(d.action.operation)).toBe(true);
      for (const route of itemRoutesOf(d.kind)) {
        const op = operationOfAction(d.action.operation, { route, values: [] });
        expect(op, route).toBeDefined();
        if (!op || d.action.values) continue;
        // Path values are the item's own, matched by position: the operation must sit on the item.
        expect(belongsToItem(op, route), `${op.id} on ${route}`).toBe(true);
      }
    },
  );
});

function belongsToItem(op: AnyOperation, itemRoute: string): boolean {
  const route = routeOf(op.path);
  return route === itemRoute || route.startsWith(`${itemRoute}/`);
}

describe('next actions fitted to where they are shown', () => {
  const volumeKind = RESOURCE_KINDS.find((kind) => kind.key === 'volume');
  if (!volumeKind) throw new Error('no volume kind');
  const ref = { route: '/volumes/{}', values: [12] };
  const onlyReads = (op: AnyOperation) => op.class === 'read';

  it('offers every action of the item where everything is allowed', () => {
    expect(nextActionsOf(volumeKind, volume, ref).map((a) => a.op.id)).toEqual([
      'volumes.detach',
      'volumes.delete',
    ]);
    expect(JSON.stringify(rowAccessory(volumeKind, volume, ref))).toContain('volumes.detach');
  });

  it('offers none the channel or token would refuse: a read-only row keeps only View', () => {
    expect(nextActionsOf(volumeKind, volume, ref, onlyReads)).toEqual([]);
    const accessory = rowAccessory(volumeKind, volume, ref, onlyReads);
    expect(accessory).toMatchObject({ type: 'button', text: { text: 'View' } });
    expect(JSON.stringify(accessory)).not.toContain('volumes.detach');
  });
});
