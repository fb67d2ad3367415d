import * as z from 'zod';
import {
  bool,
  DateTimeSchema,
  defineOperation,
  EmptyResultSchema,
  IdSchema,
  lazySchema,
  oneOf,
  PageQuerySchema,
  text,
  textList,
} from '../operation.js';
import '../../zod-settings.js';

// Request rules follow the profile document: a field is required only where the document says so,
// so the API stays the judge wherever the document is silent.

/** The shared builders' wording, for shapes they do not cover (e-mail addresses, lists of objects). */
function mustBe(what: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);
}

// ---------------------------------------------------------------------------------------------
// Response shapes

export const profileSchema = lazySchema(() =>
  z.object({
    uid: z.number().int(),
    username: z.string(),
    email: z.string(),
    restricted: z.boolean(),
    two_factor_auth: z.boolean().optional(),
    email_notifications: z.boolean().optional(),
    ip_whitelist_enabled: z.boolean().optional(),
    lish_auth_method: z.enum(['password_keys', 'keys_only', 'disabled']).optional(),
    authorized_keys: z.array(z.string()).nullable().optional(),
    timezone: z.string().optional(),
    verified_phone_number: z.string().nullable().optional(),
    // `password`, or the name of an external identity provider.
    authentication_type: z.string().optional(),
    // Only once the account has paid at least 25.00 USD in total.
    referrals: z
      .object({
        code: z.string(),
        url: z.string(),
        total: z.number(),
        completed: z.number(),
        pending: z.number(),
        credit: z.number(),
      })
      .optional(),
  }),
);
export type Profile = z.infer<ReturnType<typeof profileSchema>>;

export const authorizedAppSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    scopes: z.string(),
    created: DateTimeSchema,
    expiry: DateTimeSchema.nullable().optional(),
    thumbnail_url: z.string().nullable().optional(),
    website: z.string().optional(),
  }),
);
export type AuthorizedApp = z.infer<ReturnType<typeof authorizedAppSchema>>;

export const trustedDeviceSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    created: DateTimeSchema,
    expiry: DateTimeSchema,
    last_authenticated: DateTimeSchema.optional(),
    last_remote_addr: z.string().optional(),
    user_agent: z.string().optional(),
  }),
);
export type TrustedDevice = z.infer<ReturnType<typeof trustedDeviceSchema>>;

const permissionSchema = lazySchema(() => z.enum(['read_only', 'read_write']).nullable());

export const grantSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    permissions: permissionSchema(),
  }),
);
export type Grant = z.infer<ReturnType<typeof grantSchema>>;

const grantListSchema = lazySchema(() => z.array(grantSchema()).optional());

export const grantsResponseSchema = lazySchema(() =>
  z.object({
    global: z.object({
      account_access: permissionSchema().optional(),
      add_databases: z.boolean().optional(),
      add_domains: z.boolean().optional(),
      add_firewalls: z.boolean().optional(),
      add_images: z.boolean().optional(),
      add_nodes: z.boolean().optional(),
      add_longview: z.boolean().optional(),
      add_nodebalancers: z.boolean().optional(),
      add_stackscripts: z.boolean().optional(),
      add_volumes: z.boolean().optional(),
      add_vpcs: z.boolean().optional(),
      cancel_account: z.boolean().optional(),
      longview_subscription: z.boolean().optional(),
    }),
    database: grantListSchema(),
    domain: grantListSchema(),
    image: grantListSchema(),
    node: grantListSchema(),
    longview: grantListSchema(),
    nodebalancer: grantListSchema(),
    stackscript: grantListSchema(),
    volume: grantListSchema(),
    vpc: grantListSchema(),
  }),
);
export type GrantsResponse = z.infer<ReturnType<typeof grantsResponseSchema>>;

/**
 * The grants call answers unrestricted users with 204 and no body (they may do everything), which
 * reaches this schema as `{}`. The empty branch is strict so that a grants body missing `global`
 * fails loudly instead of passing as "no grants".
 */
export const profileGrantsResultSchema = lazySchema(() =>
  z.union([grantsResponseSchema(), z.strictObject({})]),
);
export type ProfileGrantsResult = z.infer<ReturnType<typeof profileGrantsResultSchema>>;

export const loginSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    datetime: DateTimeSchema,
    ip: z.string(),
    restricted: z.boolean(),
    status: z.enum(['successful', 'failed']),
    username: z.string(),
  }),
);
export type Login = z.infer<ReturnType<typeof loginSchema>>;

/** Preferences are arbitrary JSON, stored per OAuth client. */
export const preferencesSchema = lazySchema(() => z.record(z.string(), z.unknown()));
export type Preferences = z.infer<ReturnType<typeof preferencesSchema>>;

export const securityQuestionsSchema = lazySchema(() =>
  z.object({
    security_questions: z.array(
      z.object({
        id: z.number().int(),
        question: z.string(),
        response: z.string().nullable(),
      }),
    ),
  }),
);
export type SecurityQuestions = z.infer<ReturnType<typeof securityQuestionsSchema>>;

export const securityAnswersSchema = lazySchema(() =>
  z.object({
    security_questions: z.array(
      z.object({
        question_id: z.number().int(),
        response: z.string(),
        security_question: z.string(),
      }),
    ),
  }),
);
export type SecurityAnswers = z.infer<ReturnType<typeof securityAnswersSchema>>;

export const sSHKeySchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    ssh_key: z.string(),
    created: DateTimeSchema,
  }),
);
export type SSHKey = z.infer<ReturnType<typeof sSHKeySchema>>;

export const tfaSecretSchema = lazySchema(() => z.object({ secret: z.string(), expiry: DateTimeSchema }));
export type TfaSecret = z.infer<ReturnType<typeof tfaSecretSchema>>;

export const tfaScratchSchema = lazySchema(() => z.object({ scratch: z.string() }));
export type TfaScratch = z.infer<ReturnType<typeof tfaScratchSchema>>;

export const personalAccessTokenSchema = lazySchema(() =>
  z.object({
    id: z.number().int(),
    label: z.string(),
    scopes: z.string(),
    created: DateTimeSchema,
    // Null: valid until revoked.
    expiry: DateTimeSchema.nullable(),
    // The full token only in the create response; otherwise its first 16 characters.
    token: z.string(),
  }),
);
export type PersonalAccessToken = z.infer<ReturnType<typeof personalAccessTokenSchema>>;

// ---------------------------------------------------------------------------------------------
// Request fields

const sSHKeyLabelSchema = lazySchema(() => text(undefined, 64));
const tokenLabelSchema = lazySchema(() => text(1, 100));

/** `*`, or `<area>:read_only|read_write` scopes separated by spaces. */
const oAuthScopesSchema = lazySchema(() =>
  text().regex(
    /^(\*|[a-z_]+:read_(only|write))( [a-z_]+:read_(only|write))*$/,
    'must be * or scopes such as nodes:read_only separated by spaces',
  ),
);

const PREFERENCES_MAX_LENGTH = 65_535;

const AppRef = { appId: IdSchema };
const DeviceRef = { deviceId: IdSchema };
const LoginRef = { loginId: IdSchema };
const SSHKeyRef = { sshKeyId: IdSchema };
const TokenRef = { tokenId: IdSchema };

const noInput = lazySchema(() => z.strictObject({}));

export const profileOperations = [
  defineOperation({
    group: 'profile',
    action: 'view',
    aliases: ['show', 'get'],
    summary: 'Show your profile (works with any token)',
    method: 'GET',
    path: '/profile',
    scopes: [],
    paginated: false,
    request: noInput,
    response: profileSchema,
    example: 'profile view',
  }),
  defineOperation({
    group: 'profile',
    action: 'update',
    summary: 'Change your profile settings',
    method: 'PUT',
    path: '/profile',
    scopes: ['account:read_write'],
    paginated: false,
    request: () =>
      z.strictObject({
        authorized_keys: textList().nullable().optional(),
        email: z.email({ error: mustBe('an e-mail address') }).optional(),
        email_notifications: bool().optional(),
        // Deprecated: it can only be turned off, never on again.
        ip_whitelist_enabled: bool()
          .refine((enabled) => !enabled, 'is deprecated and cannot be enabled')
          .optional(),
        lish_auth_method: oneOf(['password_keys', 'keys_only', 'disabled']).optional(),
        restricted: bool().optional(),
        timezone: text(1).optional(),
        two_factor_auth: bool().optional(),
      }),
    response: profileSchema,
    example: 'profile update --email ops@example.com --lish-auth-method keys_only',
  }),
  defineOperation({
    group: 'profile',
    action: 'apps-list',
    summary: 'List the OAuth apps you have authorized',
    method: 'GET',
    path: '/profile/apps',
    scopes: ['account:read_only'],
    paginated: true,
    filterable: ['label', 'created', 'expiry'],
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: authorizedAppSchema,
    example: 'profile apps-list --label example-app',
  }),
  defineOperation({
    group: 'profile',
    action: 'apps-view',
    aliases: ['app-view'],
    summary: 'Show one authorized app',
    method: 'GET',
    path: '/profile/apps/{appId}',
    scopes: ['account:read_only'],
    paginated: false,
    request: () => z.strictObject(AppRef),
    response: authorizedAppSchema,
    example: 'profile apps-view 123',
  }),
  defineOperation({
    group: 'profile',
    action: 'apps-revoke',
    aliases: ['app-revoke'],
    summary: "Revoke an app's access to the account",
    method: 'DELETE',
    path: '/profile/apps/{appId}',
    scopes: ['account:read_write'],
    paginated: false,
    destructive: { consequence: "The app's token expires and can no longer access the account." },
    request: () => z.strictObject(AppRef),
    response: EmptyResultSchema,
    example: 'profile apps-revoke 123',
  }),
  defineOperation({
    group: 'profile',
    action: 'devices-list',
    summary: 'List browsers trusted through a remember-me login',
    method: 'GET',
    path: '/profile/devices',
    scopes: ['account:read_only'],
    paginated: true,
    pageParams: false,
    request: noInput,
    response: trustedDeviceSchema,
    example: 'profile devices-list',
  }),
  defineOperation({
    group: 'profile',
    action: 'devices-view',
    aliases: ['device-view'],
    summary: 'Show one trusted device',
    method: 'GET',
    path: '/profile/devices/{deviceId}',
    scopes: ['account:read_only'],
    paginated: false,
    request: () => z.strictObject(DeviceRef),
    response: trustedDeviceSchema,
    example: 'profile devices-view 123',
  }),
  defineOperation({
    group: 'profile',
    action: 'devices-revoke',
    aliases: ['device-revoke'],
    summary: 'Stop trusting a device',
    method: 'DELETE',
    path: '/profile/devices/{deviceId}',
    scopes: ['account:read_write'],
    paginated: false,
    destructive: { consequence: 'The remember-me session ends; the device must log in again.' },
    request: () => z.strictObject(DeviceRef),
    response: EmptyResultSchema,
    example: 'profile devices-revoke 123',
  }),
  defineOperation({
    group: 'profile',
    action: 'grants',
    summary: 'Show what you may access (nothing is listed for unrestricted users)',
    method: 'GET',
    path: '/profile/grants',
    scopes: [],
    paginated: false,
    request: noInput,
    response: profileGrantsResultSchema,
    example: 'profile grants',
  }),
  defineOperation({
    group: 'profile',
    action: 'logins-list',
    summary: 'List your successful logins of the last 90 days',
    method: 'GET',
    path: '/profile/logins',
    scopes: ['account:read_only'],
    paginated: true,
    pageParams: false,
    request: noInput,
    response: loginSchema,
    example: 'profile logins-list',
  }),
  defineOperation({
    group: 'profile',
    action: 'logins-view',
    aliases: ['login-view'],
    summary: 'Show one login',
    method: 'GET',
    path: '/profile/logins/{loginId}',
    scopes: ['account:read_only'],
    paginated: false,
    request: () => z.strictObject(LoginRef),
    response: loginSchema,
    example: 'profile logins-view 1234',
  }),
  defineOperation({
    group: 'profile',
    action: 'phone-number-delete',
    summary: 'Remove your verified phone number and opt out of SMS',
    method: 'DELETE',
    path: '/profile/phone-number',
    scopes: ['account:read_write'],
    paginated: false,
    destructive: {
      consequence:
        'Your verified phone number is removed and you are opted out of SMS; using a number again needs a new code and verification.',
    },
    request: noInput,
    response: EmptyResultSchema,
    example: 'profile phone-number-delete',
  }),
  defineOperation({
    group: 'profile',
    action: 'phone-number-add',
    summary: 'Send a verification code by SMS to a phone number (valid 10 minutes)',
    method: 'POST',
    path: '/profile/phone-number',
    scopes: ['account:read_write'],
    paginated: false,
    request: () =>
      z.strictObject({
        iso_code: text().regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO 3166 country code'),
        phone_number: text(1),
      }),
    response: EmptyResultSchema,
    example: 'profile phone-number-add --iso-code US --phone-number 555-555-5555',
  }),
  defineOperation({
    group: 'profile',
    action: 'phone-number-verify',
    summary: 'Verify your phone number with the code you received',
    method: 'POST',
    path: '/profile/phone-number/verify',
    scopes: ['account:read_write'],
    paginated: false,
    request: () => z.strictObject({ otp_code: text(1) }),
    response: EmptyResultSchema,
    example: 'profile phone-number-verify --otp-code 123456',
  }),
  defineOperation({
    group: 'profile',
    action: 'preferences-view',
    summary: "Show the preferences stored for this token's client",
    method: 'GET',
    path: '/profile/preferences',
    scopes: ['account:read_only'],
    paginated: false,
    request: noInput,
    response: preferencesSchema,
    example: 'profile preferences-view',
  }),
  defineOperation({
    group: 'profile',
    action: 'preferences-update',
    summary: "Replace the preferences stored for this token's client",
    method: 'PUT',
    path: '/profile/preferences',
    scopes: ['account:read_write'],
    paginated: false,
    // The whole body is the preferences object, so the length rule applies to the request itself.
    request: () =>
      z
        .record(z.string(), z.json(), { error: 'preferences must be a JSON object' })
        .superRefine((preferences, ctx) => {
          if (JSON.stringify(preferences).length > PREFERENCES_MAX_LENGTH) {
            ctx.addIssue({
              code: 'custom',
              path: [],
              message: 'preferences must be at most 65,535 characters as JSON',
            });
          }
        }),
    response: preferencesSchema,
    example: 'profile preferences-update --theme dark',
  }),
  defineOperation({
    group: 'profile',
    action: 'security-questions-list',
    summary: 'List the security questions and your answers',
    method: 'GET',
    path: '/profile/security-questions',
    scopes: ['account:read_only'],
    paginated: false,
    request: noInput,
    response: securityQuestionsSchema,
    example: 'profile security-questions-list',
  }),
  defineOperation({
    group: 'profile',
    action: 'security-questions-answer',
    summary: 'Answer three security questions (needed before enabling 2FA)',
    method: 'POST',
    path: '/profile/security-questions',
    scopes: ['account:read_write'],
    paginated: false,
    request: () =>
      z
        .strictObject({
          security_questions: z
            .array(
              z.strictObject(
                { question_id: IdSchema, response: text(1) },
                { error: mustBe('a question_id and a response') },
              ),
              { error: mustBe('a list of answers') },
            )
            .length(3, 'must answer exactly three questions'),
        })
        .superRefine((v, ctx) => {
          const seen = new Set<number>();
          v.security_questions.forEach((answer, index) => {
            if (seen.has(answer.question_id)) {
              ctx.addIssue({
                code: 'custom',
                path: ['security_questions', index, 'question_id'],
                message: 'repeats a question already answered',
              });
            }
            seen.add(answer.question_id);
          });
        }),
    response: securityAnswersSchema,
    example:
      'profile security-questions-answer --security-questions \'[{"question_id":1,"response":"Gotham"},{"question_id":2,"response":"Rex"},{"question_id":3,"response":"Blue"}]\'',
  }),
  defineOperation({
    group: 'profile',
    action: 'sshkeys-list',
    summary: 'List the SSH keys on your profile',
    method: 'GET',
    path: '/profile/sshkeys',
    scopes: ['account:read_only'],
    paginated: true,
    request: () => z.strictObject({ ...PageQuerySchema.shape }),
    response: sSHKeySchema,
    example: 'profile sshkeys-list',
  }),
  defineOperation({
    group: 'profile',
    action: 'sshkeys-create',
    aliases: ['sshkey-create'],
    summary: 'Add an SSH public key to your profile',
    method: 'POST',
    path: '/profile/sshkeys',
    scopes: ['account:read_write'],
    paginated: false,
    events: { actions: ['user_ssh_key_add'], source: 'API-FACTS-MORE.md §8' },
    request: () =>
      z.strictObject({
        label: sSHKeyLabelSchema().optional(),
        ssh_key: text(1).optional(),
      }),
    response: sSHKeySchema,
    example:
      'profile sshkeys-create --label laptop --ssh-key "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI me@laptop"',
  }),
  defineOperation({
    group: 'profile',
    action: 'sshkeys-view',
    aliases: ['sshkey-view'],
    summary: 'Show one SSH key',
    method: 'GET',
    path: '/profile/sshkeys/{sshKeyId}',
    scopes: ['account:read_only'],
    paginated: false,
    request: () => z.strictObject(SSHKeyRef),
    response: sSHKeySchema,
    example: 'profile sshkeys-view 42',
  }),
  defineOperation({
    group: 'profile',
    action: 'sshkeys-update',
    aliases: ['sshkey-update'],
    summary: 'Rename an SSH key (only the label can change)',
    method: 'PUT',
    path: '/profile/sshkeys/{sshKeyId}',
    scopes: ['account:read_write'],
    paginated: false,
    events: { actions: ['user_ssh_key_update'], entityId: 'sshKeyId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject({ ...SSHKeyRef, label: sSHKeyLabelSchema().optional() }),
    response: sSHKeySchema,
    example: 'profile sshkeys-update 42 --label work-laptop',
  }),
  defineOperation({
    group: 'profile',
    action: 'sshkeys-delete',
    aliases: ['sshkey-delete'],
    summary: 'Remove an SSH key from your profile',
    method: 'DELETE',
    path: '/profile/sshkeys/{sshKeyId}',
    scopes: ['account:read_write'],
    paginated: false,
    destructive: {
      consequence: 'Removes only the profile association; keys already placed on nodes or disks stay there.',
    },
    events: { actions: ['user_ssh_key_delete'], entityId: 'sshKeyId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject(SSHKeyRef),
    response: EmptyResultSchema,
    example: 'profile sshkeys-delete 42',
  }),
  defineOperation({
    group: 'profile',
    action: 'tfa-disable',
    summary: 'Turn off two-factor authentication',
    method: 'POST',
    path: '/profile/tfa-disable',
    scopes: ['account:read_write'],
    paginated: false,
    destructive: { consequence: 'Logins from untrusted computers will need only the password.' },
    request: noInput,
    response: EmptyResultSchema,
    example: 'profile tfa-disable',
  }),
  defineOperation({
    group: 'profile',
    action: 'tfa-enable',
    summary: 'Start enabling two-factor authentication: issues a secret to confirm',
    method: 'POST',
    path: '/profile/tfa-enable',
    scopes: ['account:read_write'],
    paginated: false,
    sensitive: true,
    request: noInput,
    response: tfaSecretSchema,
    example: 'profile tfa-enable',
  }),
  defineOperation({
    group: 'profile',
    action: 'tfa-confirm',
    aliases: ['tfa-enable-confirm'],
    summary: 'Finish enabling two-factor authentication with a current code; returns a scratch code',
    method: 'POST',
    path: '/profile/tfa-enable-confirm',
    scopes: ['account:read_write'],
    paginated: false,
    sensitive: true,
    request: () => z.strictObject({ tfa_code: text(1) }),
    response: tfaScratchSchema,
    example: 'profile tfa-confirm --tfa-code 213456',
  }),
  defineOperation({
    group: 'profile',
    action: 'tokens-list',
    summary: 'List your personal access tokens',
    method: 'GET',
    path: '/profile/tokens',
    scopes: ['account:read_only'],
    paginated: true,
    pageParams: false,
    filterable: ['label', 'created'],
    request: noInput,
    response: personalAccessTokenSchema,
    example: 'profile tokens-list --label ci',
  }),
  defineOperation({
    group: 'profile',
    action: 'tokens-create',
    aliases: ['token-create'],
    summary: 'Create a personal access token (shown once; scopes at most your own)',
    method: 'POST',
    path: '/profile/tokens',
    scopes: ['account:read_write'],
    paginated: false,
    sensitive: true,
    events: { actions: ['token_create'], source: 'API-FACTS-MORE.md §8' },
    request: () =>
      z.strictObject({
        label: tokenLabelSchema().optional(),
        scopes: oAuthScopesSchema().optional(),
        // Omitted: valid until revoked.
        expiry: z.iso
          .datetime({ local: true, offset: true, error: mustBe('a date-time such as 2027-01-01T00:00:00') })
          .optional(),
      }),
    response: personalAccessTokenSchema,
    example: 'profile tokens-create --label ci --scopes "nodes:read_only" --expiry 2027-01-01T00:00:00',
  }),
  defineOperation({
    group: 'profile',
    action: 'tokens-view',
    aliases: ['token-view'],
    summary: 'Show one personal access token (first 16 characters only)',
    method: 'GET',
    path: '/profile/tokens/{tokenId}',
    scopes: ['account:read_only'],
    paginated: false,
    request: () => z.strictObject(TokenRef),
    response: personalAccessTokenSchema,
    example: 'profile tokens-view 123',
  }),
  defineOperation({
    group: 'profile',
    action: 'tokens-update',
    aliases: ['token-update'],
    summary: 'Rename a personal access token (only the label can change)',
    method: 'PUT',
    path: '/profile/tokens/{tokenId}',
    scopes: ['account:read_write'],
    paginated: false,
    events: { actions: ['token_update'], entityId: 'tokenId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject({ ...TokenRef, label: tokenLabelSchema().optional() }),
    response: personalAccessTokenSchema,
    example: 'profile tokens-update 123 --label ci-old',
  }),
  defineOperation({
    group: 'profile',
    action: 'tokens-delete',
    aliases: ['token-delete'],
    summary: 'Revoke a personal access token',
    method: 'DELETE',
    path: '/profile/tokens/{tokenId}',
    scopes: ['account:read_write'],
    paginated: false,
    destructive: {
      consequence:
        'The token is invalidated immediately; requests with it fail, even if it is the token you are using.',
    },
    events: { actions: ['token_delete'], entityId: 'tokenId', source: 'API-FACTS-MORE.md §8' },
    request: () => z.strictObject(TokenRef),
    response: EmptyResultSchema,
    example: 'profile tokens-delete 123',
  }),
] as const;
