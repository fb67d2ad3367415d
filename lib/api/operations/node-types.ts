import * as z from 'zod';
import {
  DateTimeSchema,
  defineOperation,
  lazySchema,
  PageQuerySchema,
  StringIdSchema,
} from '../operation.js';
import '../../zod-settings.js';

/**
 * Node types with their prices, and kernels (API-FACTS-MORE.md §5 and §6): public catalogues, no
 * token needed. Types carry the prices a resize changes between.
 */

const priceSchema = lazySchema(() => z.object({ hourly: z.number(), monthly: z.number() }));
/** A region whose price differs from the default; `id` is the region's id. */
const regionPriceSchema = lazySchema(() =>
  z.object({ id: z.string(), hourly: z.number(), monthly: z.number() }),
);

export const nodeTypeSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    label: z.string(),
    /** nano, standard, dedicated, premium, gpu, highmem. */
    class: z.string(),
    /** MB */
    disk: z.number().int(),
    /** MB */
    memory: z.number().int(),
    vcpus: z.number().int(),
    gpus: z.number().int(),
    /** Mbit/s */
    network_out: z.number().int(),
    transfer: z.number().int(),
    /** US dollars. */
    price: priceSchema(),
    region_prices: z.array(regionPriceSchema()),
    addons: z
      .object({
        backups: z.object({ price: priceSchema(), region_prices: z.array(regionPriceSchema()) }),
      })
      .optional(),
    /** The type a mutate moves to; null when the type cannot be mutated. */
    successor: z.string().nullable(),
  }),
);
export type NodeType = z.infer<ReturnType<typeof nodeTypeSchema>>;
export type Price = z.infer<ReturnType<typeof priceSchema>>;

/**
 * A type's price in a region: that region's `region_prices` entry if it has one, otherwise the
 * default `price` (§5). What a resize costs is the difference between two of these.
 */
export function priceIn(type: Pick<NodeType, 'price' | 'region_prices'>, region: string): Price {
  const own = type.region_prices.find((p) => p.id === region);
  return own ? { hourly: own.hourly, monthly: own.monthly } : type.price;
}

export const kernelSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    label: z.string(),
    version: z.string(),
    kvm: z.boolean(),
    /** x86_64 or i386. */
    architecture: z.string(),
    pvops: z.boolean(),
    deprecated: z.boolean(),
    built: DateTimeSchema.nullable().optional(),
  }),
);
export type Kernel = z.infer<ReturnType<typeof kernelSchema>>;

export const nodeTypeOperations = [
  defineOperation({
    group: 'nodes',
    action: 'types',
    aliases: ['types-list'],
    summary: 'List node types with their resources and monthly prices',
    method: 'GET',
    path: '/node/types',
    access: 'public',
    scopes: [],
    paginated: true,
    // The envelope is returned, but the spec declares no page parameters (§1, note 2).
    pageParams: false,
    filterable: ['label', 'class', 'disk', 'memory', 'vcpus', 'gpus', 'network_out', 'transfer'],
    request: () => z.strictObject({}),
    response: nodeTypeSchema,
    example: 'nodes types --class dedicated',
  }),
  defineOperation({
    group: 'nodes',
    action: 'types-view',
    aliases: ['type-view'],
    summary: 'Show one node type with its prices and region prices',
    method: 'GET',
    path: '/node/types/{typeId}',
    access: 'public',
    scopes: [],
    paginated: false,
    request: () => z.strictObject({ typeId: StringIdSchema }),
    response: nodeTypeSchema,
    example: 'nodes types-view g6-standard-2',
  }),
  defineOperation({
    group: 'nodes',
    action: 'kernels-list',
    aliases: ['kernels'],
    summary: 'List the kernels a configuration profile can boot',
    method: 'GET',
    path: '/node/kernels',
    access: 'public',
    scopes: [],
    paginated: true,
    filterable: ['label', 'version', 'kvm', 'architecture', 'pvops', 'deprecated'],
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: kernelSchema,
    example: 'nodes kernels-list --architecture x86_64',
  }),
  defineOperation({
    group: 'nodes',
    action: 'kernels-view',
    aliases: ['kernel-view'],
    summary: 'Show one kernel',
    method: 'GET',
    path: '/node/kernels/{kernelId}',
    access: 'public',
    scopes: [],
    paginated: false,
    request: () => z.strictObject({ kernelId: StringIdSchema }),
    response: kernelSchema,
    example: 'nodes kernels-view node/latest-64bit',
  }),
] as const;
