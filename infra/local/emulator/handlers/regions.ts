import { findRegion, REGIONS, type Region } from '../catalog.js';
import { found } from './lookup.js';
import { type GroupHandlers, json, list } from './types.js';

/** Regions (API-FACTS-MORE.md §7): public, the provider's fixed catalogue. */

function renderRegion(region: Region): Record<string, unknown> {
  return {
    id: region.id,
    label: region.label,
    country: region.country,
    capabilities: [...region.capabilities],
    status: region.status,
    resolvers: { ...region.resolvers },
  };
}

export const regionHandlers: GroupHandlers<'regions'> = {
  'regions.list': () => list(REGIONS, renderRegion),
  'regions.view': (ctx) => json(renderRegion(found(findRegion(ctx.input.text('regionId')), 'Region'))),
};
