import * as z from 'zod';
import {
  bool,
  DateTimeSchema,
  defineOperation,
  EmptyResultSchema,
  IdSchema,
  integer,
  lazySchema,
  oneOf,
  PageQuerySchema,
  text,
} from '../operation.js';
import '../../zod-settings.js';

// Every managed operation is for unrestricted users only. Request rules follow the managed
// document: a field is required only where the document says so, so the API stays the judge
// wherever the document is silent.

/** The shared builders' wording, for shapes they do not cover (e-mail addresses, objects, id lists). */
function mustBe(what: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);
}

// ---------------------------------------------------------------------------------------------
// Response shapes

export const managedContactSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    name: z.string(),
    email: z.string(),
    phone: z
      .object({
        // The published spec allows a null primary number; the document does not, so accept both.
        primary: z.string().nullable().optional(),
        secondary: z.string().nullable().optional(),
      })
      .optional(),
    group: z.string().nullable().optional(),
    updated: DateTimeSchema.optional(),
  }),
);
export type ManagedContact = z.infer<ReturnType<typeof managedContactSchema>>;

export const managedCredentialSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    // A credential support staff never decrypted has no date to report.
    last_decrypted: DateTimeSchema.nullable().optional(),
  }),
);
export type ManagedCredential = z.infer<ReturnType<typeof managedCredentialSchema>>;

export const managedSSHKeySchema = lazySchema(() => z.object({ ssh_key: z.string() }));
export type ManagedSSHKey = z.infer<ReturnType<typeof managedSSHKeySchema>>;

export const managedIssueSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    created: DateTimeSchema,
    services: z.array(z.number().int()),
    /** The support ticket the issue opened. */
    entity: z.object({
      id: z.number().int(),
      label: z.string(),
      type: z.string(),
      url: z.string(),
    }),
  }),
);
export type ManagedIssue = z.infer<ReturnType<typeof managedIssueSchema>>;

export const managedNodeSettingsSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    group: z.string().optional(),
    ssh: z.object({
      access: z.boolean(),
      ip: z.string(),
      // Null: port 22.
      port: z.number().int().nullable(),
      // Null: the root user.
      user: z.string().nullable(),
    }),
  }),
);
export type ManagedNodeSettings = z.infer<ReturnType<typeof managedNodeSettingsSchema>>;

export const MANAGED_SERVICE_STATUSES = ['disabled', 'pending', 'ok', 'problem'] as const;
const SERVICE_TYPES = ['url', 'tcp'] as const;

export const managedServiceSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    status: z.enum(MANAGED_SERVICE_STATUSES),
    service_type: z.enum(SERVICE_TYPES),
    label: z.string(),
    address: z.string(),
    timeout: z.number().int(),
    body: z.string().nullable().optional(),
    consultation_group: z.string().optional(),
    notes: z.string().nullable().optional(),
    // Set only for private-IP addresses; the published example shows null.
    region: z.string().nullable().optional(),
    credentials: z.array(z.number().int()).optional(),
    created: DateTimeSchema.optional(),
    updated: DateTimeSchema.optional(),
  }),
);
export type ManagedService = z.infer<ReturnType<typeof managedServiceSchema>>;

export const managedStatsPointSchema = lazySchema(() => z.object({ x: z.number(), y: z.number() }));
export type ManagedStatsPoint = z.infer<ReturnType<typeof managedStatsPointSchema>>;

/** The last 24 hours, combined over all managed nodes. */
export const managedStatsSeriesSchema = lazySchema(() =>
  z.object({
    cpu: z.array(managedStatsPointSchema()),
    disk: z.array(managedStatsPointSchema()),
    swap: z.array(managedStatsPointSchema()),
    net_in: z.array(managedStatsPointSchema()),
    net_out: z.array(managedStatsPointSchema()),
  }),
);
export type ManagedStatsSeries = z.infer<ReturnType<typeof managedStatsSeriesSchema>>;

/** `data` is the series, or messages such as "Graphs are not yet available." when there are none yet. */
export const managedStatsSchema = lazySchema(() =>
  z.object({
    data: z.union([managedStatsSeriesSchema(), z.array(z.string())]),
  }),
);
export type ManagedStats = z.infer<ReturnType<typeof managedStatsSchema>>;

// ---------------------------------------------------------------------------------------------
// Request fields

const IPV4_ADDRESS = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The host of a monitored address: a URL (`http://10.0.0.5/`), `host:port` or a bare host. */
function hostOf(address: string): string {
  const withoutScheme = address.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  return withoutScheme.split(/[/:?#]/, 1)[0] ?? '';
}

/** Whether a service address points at a private IPv4 address (10/8, 172.16/12, 192.168/16). */
export function isPrivateIpAddress(address: string): boolean {
  const match = IPV4_ADDRESS.exec(hostOf(address));
  if (!match) return false;
  const octets = match.slice(1).map(Number);
  if (octets.some((octet) => octet > 255)) return false;
  const [first = 0, second = 0] = octets;
  return first === 10 || (first === 172 && second >= 16 && second <= 31) || (first === 192 && second === 168);
}

const REGION_REQUIRED = 'is required when address is a private IP';
const REGION_NOT_ALLOWED = 'may only be given when address is a private IP';

const contactFields = lazySchema(() => ({
  name: text(2, 64).optional(),
  email: z.email({ error: mustBe('an e-mail address') }).optional(),
  // Rule 1: secondary and group may be null.
  phone: z
    .strictObject(
      { primary: text(1).optional(), secondary: text(1).nullable().optional() },
      { error: mustBe('an object with primary and secondary') },
    )
    .optional(),
  group: text(2, 50).nullable().optional(),
}));

const credentialLabelSchema = lazySchema(() => text(2, 75));
const credentialLoginFields = lazySchema(() => ({
  password: text(1),
  username: text(undefined, 5000).optional(),
}));

const serviceFields = lazySchema(() =>
  z.strictObject({
    service_type: oneOf(SERVICE_TYPES),
    label: text(3, 64),
    address: text(3, 100),
    timeout: integer(1, 255),
    body: text(undefined, 100).nullable().optional(),
    consultation_group: text(undefined, 50).optional(),
    notes: text().nullable().optional(),
    credentials: z.array(IdSchema, { error: mustBe('a list of credential ids') }).optional(),
    region: text(1).optional(),
  }),
);

const ContactRef = { contactId: IdSchema };
const CredentialRef = { credentialId: IdSchema };
const IssueRef = { issueId: IdSchema };
const NodeRef = { nodeId: IdSchema };
const ServiceRef = { serviceId: IdSchema };

const noInput = lazySchema(() => z.strictObject({}));

export const managedOperations = [
  defineOperation({
    group: 'managed',
    action: 'contacts-list',
    summary: 'List the contacts support staff may reach about issues',
    method: 'GET',
    path: '/managed/contacts',
    scopes: ['account:read_only'],
    grants: ['unrestricted_only'],
    paginated: true,
    filterable: ['group'],
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: managedContactSchema,
    example: 'managed contacts-list --group on-call',
  }),
  defineOperation({
    group: 'managed',
    action: 'contacts-create',
    aliases: ['contact-create'],
    summary: 'Add a contact for support staff to reach about issues',
    method: 'POST',
    path: '/managed/contacts',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject(contactFields()),
    response: managedContactSchema,
    example: 'managed contacts-create --name "John Doe" --email john.doe@example.org --group on-call',
  }),
  defineOperation({
    group: 'managed',
    action: 'contacts-view',
    aliases: ['contact-view'],
    summary: 'Show one managed contact',
    method: 'GET',
    path: '/managed/contacts/{contactId}',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject(ContactRef),
    response: managedContactSchema,
    example: 'managed contacts-view 567',
  }),
  defineOperation({
    group: 'managed',
    action: 'contacts-update',
    aliases: ['contact-update'],
    summary: 'Change a managed contact',
    method: 'PUT',
    path: '/managed/contacts/{contactId}',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject({ ...ContactRef, ...contactFields() }),
    response: managedContactSchema,
    example: 'managed contacts-update 567 --group escalation',
  }),
  defineOperation({
    group: 'managed',
    action: 'contacts-delete',
    aliases: ['contact-delete'],
    summary: 'Delete a managed contact',
    method: 'DELETE',
    path: '/managed/contacts/{contactId}',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    destructive: { consequence: 'Support staff can no longer reach this contact when an issue is detected.' },
    request: () => z.strictObject(ContactRef),
    response: EmptyResultSchema,
    example: 'managed contacts-delete 567',
  }),
  defineOperation({
    group: 'managed',
    action: 'credentials-list',
    summary: 'List the credentials stored for support staff',
    method: 'GET',
    path: '/managed/credentials',
    scopes: ['account:read_only'],
    grants: ['unrestricted_only'],
    paginated: true,
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: managedCredentialSchema,
    example: 'managed credentials-list',
  }),
  defineOperation({
    group: 'managed',
    action: 'credentials-create',
    aliases: ['credential-create'],
    summary: 'Store a credential support staff may use to resolve issues',
    method: 'POST',
    path: '/managed/credentials',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject({ label: credentialLabelSchema(), ...credentialLoginFields() }),
    response: managedCredentialSchema,
    example:
      'managed credentials-create --label prod-password-1 --username johndoe --password s3cur3P@ssw0rd',
  }),
  defineOperation({
    group: 'managed',
    action: 'credentials-sshkey',
    aliases: ['credential-sshkey', 'credentials-sshkey-view'],
    summary: "Show the account's managed-service SSH public key (add it to a node to let support staff in)",
    method: 'GET',
    path: '/managed/credentials/sshkey',
    scopes: ['account:read_only'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: noInput,
    response: managedSSHKeySchema,
    example: 'managed credentials-sshkey',
  }),
  defineOperation({
    group: 'managed',
    action: 'credentials-view',
    aliases: ['credential-view'],
    summary: 'Show one managed credential (never its username or password)',
    method: 'GET',
    path: '/managed/credentials/{credentialId}',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject(CredentialRef),
    response: managedCredentialSchema,
    example: 'managed credentials-view 9991',
  }),
  defineOperation({
    group: 'managed',
    action: 'credentials-update',
    aliases: ['credential-update'],
    summary: 'Rename a managed credential (username and password change with credentials-update-login)',
    method: 'PUT',
    path: '/managed/credentials/{credentialId}',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    // Rule 2: PUT changes only the label.
    request: () => z.strictObject({ ...CredentialRef, label: credentialLabelSchema().optional() }),
    response: managedCredentialSchema,
    example: 'managed credentials-update 9991 --label prod-password-2',
  }),
  defineOperation({
    group: 'managed',
    action: 'credentials-delete',
    aliases: ['credential-delete', 'credential-revoke'],
    summary: 'Delete a managed credential',
    method: 'DELETE',
    path: '/managed/credentials/{credentialId}',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    destructive: { consequence: 'Support staff lose access to this credential.' },
    request: () => z.strictObject(CredentialRef),
    response: EmptyResultSchema,
    example: 'managed credentials-delete 9991',
  }),
  defineOperation({
    group: 'managed',
    action: 'credentials-update-login',
    aliases: ['credential-update-login'],
    summary: "Change a managed credential's username and password",
    method: 'POST',
    path: '/managed/credentials/{credentialId}/update',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject({ ...CredentialRef, ...credentialLoginFields() }),
    response: EmptyResultSchema,
    example: 'managed credentials-update-login 9991 --username johndoe --password n3wS3cr3t',
  }),
  defineOperation({
    group: 'managed',
    action: 'issues-list',
    summary: 'List open and ongoing issues detected on managed services',
    method: 'GET',
    path: '/managed/issues',
    scopes: ['account:read_only'],
    grants: ['unrestricted_only'],
    paginated: true,
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: managedIssueSchema,
    example: 'managed issues-list',
  }),
  defineOperation({
    group: 'managed',
    action: 'issues-view',
    aliases: ['issue-view'],
    summary: 'Show one managed issue and its support ticket',
    method: 'GET',
    path: '/managed/issues/{issueId}',
    scopes: ['account:read_only'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject(IssueRef),
    response: managedIssueSchema,
    example: 'managed issues-view 823',
  }),
  defineOperation({
    group: 'managed',
    action: 'node-settings-list',
    summary: "List every node's managed SSH access settings",
    method: 'GET',
    path: '/managed/node-settings',
    scopes: ['account:read_only'],
    grants: ['unrestricted_only'],
    paginated: true,
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: managedNodeSettingsSchema,
    example: 'managed node-settings-list',
  }),
  defineOperation({
    group: 'managed',
    action: 'node-settings-view',
    aliases: ['node-setting-view'],
    summary: "Show a node's managed SSH access settings",
    method: 'GET',
    path: '/managed/node-settings/{nodeId}',
    scopes: ['account:read_only'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject(NodeRef),
    response: managedNodeSettingsSchema,
    example: 'managed node-settings-view 123',
  }),
  defineOperation({
    group: 'managed',
    action: 'node-settings-update',
    aliases: ['node-setting-update'],
    summary: 'Change how support staff reach a node over SSH',
    method: 'PUT',
    path: '/managed/node-settings/{nodeId}',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () =>
      z.strictObject({
        ...NodeRef,
        ssh: z
          .strictObject(
            {
              access: bool().optional(),
              ip: text(1).optional(),
              // Null: port 22 and the root user.
              port: integer(1, 65535).nullable().optional(),
              user: text(1).nullable().optional(),
            },
            { error: mustBe('an object with access, ip, port and user') },
          )
          .optional(),
      }),
    response: managedNodeSettingsSchema,
    example: 'managed node-settings-update 123 --ssh \'{"access":true,"port":2222,"user":"support"}\'',
  }),
  defineOperation({
    group: 'managed',
    action: 'services-list',
    summary: 'List the monitored services',
    method: 'GET',
    path: '/managed/services',
    scopes: ['account:read_only'],
    grants: ['unrestricted_only'],
    paginated: true,
    pageParams: false,
    request: noInput,
    response: managedServiceSchema,
    example: 'managed services-list',
  }),
  defineOperation({
    group: 'managed',
    action: 'services-create',
    aliases: ['service-create'],
    summary: 'Start monitoring a service',
    method: 'POST',
    path: '/managed/services',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    // Rule 4: region is required for a private-IP address and not allowed otherwise.
    events: { actions: ['managed_service_create'], source: 'API-FACTS-MORE.md §8' },
    request: () =>
      serviceFields().superRefine((v, ctx) => {
        const isPrivate = isPrivateIpAddress(v.address);
        if (isPrivate && v.region === undefined) {
          ctx.addIssue({ code: 'custom', path: ['region'], message: REGION_REQUIRED });
        }
        if (!isPrivate && v.region !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['region'], message: REGION_NOT_ALLOWED });
        }
      }),
    response: managedServiceSchema,
    example:
      'managed services-create --service-type url --label shop --address https://shop.example.org --timeout 30',
  }),
  defineOperation({
    group: 'managed',
    action: 'services-view',
    aliases: ['service-view'],
    summary: 'Show one monitored service',
    method: 'GET',
    path: '/managed/services/{serviceId}',
    scopes: ['account:read_only'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject(ServiceRef),
    response: managedServiceSchema,
    example: 'managed services-view 9944',
  }),
  defineOperation({
    group: 'managed',
    action: 'services-update',
    aliases: ['service-update'],
    summary: 'Change a monitored service',
    method: 'PUT',
    path: '/managed/services/{serviceId}',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    // Rule 4, as far as the request shows it: the stored address and region are not known here.
    request: () =>
      serviceFields()
        .partial()
        .extend(ServiceRef)
        .superRefine((v, ctx) => {
          if (v.region !== undefined && v.address !== undefined && !isPrivateIpAddress(v.address)) {
            ctx.addIssue({ code: 'custom', path: ['region'], message: REGION_NOT_ALLOWED });
          }
        }),
    response: managedServiceSchema,
    example: 'managed services-update 9944 --timeout 60',
  }),
  defineOperation({
    group: 'managed',
    action: 'services-delete',
    aliases: ['service-delete'],
    summary: 'Stop monitoring a service and delete it',
    method: 'DELETE',
    path: '/managed/services/{serviceId}',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    destructive: { consequence: 'Monitoring of this service stops and the service is deleted.' },
    events: { actions: ['managed_service_delete'], entityId: 'serviceId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject(ServiceRef),
    response: EmptyResultSchema,
    example: 'managed services-delete 9944',
  }),
  defineOperation({
    group: 'managed',
    action: 'services-disable',
    aliases: ['service-disable'],
    summary: 'Pause monitoring of a service',
    method: 'POST',
    path: '/managed/services/{serviceId}/disable',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject(ServiceRef),
    response: managedServiceSchema,
    example: 'managed services-disable 9944',
  }),
  defineOperation({
    group: 'managed',
    action: 'services-enable',
    aliases: ['service-enable'],
    summary: 'Resume monitoring of a service',
    method: 'POST',
    path: '/managed/services/{serviceId}/enable',
    scopes: ['account:read_write'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: () => z.strictObject(ServiceRef),
    response: managedServiceSchema,
    example: 'managed services-enable 9944',
  }),
  defineOperation({
    group: 'managed',
    action: 'stats',
    aliases: ['stats-list'],
    summary: 'Show CPU, disk, swap and network use of managed nodes over the last 24 hours',
    method: 'GET',
    path: '/managed/stats',
    scopes: ['account:read_only'],
    grants: ['unrestricted_only'],
    paginated: false,
    request: noInput,
    response: managedStatsSchema,
    example: 'managed stats',
  }),
] as const;
