import { canView, forgetEntity, grantCreator, requireGlobalGrant, requirePermission } from '../auth.js';
import { findRegion } from '../catalog.js';
import { apiTime, DAY, MINUTE } from '../clock.js';
import { badRequest, EmulatorError, notFound } from '../errors.js';
import type { DiskRecord, ImageRecord, NodeRecord, UserRecord, World } from '../world.js';
import { found } from './lookup.js';
import { empty, type GroupHandlers, type HandlerContext, json, list } from './types.js';

/**
 * Images (documents: images rules 1-4 and the image states table): capture goes `creating` →
 * `available`; an upload waits in `pending_upload` for a PUT to `upload_to` and is removed after
 * 24 hours without one.
 */

export const IMAGE_CAPTURE_MS = 2 * MINUTE;
export const UPLOAD_WINDOW_MS = DAY;
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;
export const UPLOAD_PATH_PREFIX = '/__upload/';

export function renderImage(image: ImageRecord): Record<string, unknown> {
  return {
    id: image.id,
    label: image.label,
    description: image.description,
    capabilities: [...image.capabilities],
    created: apiTime(image.created),
    updated: apiTime(image.updated),
    created_by: image.created_by,
    deprecated: image.deprecated,
    eol: image.eol,
    expiry: image.expiry === null ? null : apiTime(image.expiry),
    is_public: image.is_public,
    size: image.size,
    type: image.type,
    vendor: image.vendor,
    status: image.status,
  };
}

/** Rule 1: without a token only public images; with one, the private images the user may see. */
export function imageVisible(image: ImageRecord, user: UserRecord | undefined): boolean {
  if (image.is_public) return true;
  return user !== undefined && canView(user, 'image', image.id);
}

export function newPrivateImage(
  world: World,
  spec: Pick<
    ImageRecord,
    'label' | 'description' | 'capabilities' | 'size' | 'status' | 'region' | 'created_by'
  >,
): ImageRecord {
  const now = world.now();
  const image: ImageRecord = {
    ...spec,
    id: `private/${world.nextId('image', 101)}`,
    created: now,
    updated: now,
    deprecated: false,
    eol: null,
    expiry: null,
    is_public: false,
    type: 'manual',
    vendor: null,
    uploadDeadline: null,
  };
  world.images.set(image.id, image);
  return image;
}

function findDisk(world: World, diskId: number): { node: NodeRecord; disk: DiskRecord } | undefined {
  for (const node of world.nodes.values()) {
    const disk = node.disks.get(diskId);
    if (disk) return { node, disk };
  }
  return undefined;
}

function visibleImage(ctx: HandlerContext): ImageRecord {
  const image = ctx.world.images.get(ctx.input.text('imageId'));
  return found(image && imageVisible(image, ctx.caller?.user) ? image : undefined, 'Image');
}

/** Rule 2: only private images change or go. */
function privateImageFor(ctx: HandlerContext): ImageRecord {
  const image = visibleImage(ctx);
  if (image.is_public) throw badRequest('Public images cannot be changed or deleted', 'imageId');
  requirePermission(ctx.user, 'image', image.id, 'read_write');
  return image;
}

export const imageHandlers: GroupHandlers<'images'> = {
  'images.list': (ctx) =>
    list(
      [...ctx.world.images.values()].filter((image) => imageVisible(image, ctx.caller?.user)),
      renderImage,
    ),

  // Capture from a node disk: `creating`, then `available`.
  'images.create': (ctx) => {
    requireGlobalGrant(ctx.user, 'add_images');
    const diskId = ctx.input.int('disk_id');
    const source = findDisk(ctx.world, diskId);
    if (!source) throw badRequest(`Disk ${diskId} does not exist`, 'disk_id');
    requirePermission(ctx.user, 'node', source.node.id, 'read_only');
    if (source.disk.filesystem === 'swap') throw badRequest('A swap disk cannot be captured', 'disk_id');
    const image = newPrivateImage(ctx.world, {
      label: ctx.input.optionalText('label') ?? source.disk.label,
      description: ctx.input.optionalText('description') ?? null,
      capabilities: ctx.input.optionalBool('cloud_init') ? ['cloud-init'] : [],
      size: source.disk.size,
      status: 'creating',
      region: source.node.region,
      created_by: ctx.user.username,
    });
    grantCreator(ctx.user, 'image', image.id);
    ctx.world.schedule(ctx.world.workDoneAt(IMAGE_CAPTURE_MS), (at) => {
      if (ctx.world.images.get(image.id) === image && image.status === 'creating') {
        image.status = 'available';
        image.updated = at;
      }
    });
    return json(renderImage(image));
  },

  // Rule 3: the data goes to `upload_to` within 24 hours, else the image is removed.
  'images.upload': (ctx) => {
    requireGlobalGrant(ctx.user, 'add_images');
    const region = ctx.input.text('region');
    if (!findRegion(region)) throw badRequest(`${region} is not a region`, 'region');
    const image = newPrivateImage(ctx.world, {
      label: ctx.input.text('label'),
      description: ctx.input.optionalText('description') ?? null,
      capabilities: ctx.input.optionalBool('cloud_init') ? ['cloud-init'] : [],
      size: 0,
      status: 'pending_upload',
      region,
      created_by: ctx.user.username,
    });
    image.uploadDeadline = ctx.now + UPLOAD_WINDOW_MS;
    const sessionId = ctx.world.random.hex(24);
    ctx.world.uploads.set(sessionId, { id: sessionId, imageId: image.id, expiresAt: image.uploadDeadline });
    grantCreator(ctx.user, 'image', image.id);
    ctx.world.schedule(image.uploadDeadline, () => {
      ctx.world.uploads.delete(sessionId);
      if (ctx.world.images.get(image.id) === image && image.status === 'pending_upload') {
        ctx.world.images.delete(image.id);
        forgetEntity(ctx.world, 'image', image.id);
      }
    });
    return json({ image: renderImage(image), upload_to: `${ctx.origin}${UPLOAD_PATH_PREFIX}${sessionId}` });
  },

  'images.view': (ctx) => json(renderImage(visibleImage(ctx))),

  'images.update': (ctx) => {
    const image = privateImageFor(ctx);
    const label = ctx.input.optionalText('label');
    if (label !== undefined) image.label = label;
    const description = ctx.input.nullableText('description');
    if (description !== undefined) image.description = description;
    image.updated = ctx.now;
    return json(renderImage(image));
  },

  'images.delete': (ctx) => {
    const image = privateImageFor(ctx);
    ctx.world.images.delete(image.id);
    for (const [id, session] of ctx.world.uploads)
      if (session.imageId === image.id) ctx.world.uploads.delete(id);
    forgetEntity(ctx.world, 'image', image.id);
    return empty();
  },
};

export interface ReceivedUpload {
  contentType: string | undefined;
  bytes: number;
  /** The first bytes of the body: gzip data starts with 1f 8b. */
  head: Uint8Array;
}

/** Rule 3: the upload PUT; the data makes the image available. Returns the HTTP status. */
export function receiveUpload(world: World, sessionId: string, upload: ReceivedUpload): number {
  const session = world.uploads.get(sessionId);
  if (!session || session.expiresAt <= world.now()) throw notFound('Upload address not found or expired');
  const image = world.images.get(session.imageId);
  if (image?.status !== 'pending_upload') throw notFound('Upload address not found or expired');
  if (upload.contentType?.split(';')[0]?.trim().toLowerCase() !== 'application/octet-stream') {
    throw new EmulatorError(400, [{ field: 'Content-Type', reason: 'must be application/octet-stream' }]);
  }
  if (upload.bytes > MAX_UPLOAD_BYTES) throw badRequest('The image may be at most 5 GB compressed');
  if (upload.bytes < 2 || upload.head[0] !== 0x1f || upload.head[1] !== 0x8b) {
    throw badRequest('The image must be a gzip-compressed raw disk image');
  }
  world.uploads.delete(sessionId);
  image.status = 'available';
  image.size = Math.max(1, Math.ceil(upload.bytes / (1024 * 1024)));
  image.updated = world.now();
  image.uploadDeadline = null;
  return 200;
}
