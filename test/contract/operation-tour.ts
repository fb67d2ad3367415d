import { Secret, TOTP } from 'otpauth';
import { MINUTE } from '../../infra/local/emulator/clock.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import { STRONG_PASSWORD } from './support.js';

/**
 * One successful request to every operation of the table, area by area, each arranged so that it
 * succeeds (earlier steps create what later ones need). The OpenAPI conformance test sends it as
 * raw HTTP and checks bodies against the published schemas; the client contract test sends it
 * through the project's client, which checks them against the rows.
 */

type Json = Record<string, unknown>;

export interface Tour {
  emulator: RunningEmulator;
  /** Sends one operation with its flat input (path, query and body fields side by side). */
  send(signature: string, input?: Json, options?: { token?: string }): Promise<unknown>;
}

const dataOf = (body: unknown) => (body as { data: Json[] }).data;
const idOf = (body: unknown) => (body as { id: number }).id;

export async function profileTour({ emulator, send }: Tour): Promise<void> {
  await send('GET /profile');
  await send('PUT /profile', { timezone: 'Europe/Berlin', email_notifications: false });
  const appId = dataOf(await send('GET /profile/apps'))[0]?.id as number;
  await send('GET /profile/apps/{appId}', { appId });
  const deviceId = dataOf(await send('GET /profile/devices'))[0]?.id as number;
  await send('GET /profile/devices/{deviceId}', { deviceId });
  await send('GET /profile/grants', {}, { token: emulator.control.tokens.restricted });
  const loginId = dataOf(await send('GET /profile/logins'))[0]?.id as number;
  await send('GET /profile/logins/{loginId}', { loginId });

  await send('POST /profile/phone-number', { iso_code: 'US', phone_number: '+1 555 0100' });
  await send('POST /profile/phone-number/verify', { otp_code: emulator.control.lastSmsCode('demo') });
  await send('DELETE /profile/phone-number');

  await send('PUT /profile/preferences', { theme: 'dark', pageSize: 50 });
  await send('GET /profile/preferences');
  await send('POST /profile/security-questions', {
    security_questions: [
      { question_id: 1, response: 'Gotham' },
      { question_id: 2, response: 'Rex the dog' },
      { question_id: 3, response: 'Blue' },
    ],
  });
  await send('GET /profile/security-questions');

  await send('GET /profile/sshkeys');
  const sshKeyId = idOf(
    await send('POST /profile/sshkeys', {
      label: 'ci',
      ssh_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx ci@example',
    }),
  );
  await send('GET /profile/sshkeys/{sshKeyId}', { sshKeyId });
  await send('PUT /profile/sshkeys/{sshKeyId}', { sshKeyId, label: 'ci-2' });
  await send('DELETE /profile/sshkeys/{sshKeyId}', { sshKeyId });

  const { secret } = (await send('POST /profile/tfa-enable')) as { secret: string };
  const tfaCode = TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: emulator.control.now() });
  await send('POST /profile/tfa-enable-confirm', { tfa_code: tfaCode });
  await send('POST /profile/tfa-disable');

  await send('GET /profile/tokens');
  const tokenId = idOf(
    await send('POST /profile/tokens', {
      label: 'ci',
      scopes: 'nodes:read_only',
      expiry: '2026-01-01T00:00:00',
    }),
  );
  await send('GET /profile/tokens/{tokenId}', { tokenId });
  await send('PUT /profile/tokens/{tokenId}', { tokenId, label: 'ci-2' });
  await send('DELETE /profile/tokens/{tokenId}', { tokenId });

  await send('DELETE /profile/apps/{appId}', { appId });
  await send('DELETE /profile/devices/{deviceId}', { deviceId });
}

export async function managedTour({ send }: Tour): Promise<void> {
  await send('GET /managed/contacts');
  const contactId = idOf(
    await send('POST /managed/contacts', {
      name: 'On Call',
      email: 'oncall@example.com',
      phone: { primary: '+1 555 0199', secondary: null },
      group: 'ops',
    }),
  );
  await send('GET /managed/contacts/{contactId}', { contactId });
  await send('PUT /managed/contacts/{contactId}', { contactId, group: 'night-ops' });
  await send('DELETE /managed/contacts/{contactId}', { contactId });

  await send('GET /managed/credentials');
  const credentialId = idOf(
    await send('POST /managed/credentials', {
      label: 'backup-admin',
      username: 'admin',
      password: 's3cret-Pass',
    }),
  );
  await send('GET /managed/credentials/sshkey');
  await send('GET /managed/credentials/{credentialId}', { credentialId });
  await send('PUT /managed/credentials/{credentialId}', { credentialId, label: 'backup-root' });
  await send('POST /managed/credentials/{credentialId}/update', {
    credentialId,
    username: 'root',
    password: 'n3w-Secret',
  });
  await send('DELETE /managed/credentials/{credentialId}', { credentialId });

  const issueId = dataOf(await send('GET /managed/issues'))[0]?.id as number;
  await send('GET /managed/issues/{issueId}', { issueId });

  const nodeId = dataOf(await send('GET /managed/node-settings'))[1]?.id as number;
  await send('GET /managed/node-settings/{nodeId}', { nodeId });
  await send('PUT /managed/node-settings/{nodeId}', {
    nodeId,
    ssh: { access: true, port: 2222, user: 'support' },
  });

  await send('GET /managed/services');
  const serviceId = idOf(
    await send('POST /managed/services', {
      service_type: 'url',
      label: 'status-page',
      address: 'https://status.example.com',
      timeout: 30,
    }),
  );
  await send('GET /managed/services/{serviceId}', { serviceId });
  await send('PUT /managed/services/{serviceId}', { serviceId, timeout: 45 });
  await send('POST /managed/services/{serviceId}/disable', { serviceId });
  await send('POST /managed/services/{serviceId}/enable', { serviceId });
  await send('DELETE /managed/services/{serviceId}', { serviceId });
  await send('GET /managed/stats');
}

export async function databaseCatalogTour({ send }: Tour): Promise<void> {
  const engineId = dataOf(await send('GET /databases/engines'))[0]?.id as string;
  await send('GET /databases/engines/{engineId}', { engineId });
  await send('GET /databases/instances');
  const typeId = dataOf(await send('GET /databases/types'))[0]?.id as string;
  await send('GET /databases/types/{typeId}', { typeId });
}

export const DATABASE_KINDS = [
  { kind: 'mysql', seededLabel: 'orders', engine: 'mysql/8.0.30' },
  { kind: 'postgresql', seededLabel: 'analytics', engine: 'postgresql/16.2' },
] as const;

export async function databaseKindTour(
  { emulator, send }: Tour,
  { kind, seededLabel, engine }: (typeof DATABASE_KINDS)[number],
): Promise<void> {
  const base = `/databases/${kind}/instances`;
  const seeded = dataOf(await send(`GET ${base}`)).find((db) => db.label === seededLabel);
  const instanceId = seeded?.id as number;
  const created = idOf(
    await send(`POST ${base}`, { label: `${kind}-new`, region: 'us-east', type: 'g6-standard-1', engine }),
  );
  await send(`GET ${base}/{instanceId}`, { instanceId });
  await send(`PUT ${base}/{instanceId}`, { instanceId, label: `${seededLabel}-main` });
  const backupId = dataOf(await send(`GET ${base}/{instanceId}/backups`, { instanceId }))[0]?.id as number;
  await send(`GET ${base}/{instanceId}/backups/{backupId}`, { instanceId, backupId });
  await send(`POST ${base}/{instanceId}/backups`, { instanceId, label: 'nightly_copy' });
  await send(`GET ${base}/{instanceId}/credentials`, { instanceId });
  await send(`GET ${base}/{instanceId}/ssl`, { instanceId });
  await send(`DELETE ${base}/{instanceId}/backups/{backupId}`, { instanceId, backupId });
  await send(`POST ${base}/{instanceId}/patch`, { instanceId });
  // Patching takes minutes; the new database provisions meanwhile.
  emulator.control.advance(30 * MINUTE);
  const remaining = dataOf(await send(`GET ${base}/{instanceId}/backups`, { instanceId }));
  await send(`POST ${base}/{instanceId}/backups/{backupId}/restore`, {
    instanceId,
    backupId: remaining[0]?.id as number,
  });
  await send(`POST ${base}/{instanceId}/credentials/reset`, { instanceId });
  await send(`DELETE ${base}/{instanceId}`, { instanceId: created });
}

export async function volumeTour({ emulator, send }: Tour): Promise<void> {
  await send('GET /volumes');
  const volumeId = idOf(await send('POST /volumes', { label: 'scratch', region: 'us-east', size: 30 }));
  await send('GET /volumes/{volumeId}', { volumeId });
  await send('PUT /volumes/{volumeId}', { volumeId, tags: ['ci'] });
  emulator.control.advance(MINUTE);
  await send('POST /volumes/{volumeId}/attach', { volumeId, node_id: 1001 });
  await send('POST /volumes/{volumeId}/clone', { volumeId, label: 'scratch-copy' });
  await send('POST /volumes/{volumeId}/detach', { volumeId });
  await send('POST /volumes/{volumeId}/resize', { volumeId, size: 60 });
  await send('DELETE /volumes/{volumeId}', { volumeId });
}

export async function imageTour({ emulator, send }: Tour): Promise<void> {
  await send('GET /images');
  const disk = [...(emulator.control.world.nodes.get(1001)?.disks.values() ?? [])][0];
  const captured = (await send('POST /images', { disk_id: disk?.id as number, label: 'web-capture' })) as {
    id: string;
  };
  await send('POST /images/upload', { label: 'appliance', region: 'us-east', cloud_init: true });
  await send('GET /images/{imageId}', { imageId: 'node/debian12' });
  await send('PUT /images/{imageId}', { imageId: 'private/101', description: 'patched' });
  await send('DELETE /images/{imageId}', { imageId: captured.id });
}

export async function nodeTour({ emulator, send }: Tour): Promise<void> {
  await send('GET /node/instances');
  const nodeId = idOf(
    await send('POST /node/instances', {
      region: 'us-east',
      type: 'g6-standard-1',
      image: 'node/debian12',
      root_pass: STRONG_PASSWORD,
      label: 'tour-1',
    }),
  );
  await send('GET /node/instances/{nodeId}', { nodeId });
  await send('PUT /node/instances/{nodeId}', { nodeId, label: 'tour-2', watchdog_enabled: false });

  // Node 1001 has backups and a current snapshot; a new snapshot puts one in progress as well.
  await send('POST /node/instances/{nodeId}/backups', { nodeId: 1001, label: 'before-deploy' });
  const backups = (await send('GET /node/instances/{nodeId}/backups', { nodeId: 1001 })) as {
    automatic: Json[];
  };
  const backupId = backups.automatic[0]?.id as number;
  await send('GET /node/instances/{nodeId}/backups/{backupId}', { nodeId: 1001, backupId });
  await send('POST /node/instances/{nodeId}/backups/{backupId}/restore', {
    nodeId: 1001,
    backupId,
    node_id: 1004,
    overwrite: true,
  });
  await send('POST /node/instances/{nodeId}/backups/enable', { nodeId: 1002 });
  await send('POST /node/instances/{nodeId}/backups/cancel', { nodeId: 1005 });
  await send('POST /node/instances/{nodeId}/boot', { nodeId: 1007 });
  await send('POST /node/instances/{nodeId}/clone', {
    nodeId: 1001,
    region: 'us-east',
    type: 'g6-standard-2',
    label: 'web-clone',
  });

  await send('GET /node/instances/{nodeId}/configs', { nodeId: 1010 });
  const rootDisk = [...(emulator.control.world.nodes.get(1010)?.disks.values() ?? [])][0];
  const configId = idOf(
    await send('POST /node/instances/{nodeId}/configs', {
      nodeId: 1010,
      label: 'rescue',
      devices: { sda: { disk_id: rootDisk?.id as number } },
    }),
  );
  await send('GET /node/instances/{nodeId}/configs/{configId}', { nodeId: 1010, configId });
  await send('PUT /node/instances/{nodeId}/configs/{configId}', {
    nodeId: 1010,
    configId,
    kernel: 'node/grub2',
    interfaces: [{ purpose: 'public' }, { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.2/24' }],
  });
  await send('DELETE /node/instances/{nodeId}/configs/{configId}', { nodeId: 1010, configId });
  await send('DELETE /node/instances/{nodeId}', { nodeId });
}

/**
 * The second published document: a node taken through reboot, shutdown, password reset, resize,
 * disks, rescue and a data centre migration (the clock moved past each action), a legacy node
 * mutated, then rebuilt; the catalogues; the events all of that wrote.
 */
export async function incidentTour({ emulator, send }: Tour): Promise<void> {
  const settle = (ms: number) => emulator.control.advance(ms);
  const nodeId = idOf(
    await send('POST /node/instances', {
      region: 'us-east',
      type: 'g6-standard-1',
      image: 'node/debian12',
      root_pass: STRONG_PASSWORD,
      label: 'incident-1',
    }),
  );
  settle(MINUTE);
  await send('POST /node/instances/{nodeId}/reboot', { nodeId });
  settle(MINUTE);
  await send('GET /node/instances/{nodeId}/ips', { nodeId });
  await send('GET /node/instances/{nodeId}/stats', { nodeId });
  await send('GET /node/instances/{nodeId}/transfer', { nodeId });
  await send('GET /node/instances/{nodeId}/volumes', { nodeId });
  const rootDiskId = dataOf(await send('GET /node/instances/{nodeId}/disks', { nodeId }))[0]?.id as number;
  await send('GET /node/instances/{nodeId}/disks/{diskId}', { nodeId, diskId: rootDiskId });

  await send('POST /node/instances/{nodeId}/shutdown', { nodeId });
  settle(MINUTE);
  await send('POST /node/instances/{nodeId}/password', { nodeId, root_pass: STRONG_PASSWORD });
  // A bigger type without growing the disks leaves room for another disk.
  await send('POST /node/instances/{nodeId}/resize', {
    nodeId,
    type: 'g6-standard-2',
    allow_auto_disk_resize: false,
  });
  settle(10 * MINUTE);
  const diskId = idOf(
    await send('POST /node/instances/{nodeId}/disks', { nodeId, size: 1024, label: 'scratch' }),
  );
  settle(MINUTE);
  await send('PUT /node/instances/{nodeId}/disks/{diskId}', { nodeId, diskId, label: 'scratch-2' });
  await send('POST /node/instances/{nodeId}/disks/{diskId}/resize', { nodeId, diskId, size: 2048 });
  settle(MINUTE);
  await send('DELETE /node/instances/{nodeId}/disks/{diskId}', { nodeId, diskId });

  await send('POST /node/instances/{nodeId}/rescue', { nodeId, devices: { sda: { disk_id: rootDiskId } } });
  settle(MINUTE);
  await send('POST /node/instances/{nodeId}/migrate', { nodeId, region: 'eu-west' });
  settle(15 * MINUTE);
  await send('POST /node/instances/{nodeId}/rebuild', {
    nodeId,
    image: 'node/ubuntu24.04',
    root_pass: STRONG_PASSWORD,
  });

  const legacyId = idOf(
    await send('POST /node/instances', {
      region: 'us-east',
      type: 'g5-standard-1',
      image: 'node/debian12',
      root_pass: STRONG_PASSWORD,
      label: 'incident-legacy',
    }),
  );
  settle(MINUTE);
  await send('POST /node/instances/{nodeId}/mutate', { nodeId: legacyId });

  await send('GET /node/types');
  await send('GET /node/types/{typeId}', { typeId: 'g6-standard-2' });
  await send('GET /node/kernels');
  await send('GET /node/kernels/{kernelId}', { kernelId: 'node/latest-64bit' });
  await send('GET /regions');
  await send('GET /regions/{regionId}', { regionId: 'us-east' });

  const eventId = dataOf(await send('GET /account/events'))[0]?.id as number;
  await send('GET /account/events/{eventId}', { eventId });
  await send('POST /account/events/{eventId}/seen', { eventId });
}
