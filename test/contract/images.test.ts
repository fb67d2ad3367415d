import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR, MINUTE } from '../../infra/local/emulator/clock.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import type { ApiClient } from '../../lib/api/client.js';
import { apiErrorOf, clientFor, op, raw, reasonsOf, STRONG_PASSWORD, startTestEmulator } from './support.js';

/** Images through the client: images rules 1-4 and the image states table. */

let emulator: RunningEmulator;
let demo: ApiClient;

type Image = { id: string; status: string; is_public: boolean; label: string; size: number };

beforeAll(async () => {
  emulator = await startTestEmulator();
  demo = clientFor(emulator, emulator.control.tokens.demo);
});

afterAll(async () => {
  await emulator?.close();
});

async function upload(label: string, region = 'us-east') {
  return (await demo.call(op('POST /images/upload'), { label, region })) as {
    image: Image;
    upload_to: string;
  };
}

function put(url: string, body: Uint8Array, contentType = 'application/octet-stream') {
  return fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body });
}

const diskImage = gzipSync(Buffer.from('raw disk image bytes '.repeat(1000)));

describe('images rules', () => {
  it('images rule 1: without a token only public images are listed or viewable', async () => {
    const anonymous = clientFor(emulator, undefined);
    const listed = (await anonymous.call(op('GET /images'), {})) as { data: Image[] };
    expect(listed.data.length).toBeGreaterThan(0);
    expect(listed.data.every((image) => image.is_public && image.id.startsWith('node/'))).toBe(true);
    const hidden = await apiErrorOf(anonymous.call(op('GET /images/{imageId}'), { imageId: 'private/101' }));
    expect(hidden.status).toBe(404);
    const mine = (await demo.call(op('GET /images'), {})) as { data: Image[] };
    expect(mine.data.some((image) => image.id === 'private/101')).toBe(true);
    await expect(demo.call(op('GET /images/{imageId}'), { imageId: 'private/101' })).resolves.toMatchObject({
      is_public: false,
    });
  });

  it('images rule 2: public images cannot be updated or deleted; deleting a private one is final', async () => {
    const token = emulator.control.tokens.demo;
    const update = await raw(emulator, 'PUT /images/{imageId}', {
      token,
      params: { imageId: 'node/debian12' },
      body: { label: 'mine now' },
    });
    expect(update.status).toBe(400);
    const remove = await raw(emulator, 'DELETE /images/{imageId}', {
      token,
      params: { imageId: 'node/debian12' },
    });
    expect(remove.status).toBe(400);
    const client = await apiErrorOf(demo.call(op('DELETE /images/{imageId}'), { imageId: 'node/debian12' }));
    expect(client.code).toBe('invalid_request');
    await demo.call(op('DELETE /images/{imageId}'), { imageId: 'private/102' });
    expect(
      (await apiErrorOf(demo.call(op('GET /images/{imageId}'), { imageId: 'private/102' }))).status,
    ).toBe(404);
  });

  it('images rule 3: the data is PUT to upload_to as application/octet-stream and the image becomes available', async () => {
    const { image, upload_to } = await upload('appliance');
    expect(image.status).toBe('pending_upload');
    const wrongType = await put(upload_to, diskImage, 'application/json');
    expect(wrongType.status).toBe(400);
    const notGzip = await put(upload_to, Buffer.from('plain text, not gzip'));
    expect(notGzip.status).toBe(400);
    const accepted = await put(upload_to, diskImage);
    expect(accepted.status).toBe(200);
    await expect(demo.call(op('GET /images/{imageId}'), { imageId: image.id })).resolves.toMatchObject({
      status: 'available',
    });
    // Once available it deploys in any region.
    const node = await demo.call(op('POST /node/instances'), {
      region: 'ap-south',
      type: 'g6-nanode-1',
      image: image.id,
      root_pass: STRONG_PASSWORD,
    });
    expect(node).toMatchObject({ image: image.id, region: 'ap-south' });
  });

  it('images rule 3: an upload not sent within 24 hours is cancelled and the image removed', async () => {
    const { image, upload_to } = await upload('forgotten');
    emulator.control.advance(23 * HOUR);
    await expect(demo.call(op('GET /images/{imageId}'), { imageId: image.id })).resolves.toMatchObject({
      status: 'pending_upload',
    });
    emulator.control.advance(HOUR);
    expect((await apiErrorOf(demo.call(op('GET /images/{imageId}'), { imageId: image.id }))).status).toBe(
      404,
    );
    expect((await put(upload_to, diskImage)).status).toBe(404);
  });

  it('images rule 4: ordering is not available on status', async () => {
    const response = await raw(emulator, 'GET /images', {
      token: emulator.control.tokens.demo,
      headers: { 'x-filter': JSON.stringify({ '+order_by': 'status' }) },
    });
    expect(response.status).toBe(400);
    expect(reasonsOf(response.body)).toEqual(['+order_by: Ordering by status is not available']);
    const filtered = (await demo.call(
      op('GET /images'),
      {},
      { filter: { status: 'available', '+order_by': 'size' } },
    )) as {
      data: Image[];
    };
    const sizes = filtered.data.map((image) => image.size);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
    const client = await apiErrorOf(demo.call(op('GET /images'), {}, { filter: { '+order_by': 'status' } }));
    expect(client.code).toBe('invalid_request');
  });
});

describe('image states', () => {
  it('a captured image is creating, then available; only available images deploy', async () => {
    const disk = [...(emulator.control.world.nodes.get(1004)?.disks.values() ?? [])][0];
    const image = (await demo.call(op('POST /images'), {
      disk_id: disk?.id as number,
      cloud_init: true,
    })) as Image;
    expect(image).toMatchObject({ status: 'creating', label: disk?.label, is_public: false });
    const early = await apiErrorOf(
      demo.call(op('POST /node/instances'), {
        region: 'us-east',
        type: 'g6-nanode-1',
        image: image.id,
        root_pass: STRONG_PASSWORD,
      }),
    );
    expect(early.message).toMatch(/only available images deploy/);
    emulator.control.advance(2 * MINUTE);
    await expect(demo.call(op('GET /images/{imageId}'), { imageId: image.id })).resolves.toMatchObject({
      status: 'available',
    });
  });

  it('capture needs the nodes:read_only scope besides images:read_write (authentication rule 2)', async () => {
    const disk = [...(emulator.control.world.nodes.get(1004)?.disks.values() ?? [])][0];
    const { token } = emulator.control.createToken('demo', { scopes: 'images:read_write' });
    const error = await apiErrorOf(
      clientFor(emulator, token).call(op('POST /images'), { disk_id: disk?.id as number }),
    );
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/nodes:read_only/);
  });
});
