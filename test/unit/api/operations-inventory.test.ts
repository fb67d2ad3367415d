import { describe, expect, it } from 'vitest';
import { operations } from '../../../lib/api/operations/index.js';

/**
 * Every operation of the two documents in spec/, written out by hand from their endpoint tables
 * (the managed credential delete is the documents' DELETE, not the published spec's POST revoke).
 */
const DOCUMENTED = [
  'GET /profile',
  'PUT /profile',
  'GET /profile/apps',
  'GET /profile/apps/{appId}',
  'DELETE /profile/apps/{appId}',
  'GET /profile/devices',
  'GET /profile/devices/{deviceId}',
  'DELETE /profile/devices/{deviceId}',
  'GET /profile/grants',
  'GET /profile/logins',
  'GET /profile/logins/{loginId}',
  'DELETE /profile/phone-number',
  'POST /profile/phone-number',
  'POST /profile/phone-number/verify',
  'GET /profile/preferences',
  'PUT /profile/preferences',
  'GET /profile/security-questions',
  'POST /profile/security-questions',
  'GET /profile/sshkeys',
  'POST /profile/sshkeys',
  'GET /profile/sshkeys/{sshKeyId}',
  'PUT /profile/sshkeys/{sshKeyId}',
  'DELETE /profile/sshkeys/{sshKeyId}',
  'POST /profile/tfa-disable',
  'POST /profile/tfa-enable',
  'POST /profile/tfa-enable-confirm',
  'GET /profile/tokens',
  'POST /profile/tokens',
  'GET /profile/tokens/{tokenId}',
  'PUT /profile/tokens/{tokenId}',
  'DELETE /profile/tokens/{tokenId}',
  'GET /managed/contacts',
  'POST /managed/contacts',
  'GET /managed/contacts/{contactId}',
  'PUT /managed/contacts/{contactId}',
  'DELETE /managed/contacts/{contactId}',
  'GET /managed/credentials',
  'POST /managed/credentials',
  'GET /managed/credentials/sshkey',
  'GET /managed/credentials/{credentialId}',
  'PUT /managed/credentials/{credentialId}',
  'DELETE /managed/credentials/{credentialId}',
  'POST /managed/credentials/{credentialId}/update',
  'GET /managed/issues',
  'GET /managed/issues/{issueId}',
  'GET /managed/node-settings',
  'GET /managed/node-settings/{nodeId}',
  'PUT /managed/node-settings/{nodeId}',
  'GET /managed/services',
  'POST /managed/services',
  'GET /managed/services/{serviceId}',
  'PUT /managed/services/{serviceId}',
  'DELETE /managed/services/{serviceId}',
  'POST /managed/services/{serviceId}/disable',
  'POST /managed/services/{serviceId}/enable',
  'GET /managed/stats',
  'GET /databases/engines',
  'GET /databases/engines/{engineId}',
  'GET /databases/instances',
  'GET /databases/mysql/instances',
  'GET /databases/postgresql/instances',
  'POST /databases/mysql/instances',
  'POST /databases/postgresql/instances',
  'GET /databases/mysql/instances/{instanceId}',
  'GET /databases/postgresql/instances/{instanceId}',
  'PUT /databases/mysql/instances/{instanceId}',
  'PUT /databases/postgresql/instances/{instanceId}',
  'DELETE /databases/mysql/instances/{instanceId}',
  'DELETE /databases/postgresql/instances/{instanceId}',
  'GET /databases/mysql/instances/{instanceId}/backups',
  'GET /databases/postgresql/instances/{instanceId}/backups',
  'POST /databases/mysql/instances/{instanceId}/backups',
  'POST /databases/postgresql/instances/{instanceId}/backups',
  'GET /databases/mysql/instances/{instanceId}/backups/{backupId}',
  'GET /databases/postgresql/instances/{instanceId}/backups/{backupId}',
  'DELETE /databases/mysql/instances/{instanceId}/backups/{backupId}',
  'DELETE /databases/postgresql/instances/{instanceId}/backups/{backupId}',
  'POST /databases/mysql/instances/{instanceId}/backups/{backupId}/restore',
  'POST /databases/postgresql/instances/{instanceId}/backups/{backupId}/restore',
  'GET /databases/mysql/instances/{instanceId}/credentials',
  'GET /databases/postgresql/instances/{instanceId}/credentials',
  'POST /databases/mysql/instances/{instanceId}/credentials/reset',
  'POST /databases/postgresql/instances/{instanceId}/credentials/reset',
  'POST /databases/mysql/instances/{instanceId}/patch',
  'POST /databases/postgresql/instances/{instanceId}/patch',
  'GET /databases/mysql/instances/{instanceId}/ssl',
  'GET /databases/postgresql/instances/{instanceId}/ssl',
  'GET /databases/types',
  'GET /databases/types/{typeId}',
  'GET /volumes',
  'POST /volumes',
  'GET /volumes/{volumeId}',
  'PUT /volumes/{volumeId}',
  'DELETE /volumes/{volumeId}',
  'POST /volumes/{volumeId}/attach',
  'POST /volumes/{volumeId}/clone',
  'POST /volumes/{volumeId}/detach',
  'POST /volumes/{volumeId}/resize',
  'GET /images',
  'POST /images',
  'POST /images/upload',
  'GET /images/{imageId}',
  'PUT /images/{imageId}',
  'DELETE /images/{imageId}',
  'GET /node/instances',
  'POST /node/instances',
  'GET /node/instances/{nodeId}',
  'PUT /node/instances/{nodeId}',
  'DELETE /node/instances/{nodeId}',
  'GET /node/instances/{nodeId}/backups',
  'POST /node/instances/{nodeId}/backups',
  'POST /node/instances/{nodeId}/backups/cancel',
  'POST /node/instances/{nodeId}/backups/enable',
  'GET /node/instances/{nodeId}/backups/{backupId}',
  'POST /node/instances/{nodeId}/backups/{backupId}/restore',
  'POST /node/instances/{nodeId}/boot',
  'POST /node/instances/{nodeId}/clone',
  'GET /node/instances/{nodeId}/configs',
  'POST /node/instances/{nodeId}/configs',
  'GET /node/instances/{nodeId}/configs/{configId}',
  'PUT /node/instances/{nodeId}/configs/{configId}',
  'DELETE /node/instances/{nodeId}/configs/{configId}',
];

describe('the operations table', () => {
  const table = operations.map((op) => `${op.method} ${op.path}`);

  it('holds every documented operation, 122 in all', () => {
    expect(DOCUMENTED).toHaveLength(122);
    expect([...table].sort()).toEqual([...DOCUMENTED].sort());
  });

  it('has unique ids and unique method/path pairs', () => {
    expect(new Set(operations.map((op) => op.id)).size).toBe(operations.length);
    expect(new Set(table).size).toBe(table.length);
  });

  it('counts per area as the documents do', () => {
    const count = (group: string) => operations.filter((op) => op.group === group).length;
    expect([count('profile'), count('managed'), count('databases')]).toEqual([31, 25, 33]);
    expect([count('volumes'), count('images'), count('nodes')]).toEqual([9, 6, 18]);
  });

  it('marks every DELETE as destructive', () => {
    const unmarked = operations.filter((op) => op.method === 'DELETE' && !op.destructive).map((op) => op.id);
    expect(unmarked).toEqual([]);
  });

  it('keeps aliases from clashing with actions of the same group', () => {
    for (const op of operations) {
      const names = operations
        .filter((o) => o.group === op.group)
        .flatMap((o) => [o.action, ...(o.aliases ?? [])]);
      expect(new Set(names).size, `group ${op.group}`).toBe(names.length);
    }
  });
});
