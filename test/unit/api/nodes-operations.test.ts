import { describe, expect, it } from 'vitest';
import { responseSchemaOf } from '../../../lib/api/operation.js';
import { getOperation, requireOperation } from '../../../lib/api/operations/index.js';
import { nodeOperations } from '../../../lib/api/operations/nodes.js';
import { issuesOf, publishedExample } from '../../support/openapi-examples.js';

const fromImage = {
  region: 'us-east',
  type: 'g6-standard-1',
  image: 'node/debian12',
  root_pass: 'c0rrect-Horse-battery',
};
const publicInterface = { purpose: 'public', primary: true };
const vlanInterface = { purpose: 'vlan', label: 'backend-1', ipam_address: '10.0.0.1/24' };
const vpcInterface = { purpose: 'vpc', subnet_id: 101, ipv4: { vpc: '10.0.1.2', nat_1_1: 'any' } };

describe('nodes.create', () => {
  it('accepts a node from an image with a root password', () => {
    expect(issuesOf('nodes.create', { ...fromImage, label: 'web-1.prod_eu' })).toEqual([]);
  });
  it('accepts an empty node with only region and type', () => {
    expect(issuesOf('nodes.create', { region: 'us-east', type: 'g6-standard-1' })).toEqual([]);
  });
  it('requires region and type', () => {
    expect(issuesOf('nodes.create', {})).toEqual(['region: is required', 'type: is required']);
  });
  it('rejects a label outside 3..64 characters', () => {
    expect(issuesOf('nodes.create', { ...fromImage, label: 'ab' })).toEqual([
      'label: must be 3 to 64 characters',
    ]);
    expect(issuesOf('nodes.create', { ...fromImage, label: 'a'.repeat(65) })).toEqual([
      'label: is 65 characters; the most it can be is 64',
    ]);
  });
  it('rejects a label with characters other than alphanumerics, hyphen, underscore and period', () => {
    expect(issuesOf('nodes.create', { ...fromImage, label: 'web 1' })).toEqual([
      'label: may contain only letters, digits, hyphens, underscores and periods',
    ]);
  });
  it('rejects a label that does not begin and end alphanumeric', () => {
    for (const label of ['-web1', 'web1_', '.web']) {
      expect(issuesOf('nodes.create', { ...fromImage, label })).toEqual([
        'label: must begin and end with a letter or digit',
      ]);
    }
  });
  it('rejects a label with two hyphens, underscores or periods in a row', () => {
    for (const label of ['web--1', 'web__1', 'web..1', 'web-.1']) {
      expect(issuesOf('nodes.create', { ...fromImage, label })).toEqual([
        'label: must not have two hyphens, underscores or periods in a row',
      ]);
    }
  });
  it('rejects a root_pass outside 7..128 characters', () => {
    expect(issuesOf('nodes.create', { ...fromImage, root_pass: 'abc123' })).toEqual([
      'root_pass: must be 7 to 128 characters',
    ]);
    expect(issuesOf('nodes.create', { ...fromImage, root_pass: 'x'.repeat(129) })).toEqual([
      'root_pass: is 129 characters; the most it can be is 128',
    ]);
  });
  it('requires root_pass when deploying from an image or with a StackScript', () => {
    expect(
      issuesOf('nodes.create', { region: 'us-east', type: 'g6-standard-1', image: 'node/debian12' }),
    ).toEqual(['root_pass: is required when deploying from an image or with a StackScript']);
  });
  it('rule 4: backup_id and image exclude each other', () => {
    expect(issuesOf('nodes.create', { ...fromImage, backup_id: 1234 })).toEqual([
      'backup_id: cannot be given together with image',
    ]);
  });
  it('accepts a node from another node’s backup without root_pass', () => {
    expect(issuesOf('nodes.create', { region: 'us-east', type: 'g6-standard-2', backup_id: 1234 })).toEqual(
      [],
    );
  });
  it('rejects stackscript_id with backup_id', () => {
    expect(
      issuesOf('nodes.create', {
        region: 'us-east',
        type: 'g6-standard-1',
        backup_id: 1234,
        stackscript_id: 10079,
        root_pass: 'c0rrect-Horse-battery',
      }),
    ).toEqual(['stackscript_id: cannot be used with backup_id']);
  });
  it('rejects stackscript_id with a private image', () => {
    expect(issuesOf('nodes.create', { ...fromImage, image: 'private/15', stackscript_id: 10079 })).toEqual([
      'stackscript_id: cannot be used with a private image',
    ]);
  });
  it('needs an image for a StackScript', () => {
    expect(
      issuesOf('nodes.create', {
        region: 'us-east',
        type: 'g6-standard-1',
        stackscript_id: 10079,
        root_pass: 'c0rrect-Horse-battery',
      }),
    ).toEqual(['image: is required when stackscript_id is given']);
  });
  it('accepts StackScript data as a JSON object', () => {
    expect(
      issuesOf('nodes.create', {
        ...fromImage,
        stackscript_id: 10079,
        stackscript_data: { gh_username: 'ops' },
      }),
    ).toEqual([]);
  });
  it('rejects stackscript_data that is not a JSON object', () => {
    expect(
      issuesOf('nodes.create', { ...fromImage, stackscript_id: 10079, stackscript_data: ['ops'] }),
    ).toEqual(['stackscript_data: must be a JSON object']);
  });
  it('rejects stackscript_data longer than 65535 characters as JSON', () => {
    const stackscript_data = { key: 'x'.repeat(65535) };
    expect(issuesOf('nodes.create', { ...fromImage, stackscript_id: 10079, stackscript_data })).toEqual([
      'stackscript_data: must be at most 65535 characters as JSON',
    ]);
  });
  it('accepts base64 user data of exactly 65535 bytes', () => {
    const user_data = Buffer.alloc(65535, 'a').toString('base64');
    expect(issuesOf('nodes.create', { ...fromImage, metadata: { user_data } })).toEqual([]);
  });
  it('rejects user data longer than 65535 bytes before encoding', () => {
    const user_data = Buffer.alloc(65536, 'a').toString('base64');
    expect(issuesOf('nodes.create', { ...fromImage, metadata: { user_data } })).toEqual([
      'metadata.user_data: must be at most 65535 bytes before encoding',
    ]);
  });
  it('rejects user data that is not base64', () => {
    expect(issuesOf('nodes.create', { ...fromImage, metadata: { user_data: '#cloud-config' } })).toEqual([
      'metadata.user_data: must be base64-encoded',
    ]);
  });
  it('rejects metadata without an image', () => {
    expect(
      issuesOf('nodes.create', {
        region: 'us-east',
        type: 'g6-standard-1',
        metadata: { user_data: 'I2Nsb3Vk' },
      }),
    ).toEqual(['metadata: needs an image with cloud-init']);
  });
  it('rejects a swap size that is not a whole number', () => {
    expect(issuesOf('nodes.create', { ...fromImage, swap_size: 256.5 })).toEqual([
      'swap_size: must be a whole number',
    ]);
  });
});

describe('nodes.create interfaces', () => {
  const withInterfaces = (interfaces: unknown[]) => issuesOf('nodes.create', { ...fromImage, interfaces });

  it('accepts a public, a vlan and a vpc interface', () => {
    expect(withInterfaces([publicInterface, vlanInterface, vpcInterface])).toEqual([]);
  });
  it('accepts an empty list, which yields a default public interface', () => {
    expect(withInterfaces([])).toEqual([]);
  });
  it('rejects more than three interfaces', () => {
    expect(
      withInterfaces([publicInterface, vlanInterface, vpcInterface, { ...vlanInterface, label: 'b2' }]),
    ).toEqual(['interfaces: must have at most 3 interfaces']);
  });
  it('rejects an unknown purpose', () => {
    expect(withInterfaces([{ purpose: 'private' }])).toEqual([
      'interfaces.0.purpose: must be one of public, vlan, vpc',
    ]);
  });
  it('vlan: requires a label', () => {
    expect(withInterfaces([publicInterface, { purpose: 'vlan' }])).toEqual([
      'interfaces.1.label: is required for a vlan interface',
    ]);
  });
  it('vlan: label of ASCII letters, digits and hyphens only', () => {
    expect(withInterfaces([{ ...vlanInterface, label: 'backend_1' }])).toEqual([
      'interfaces.0.label: may contain only ASCII letters, digits and hyphens',
    ]);
  });
  it('vlan: label without two hyphens in a row', () => {
    expect(withInterfaces([{ ...vlanInterface, label: 'backend--1' }])).toEqual([
      'interfaces.0.label: must not contain two hyphens in a row',
    ]);
  });
  it('vlan: label of at most 64 characters', () => {
    expect(withInterfaces([{ ...vlanInterface, label: 'v'.repeat(65) }])).toEqual([
      'interfaces.0.label: is 65 characters; the most it can be is 64',
    ]);
  });
  it('vlan: primary must be false', () => {
    expect(withInterfaces([{ ...vlanInterface, primary: true }])).toEqual([
      'interfaces.0.primary: must be false for a vlan interface',
    ]);
  });
  it('vlan: ipam_address is an address with a netmask', () => {
    expect(withInterfaces([{ ...vlanInterface, ipam_address: '10.0.0.1' }])).toEqual([
      'interfaces.0.ipam_address: must be an address with a netmask, e.g. 10.0.0.1/24',
    ]);
  });
  it('vlan: labels and addresses are unique among the interfaces', () => {
    expect(withInterfaces([publicInterface, vlanInterface, vlanInterface])).toEqual([
      'interfaces.2.label: must be unique among the interfaces',
      'interfaces.2.ipam_address: must be unique among the interfaces',
    ]);
  });
  it('public and vpc: label and ipam_address empty or null', () => {
    expect(withInterfaces([{ purpose: 'public', label: '', ipam_address: null }])).toEqual([]);
    expect(withInterfaces([{ purpose: 'public', label: 'internet' }])).toEqual([
      'interfaces.0.label: must be empty or null for a public interface',
    ]);
    expect(withInterfaces([{ ...vpcInterface, ipam_address: '10.0.0.1/24' }])).toEqual([
      'interfaces.0.ipam_address: must be empty or null for a vpc interface',
    ]);
  });
  it('vpc: requires subnet_id', () => {
    expect(withInterfaces([{ purpose: 'vpc' }])).toEqual([
      'interfaces.0.subnet_id: is required for a vpc interface',
    ]);
  });
  it('subnet_id, ipv4 and ip_ranges only for vpc', () => {
    expect(
      withInterfaces([
        { purpose: 'public', subnet_id: 101, ipv4: { vpc: '10.0.1.2' }, ip_ranges: ['10.0.0.64/26'] },
      ]),
    ).toEqual([
      'interfaces.0.subnet_id: may only be given for a vpc interface',
      'interfaces.0.ipv4: may only be given for a vpc interface',
      'interfaces.0.ip_ranges: may only be given for a vpc interface',
    ]);
  });
  it('only one public interface', () => {
    expect(withInterfaces([{ purpose: 'public' }, { purpose: 'public' }])).toEqual([
      'interfaces.1.purpose: only one public interface is allowed',
    ]);
  });
  it('at most one primary interface', () => {
    expect(withInterfaces([publicInterface, { ...vpcInterface, primary: true }])).toEqual([
      'interfaces.1.primary: only one interface may be primary',
    ]);
  });
  it('a specific 1:1 NAT address cannot be set at creation', () => {
    expect(withInterfaces([{ ...vpcInterface, ipv4: { nat_1_1: '203.0.113.2' } }])).toEqual([
      'interfaces.0.ipv4.nat_1_1: can only be any when creating a node',
    ]);
  });
});

describe('nodes.update', () => {
  it('accepts alerts, a backup schedule, a label, tags and the watchdog switch', () => {
    expect(
      issuesOf('nodes.update', {
        nodeId: 123,
        alerts: { cpu: 180, io: 10000, network_in: 10, network_out: 0, transfer_quota: 80 },
        backups: { schedule: { day: 'Saturday', window: 'W22' } },
        label: 'web-2',
        tags: ['prod'],
        watchdog_enabled: false,
      }),
    ).toEqual([]);
  });
  it('accepts a null backup day and window', () => {
    expect(
      issuesOf('nodes.update', { nodeId: 123, backups: { schedule: { day: null, window: null } } }),
    ).toEqual([]);
  });
  it('rejects negative or fractional alert thresholds', () => {
    expect(issuesOf('nodes.update', { nodeId: 123, alerts: { cpu: -1, transfer_quota: 2.5 } })).toEqual([
      'alerts.cpu: must be 0 or more',
      'alerts.transfer_quota: must be a whole number',
    ]);
  });
  it('rejects a backup day or window outside the enums', () => {
    expect(
      issuesOf('nodes.update', { nodeId: 123, backups: { schedule: { day: 'Funday', window: 'W1' } } }),
    ).toEqual([
      'backups.schedule.day: must be one of Scheduling, Sunday, Monday, Tuesday, Wednesday, Thursday, Friday, Saturday',
      'backups.schedule.window: must be one of Scheduling, W0, W2, W4, W6, W8, W10, W12, W14, W16, W18, W20, W22',
    ]);
  });
  it('applies the label rules', () => {
    expect(issuesOf('nodes.update', { nodeId: 123, label: 'web--2' })).toEqual([
      'label: must not have two hyphens, underscores or periods in a row',
    ]);
  });
  it('rejects a watchdog switch that is not a boolean', () => {
    expect(issuesOf('nodes.update', { nodeId: 123, watchdog_enabled: 'yes' })).toEqual([
      'watchdog_enabled: must be true or false',
    ]);
  });
  it('rejects fields that cannot be changed here', () => {
    expect(issuesOf('nodes.update', { nodeId: 123, region: 'eu-west' })).toEqual([
      ': Unrecognized key: "region"',
    ]);
  });
});

describe('nodes.snapshot', () => {
  it('accepts a label of 1..255 characters', () => {
    expect(issuesOf('nodes.snapshot', { nodeId: 123, label: 'before-upgrade' })).toEqual([]);
  });
  it('rejects a label outside 1..255 characters', () => {
    expect(issuesOf('nodes.snapshot', { nodeId: 123, label: '' })).toEqual([
      'label: must be 1 to 255 characters',
    ]);
    expect(issuesOf('nodes.snapshot', { nodeId: 123, label: 'x'.repeat(256) })).toEqual([
      'label: is 256 characters; the most it can be is 255',
    ]);
  });
});

describe('nodes.backups-restore', () => {
  it('accepts a target node with overwrite', () => {
    expect(
      issuesOf('nodes.backups-restore', { nodeId: 123, backupId: 456, node_id: 124, overwrite: true }),
    ).toEqual([]);
  });
  it('requires the target node_id', () => {
    expect(issuesOf('nodes.backups-restore', { nodeId: 123, backupId: 456 })).toEqual([
      'node_id: is required',
    ]);
  });
  it('rejects an overwrite that is not a boolean', () => {
    expect(
      issuesOf('nodes.backups-restore', { nodeId: 123, backupId: 456, node_id: 124, overwrite: 'yes' }),
    ).toEqual(['overwrite: must be true or false']);
  });
});

describe('nodes.boot', () => {
  it('accepts no config_id, or a config id', () => {
    expect(issuesOf('nodes.boot', { nodeId: 123 })).toEqual([]);
    expect(issuesOf('nodes.boot', { nodeId: 123, config_id: 23456 })).toEqual([]);
  });
  it('rejects a config_id that is not a whole number', () => {
    expect(issuesOf('nodes.boot', { nodeId: 123, config_id: 'main' })).toEqual([
      'config_id: must be a whole number',
    ]);
  });
});

describe('nodes.clone', () => {
  it('accepts a clone to a new node with region and type', () => {
    expect(
      issuesOf('nodes.clone', {
        nodeId: 123,
        region: 'us-east',
        type: 'g6-standard-2',
        label: 'web-1-copy',
        backups_enabled: true,
        private_ip: true,
        configs: [],
        disks: [25674],
      }),
    ).toEqual([]);
  });
  it('accepts a clone onto an existing node', () => {
    expect(issuesOf('nodes.clone', { nodeId: 123, node_id: 124, configs: [23456] })).toEqual([]);
  });
  it('requires region and type for a new node', () => {
    expect(issuesOf('nodes.clone', { nodeId: 123, label: 'web-1-copy' })).toEqual([
      'region: is required when cloning to a new node',
      'type: is required when cloning to a new node',
    ]);
  });
  it('rejects new-node fields together with node_id', () => {
    expect(
      issuesOf('nodes.clone', {
        nodeId: 123,
        node_id: 124,
        region: 'us-east',
        type: 'g6-standard-2',
        label: 'web-1-copy',
        backups_enabled: true,
        private_ip: true,
        metadata: { user_data: 'I2Nsb3Vk' },
      }),
    ).toEqual([
      'region: may only be given when cloning to a new node (without node_id)',
      'type: may only be given when cloning to a new node (without node_id)',
      'label: may only be given when cloning to a new node (without node_id)',
      'backups_enabled: may only be given when cloning to a new node (without node_id)',
      'private_ip: may only be given when cloning to a new node (without node_id)',
      'metadata: may only be given when cloning to a new node (without node_id)',
    ]);
  });
  it('rejects a label outside 3..64 characters', () => {
    expect(
      issuesOf('nodes.clone', { nodeId: 123, region: 'us-east', type: 'g6-standard-2', label: 'ab' }),
    ).toEqual(['label: must be 3 to 64 characters']);
  });
  it('rejects config and disk ids that are not whole numbers', () => {
    expect(issuesOf('nodes.clone', { nodeId: 123, node_id: 124, configs: ['main'], disks: 25674 })).toEqual([
      'configs.0: must be a whole number',
      'disks: must be a list',
    ]);
  });
});

describe('nodes.configs-create', () => {
  const config = { nodeId: 123, label: 'main', devices: { sda: { disk_id: 25674 }, sdb: { volume_id: 12 } } };

  it('accepts a label with disk and volume devices', () => {
    expect(
      issuesOf('nodes.configs-create', {
        ...config,
        kernel: 'node/grub2',
        run_level: 'single',
        virt_mode: 'paravirt',
        helpers: { distro: true, network: false },
        interfaces: [publicInterface, vlanInterface],
        comments: null,
        memory_limit: 2048,
        root_device: '/dev/sda',
      }),
    ).toEqual([]);
  });
  it('accepts an empty device map and null slots', () => {
    expect(issuesOf('nodes.configs-create', { nodeId: 123, label: 'empty', devices: {} })).toEqual([]);
    expect(issuesOf('nodes.configs-create', { nodeId: 123, label: 'empty', devices: { sdc: null } })).toEqual(
      [],
    );
  });
  it('requires label and devices', () => {
    expect(issuesOf('nodes.configs-create', { nodeId: 123 })).toEqual([
      'label: is required',
      'devices: is required',
    ]);
  });
  it('rejects a label outside 1..48 characters', () => {
    expect(issuesOf('nodes.configs-create', { ...config, label: 'x'.repeat(49) })).toEqual([
      'label: is 49 characters; the most it can be is 48',
    ]);
  });
  it('holds exactly one disk or volume per slot', () => {
    expect(
      issuesOf('nodes.configs-create', {
        ...config,
        devices: { sda: { disk_id: 1, volume_id: 2 }, sdb: {} },
      }),
    ).toEqual([
      'devices.sda: must name exactly one of disk_id or volume_id',
      'devices.sdb: must name exactly one of disk_id or volume_id',
    ]);
  });
  it('rejects devices that are not an object', () => {
    expect(issuesOf('nodes.configs-create', { ...config, devices: 'sda' })).toEqual([
      'devices: must be an object',
    ]);
  });
  it('rejects slots beyond sdh', () => {
    expect(issuesOf('nodes.configs-create', { ...config, devices: { sdi: { disk_id: 1 } } })).toEqual([
      'devices: Unrecognized key: "sdi"',
    ]);
  });
  it('sde to sdh are not available in fullvirt', () => {
    expect(
      issuesOf('nodes.configs-create', {
        ...config,
        virt_mode: 'fullvirt',
        devices: { sda: { disk_id: 1 }, sde: { disk_id: 2 }, sdh: { volume_id: 3 }, sdf: null },
      }),
    ).toEqual([
      'devices.sde: is not available when virt_mode is fullvirt',
      'devices.sdh: is not available when virt_mode is fullvirt',
    ]);
  });
  it('rejects run_level and virt_mode outside their enums', () => {
    expect(issuesOf('nodes.configs-create', { ...config, run_level: 'rescue', virt_mode: 'hvm' })).toEqual([
      'run_level: must be one of default, single, binbash',
      'virt_mode: must be one of paravirt, fullvirt',
    ]);
  });
  it('rejects helpers that are not booleans', () => {
    expect(issuesOf('nodes.configs-create', { ...config, helpers: { distro: 'yes' } })).toEqual([
      'helpers.distro: must be true or false',
    ]);
  });
  it('applies the interface rules', () => {
    expect(
      issuesOf('nodes.configs-create', { ...config, interfaces: [{ ...vlanInterface, primary: true }] }),
    ).toEqual(['interfaces.0.primary: must be false for a vlan interface']);
  });
});

describe('nodes.configs-update', () => {
  it('accepts an update with no fields', () => {
    expect(issuesOf('nodes.configs-update', { nodeId: 123, configId: 23456 })).toEqual([]);
  });
  it('sde to sdh are not available in fullvirt', () => {
    expect(
      issuesOf('nodes.configs-update', {
        nodeId: 123,
        configId: 23456,
        virt_mode: 'fullvirt',
        devices: { sdg: { disk_id: 1 } },
      }),
    ).toEqual(['devices.sdg: is not available when virt_mode is fullvirt']);
  });
});

describe('nodes rows', () => {
  it('need approval for every change that deletes or overwrites data', () => {
    const destructive = nodeOperations.filter((op) => op.destructive).map((op) => op.action);
    expect(destructive).toEqual([
      'delete',
      'snapshot',
      'backups-cancel',
      'backups-restore',
      'clone',
      'configs-delete',
    ]);
    expect(getOperation('nodes.backups-cancel').destructive?.consequence).toContain(
      'deletes all existing backups permanently',
    );
    expect(getOperation('nodes.snapshot').destructive?.consequence).toBe(
      'Replaces the existing snapshot: the previous one is deleted.',
    );
    expect(getOperation('nodes.clone').destructive?.consequence).toContain('existing node');
  });
  it('need add_nodes and charge for create and clone', () => {
    for (const id of ['nodes.create', 'nodes.clone']) {
      expect(requireOperation(id).grants, id).toEqual(['add_nodes']);
      expect(requireOperation(id).charges, id).toBe(true);
    }
  });
  it('watch new nodes until they run or stay offline', () => {
    for (const id of ['nodes.create', 'nodes.clone']) {
      expect(requireOperation(id).watch, id).toEqual({
        statusField: 'status',
        final: ['running', 'offline', 'stopped'],
        view: 'nodes.view',
      });
    }
  });
  it('list nodes with their filterable fields', () => {
    expect(getOperation('nodes.list').filterable).toEqual([
      'id',
      'label',
      'group',
      'tags',
      'region',
      'image',
      'ipv4',
    ]);
  });
  it('return the backups as automatic ones and a snapshot pair, not a page', () => {
    const list = getOperation('nodes.backups-list');
    expect(list.paginated).toBe(false);
    expect(
      list.response.safeParse({ automatic: [], snapshot: { in_progress: null, current: null } }).success,
    ).toBe(true);
  });
  it('count 18 rows', () => {
    expect(nodeOperations).toHaveLength(18);
  });
});

describe('nodes responses', () => {
  it.each(nodeOperations.map((op) => [op.id, op] as const))('%s accepts the published example', (_id, op) => {
    const result = responseSchemaOf(op).safeParse(publishedExample(op));
    expect(result.error?.issues ?? []).toEqual([]);
  });
});
