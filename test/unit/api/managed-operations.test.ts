import { describe, expect, it } from 'vitest';
import { responseSchemaOf } from '../../../lib/api/operation.js';
import { getOperation, requireOperation } from '../../../lib/api/operations/index.js';
import {
  isPrivateIpAddress,
  managedOperations,
  managedStatsSchema,
} from '../../../lib/api/operations/managed.js';
import { exampleOf, issuesOf, publishedExample } from '../../support/openapi-examples.js';

describe('managed operations', () => {
  it('are for unrestricted users only', () => {
    const others = managedOperations
      .filter((op) => op.grants?.join() !== 'unrestricted_only')
      .map((op) => op.id);
    expect(others).toEqual([]);
  });
  it('delete a credential with DELETE, as the document says', () => {
    const op = getOperation('managed.credentials-delete');
    expect(`${op.method} ${op.path}`).toBe('DELETE /managed/credentials/{credentialId}');
  });
  it('mark every DELETE as needing approval, and nothing else', () => {
    const destructive = managedOperations.filter((op) => op.destructive).map((op) => op.id);
    expect(destructive).toEqual([
      'managed.contacts-delete',
      'managed.credentials-delete',
      'managed.services-delete',
    ]);
  });
  it('send no page parameters to the services list, which declares none', () => {
    expect(getOperation('managed.services-list').paginated).toBe(true);
    expect(getOperation('managed.services-list').queryParams).toEqual([]);
    expect(getOperation('managed.issues-list').queryParams).toEqual(['page', 'page_size']);
  });
  it('filter contacts by group', () => {
    expect(getOperation('managed.contacts-list').filterable).toEqual(['group']);
  });
});

describe('managed.contacts-create and contacts-update', () => {
  it('accepts a contact with a null secondary phone and a null group', () => {
    expect(
      issuesOf('managed.contacts-create', {
        name: 'John Doe',
        email: 'john.doe@example.org',
        phone: { primary: '123-456-7890', secondary: null },
        group: null,
      }),
    ).toEqual([]);
  });
  it('rejects a name outside 2..64 characters', () => {
    expect(issuesOf('managed.contacts-create', { name: 'J' })).toEqual(['name: must be 2 to 64 characters']);
    expect(issuesOf('managed.contacts-update', { contactId: 567, name: 'x'.repeat(65) })).toEqual([
      'name: is 65 characters; the most it can be is 64',
    ]);
  });
  it('rejects a group outside 2..50 characters', () => {
    expect(issuesOf('managed.contacts-create', { group: 'x' })).toEqual([
      'group: must be 2 to 50 characters',
    ]);
    expect(issuesOf('managed.contacts-create', { group: 'x'.repeat(51) })).toEqual([
      'group: is 51 characters; the most it can be is 50',
    ]);
  });
  it('rejects an email that is not an address', () => {
    expect(issuesOf('managed.contacts-create', { email: 'john' })).toEqual([
      'email: must be an e-mail address',
    ]);
  });
  it('rule 1: takes phone as an object of primary and secondary', () => {
    expect(issuesOf('managed.contacts-create', { phone: '123-456-7890' })).toEqual([
      'phone: must be an object with primary and secondary',
    ]);
    expect(issuesOf('managed.contacts-create', { phone: { primary: null } })).toEqual([
      'phone.primary: must be text',
    ]);
  });
});

describe('managed.credentials-create', () => {
  it('accepts a label, a username and a password', () => {
    expect(
      issuesOf('managed.credentials-create', {
        label: 'prod-password-1',
        username: 'johndoe',
        password: 's3cret',
      }),
    ).toEqual([]);
  });
  it('requires label and password', () => {
    expect(issuesOf('managed.credentials-create', { username: 'johndoe' })).toEqual([
      'label: is required',
      'password: is required',
    ]);
  });
  it('rejects a label outside 2..75 characters', () => {
    expect(issuesOf('managed.credentials-create', { label: 'p', password: 's3cret' })).toEqual([
      'label: must be 2 to 75 characters',
    ]);
    expect(issuesOf('managed.credentials-create', { label: 'x'.repeat(76), password: 's3cret' })).toEqual([
      'label: is 76 characters; the most it can be is 75',
    ]);
  });
  it('rule 3: rejects a username longer than 5000 characters', () => {
    expect(
      issuesOf('managed.credentials-create', {
        label: 'prod',
        password: 's3cret',
        username: 'x'.repeat(5001),
      }),
    ).toEqual(['username: is 5,001 characters; the most it can be is 5,000']);
  });
});

describe('managed.credentials-update and credentials-update-login', () => {
  it('rule 2: PUT changes only the label', () => {
    expect(issuesOf('managed.credentials-update', { credentialId: 9991, label: 'prod-password-2' })).toEqual(
      [],
    );
    expect(issuesOf('managed.credentials-update', { credentialId: 9991, password: 'n3w' })).toHaveLength(1);
  });
  it('rejects a label outside 2..75 characters', () => {
    expect(issuesOf('managed.credentials-update', { credentialId: 9991, label: 'p' })).toEqual([
      'label: must be 2 to 75 characters',
    ]);
  });
  it('accepts a new username and password', () => {
    expect(
      issuesOf('managed.credentials-update-login', {
        credentialId: 9991,
        username: 'johndoe',
        password: 'n3w',
      }),
    ).toEqual([]);
  });
  it('requires password on the login update', () => {
    expect(issuesOf('managed.credentials-update-login', { credentialId: 9991, username: 'johndoe' })).toEqual(
      ['password: is required'],
    );
  });
  it('rule 3: rejects a username longer than 5000 characters on the login update', () => {
    expect(
      issuesOf('managed.credentials-update-login', {
        credentialId: 9991,
        password: 'n3w',
        username: 'x'.repeat(5001),
      }),
    ).toEqual(['username: is 5,001 characters; the most it can be is 5,000']);
  });
});

describe('managed.node-settings-update', () => {
  it('accepts ssh settings, with null port and user for the defaults', () => {
    expect(
      issuesOf('managed.node-settings-update', {
        nodeId: 123,
        ssh: { access: true, ip: '203.0.113.1', port: null, user: null },
      }),
    ).toEqual([]);
  });
  it('rejects a port outside 1..65535', () => {
    expect(issuesOf('managed.node-settings-update', { nodeId: 123, ssh: { port: 70000 } })).toEqual([
      'ssh.port: must be between 1 and 65535',
    ]);
  });
  it('rejects ssh that is not an object', () => {
    expect(issuesOf('managed.node-settings-update', { nodeId: 123, ssh: true })).toEqual([
      'ssh: must be an object with access, ip, port and user',
    ]);
  });
});

describe('managed.services-create', () => {
  const service = { service_type: 'url', label: 'shop', address: 'https://shop.example.org', timeout: 30 };

  it('accepts a public URL without a region', () => {
    expect(
      issuesOf('managed.services-create', {
        ...service,
        body: null,
        notes: 'restart php-fpm',
        credentials: [9991],
      }),
    ).toEqual([]);
  });
  it('requires service_type, label, address and timeout', () => {
    expect(issuesOf('managed.services-create', {})).toEqual([
      'service_type: is required',
      'label: is required',
      'address: is required',
      'timeout: is required',
    ]);
  });
  it('rejects a service_type outside url, tcp', () => {
    expect(issuesOf('managed.services-create', { ...service, service_type: 'ping' })).toEqual([
      'service_type: must be one of url, tcp',
    ]);
  });
  it('rejects an address outside 3..100 characters', () => {
    expect(issuesOf('managed.services-create', { ...service, address: 'ab' })).toEqual([
      'address: must be 3 to 100 characters',
    ]);
    expect(issuesOf('managed.services-create', { ...service, address: `https://${'x'.repeat(93)}` })).toEqual(
      ['address: is 101 characters; the most it can be is 100'],
    );
  });
  it('rejects a label outside 3..64 characters', () => {
    expect(issuesOf('managed.services-create', { ...service, label: 'ab' })).toEqual([
      'label: must be 3 to 64 characters',
    ]);
    expect(issuesOf('managed.services-create', { ...service, label: 'x'.repeat(65) })).toEqual([
      'label: is 65 characters; the most it can be is 64',
    ]);
  });
  it('rejects a timeout outside 1..255 seconds', () => {
    expect(issuesOf('managed.services-create', { ...service, timeout: 0 })).toEqual([
      'timeout: must be between 1 and 255',
    ]);
    expect(issuesOf('managed.services-create', { ...service, timeout: 256 })).toEqual([
      'timeout: must be between 1 and 255',
    ]);
  });
  it('rejects a body longer than 100 characters', () => {
    expect(issuesOf('managed.services-create', { ...service, body: 'x'.repeat(101) })).toEqual([
      'body: is 101 characters; the most it can be is 100',
    ]);
  });
  it('rejects a consultation_group longer than 50 characters', () => {
    expect(issuesOf('managed.services-create', { ...service, consultation_group: 'x'.repeat(51) })).toEqual([
      'consultation_group: is 51 characters; the most it can be is 50',
    ]);
  });
  it('rule 4: requires a region for a private-IP address, bare or in a URL', () => {
    expect(issuesOf('managed.services-create', { ...service, address: 'http://10.0.0.5/' })).toEqual([
      'region: is required when address is a private IP',
    ]);
    expect(
      issuesOf('managed.services-create', { ...service, service_type: 'tcp', address: '192.168.1.20:3306' }),
    ).toEqual(['region: is required when address is a private IP']);
    expect(
      issuesOf('managed.services-create', {
        ...service,
        address: 'http://172.16.0.9/health',
        region: 'us-east',
      }),
    ).toEqual([]);
  });
  it('rule 4: rejects a region for a public address', () => {
    expect(issuesOf('managed.services-create', { ...service, region: 'us-east' })).toEqual([
      'region: may only be given when address is a private IP',
    ]);
  });
});

describe('managed.services-update', () => {
  it('accepts a region alone, since the stored address is not known here', () => {
    expect(issuesOf('managed.services-update', { serviceId: 9944, region: 'us-east' })).toEqual([]);
  });
  it('accepts a private address alone, since the stored region is not known here', () => {
    expect(issuesOf('managed.services-update', { serviceId: 9944, address: 'http://10.0.0.5/' })).toEqual([]);
  });
  it('rule 4: rejects a region given with a public address', () => {
    expect(
      issuesOf('managed.services-update', {
        serviceId: 9944,
        address: 'https://example.org',
        region: 'us-east',
      }),
    ).toEqual(['region: may only be given when address is a private IP']);
  });
  it('keeps the create rules on the fields it is given', () => {
    expect(issuesOf('managed.services-update', { serviceId: 9944, timeout: 300 })).toEqual([
      'timeout: must be between 1 and 255',
    ]);
  });
});

describe('isPrivateIpAddress', () => {
  it('knows the edges of 172.16/12', () => {
    expect(isPrivateIpAddress('172.15.255.255')).toBe(false);
    expect(isPrivateIpAddress('172.16.0.1')).toBe(true);
    expect(isPrivateIpAddress('172.31.255.255')).toBe(true);
    expect(isPrivateIpAddress('172.32.0.1')).toBe(false);
  });
  it('treats host names and malformed addresses as public', () => {
    expect(isPrivateIpAddress('https://10.example.org/')).toBe(false);
    expect(isPrivateIpAddress('10.0.0.256')).toBe(false);
    expect(isPrivateIpAddress('https://192.168.0.1.example.org')).toBe(false);
  });
});

describe('managed responses', () => {
  it.each([
    'managed.contacts-list',
    'managed.contacts-create',
    'managed.contacts-view',
    'managed.contacts-update',
    'managed.credentials-list',
    'managed.credentials-create',
    'managed.credentials-sshkey',
    'managed.credentials-view',
    'managed.credentials-update',
    'managed.issues-list',
    'managed.issues-view',
    'managed.node-settings-list',
    'managed.node-settings-view',
    'managed.node-settings-update',
    'managed.services-list',
    'managed.services-create',
    'managed.services-view',
    'managed.services-update',
    'managed.services-disable',
    'managed.services-enable',
    'managed.stats',
  ])('%s accepts the published example', (id) => {
    const op = requireOperation(id);
    const example = publishedExample(op);
    expect(example).toBeDefined();
    const result = responseSchemaOf(op).safeParse(example);
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it('stats accepts the messages sent while graphs are not available', () => {
    const messages = exampleOf({ $ref: '#/components/schemas/StatsDataUnavailable' });
    expect(messages).toEqual(['Graphs are not yet available.']);
    expect(managedStatsSchema().safeParse({ data: messages }).success).toBe(true);
  });
  it('stats rejects a series without its points', () => {
    expect(managedStatsSchema().safeParse({ data: { cpu: [{ x: 1 }] } }).success).toBe(false);
  });
});
