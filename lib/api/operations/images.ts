import * as z from 'zod';
import {
  bool,
  DateTimeSchema,
  defineOperation,
  EmptyResultSchema,
  IdSchema,
  lazySchema,
  PageQuerySchema,
  StringIdSchema,
  text,
} from '../operation.js';
import '../../zod-settings.js';

export const imageSchema = lazySchema(() =>
  z.object({
    /** `node/...` for public images, `private/...` for private ones. */
    id: z.string(),
    label: z.string(),
    description: z.string().nullable().optional(),
    capabilities: z.array(z.string()).optional(),
    created: DateTimeSchema.optional(),
    updated: DateTimeSchema.optional(),
    created_by: z.string().optional(),
    deprecated: z.boolean().optional(),
    eol: DateTimeSchema.nullable().optional(),
    expiry: DateTimeSchema.nullable().optional(),
    is_public: z.boolean().optional(),
    size: z.number().int().optional(),
    /** creating, pending_upload or available; only available images can be deployed. */
    status: z.string(),
    type: z.string().optional(),
    vendor: z.string().nullable().optional(),
  }),
);
export type Image = z.infer<ReturnType<typeof imageSchema>>;

export const imageUploadSchema = lazySchema(() =>
  z.object({
    /** Where to PUT the gzip-compressed disk image, within 24 hours. */
    upload_to: z.string(),
    image: imageSchema(),
  }),
);
export type ImageUpload = z.infer<ReturnType<typeof imageUploadSchema>>;

const imageDescriptionSchema = lazySchema(() => text(1, 65000));

// Rule 2: only private images can be changed or deleted.
const PrivateImageRef = {
  imageId: StringIdSchema.regex(/^private\//, 'must be a private image id (private/...)'),
};

export const imageOperations = [
  defineOperation({
    group: 'images',
    action: 'list',
    aliases: ['ls'],
    summary: 'List public images and, with a token, your private ones',
    method: 'GET',
    path: '/images',
    // Rule 1: without a token only public images are listed.
    access: 'public',
    scopes: ['images:read_only'],
    paginated: true,
    filterable: ['label', 'deprecated', 'is_public', 'size', 'type', 'vendor', 'status'],
    // Rule 4: no ordering on status.
    unorderable: ['status'],
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: imageSchema,
    example: 'images list --is-public false',
  }),
  defineOperation({
    group: 'images',
    action: 'create',
    aliases: ['capture'],
    summary: "Capture a private image from a node's disk",
    method: 'POST',
    path: '/images',
    scopes: ['images:read_write', 'nodes:read_only'],
    // The documents name no grant here; the published spec declares add_images.
    grants: ['add_images'],
    paginated: false,
    request: () =>
      z.strictObject({
        disk_id: IdSchema,
        label: text(1).optional(),
        description: imageDescriptionSchema().optional(),
        cloud_init: bool().optional(),
      }),
    response: imageSchema,
    watch: { statusField: 'status', final: ['available'], view: 'images.view' },
    example: 'images create --disk-id 25674 --label web-golden --cloud-init true',
  }),
  defineOperation({
    group: 'images',
    action: 'upload',
    summary: 'Start an image upload: returns the address to send the disk image to within 24 hours',
    method: 'POST',
    path: '/images/upload',
    scopes: ['images:read_write'],
    grants: ['add_images'],
    paginated: false,
    // `upload_to` is a signed address: whoever holds it can upload an image into the account.
    sensitive: true,
    request: () =>
      z.strictObject({
        label: text(1),
        region: text(1),
        description: imageDescriptionSchema().optional(),
        cloud_init: bool().optional(),
      }),
    response: imageUploadSchema,
    // The result nests the image (`{image, upload_to}`); the watched status is the image's.
    watch: { statusField: 'status', final: ['available'], view: 'images.view' },
    example: 'images upload --label my-appliance --region eu-central',
  }),
  defineOperation({
    group: 'images',
    action: 'view',
    aliases: ['show', 'get'],
    summary: 'Show one image',
    method: 'GET',
    path: '/images/{imageId}',
    access: 'public',
    scopes: ['images:read_only'],
    paginated: false,
    request: () => z.strictObject({ imageId: StringIdSchema }),
    response: imageSchema,
    example: 'images view node/debian12',
  }),
  defineOperation({
    group: 'images',
    action: 'update',
    summary: "Change a private image's label or description",
    method: 'PUT',
    path: '/images/{imageId}',
    scopes: ['images:read_write'],
    paginated: false,
    request: () =>
      z.strictObject({
        ...PrivateImageRef,
        label: text(1).optional(),
        description: imageDescriptionSchema().nullable().optional(),
      }),
    response: imageSchema,
    example: "images update private/15 --description 'Web server base, patched monthly'",
  }),
  defineOperation({
    group: 'images',
    action: 'delete',
    aliases: ['rm'],
    summary: 'Delete a private image',
    method: 'DELETE',
    path: '/images/{imageId}',
    scopes: ['images:read_write'],
    paginated: false,
    destructive: { consequence: 'Deletes the private image; this cannot be undone.' },
    request: () => z.strictObject(PrivateImageRef),
    response: EmptyResultSchema,
    example: 'images delete private/15',
  }),
] as const;
