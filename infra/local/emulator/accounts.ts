import { randomBytes } from 'node:crypto';
import { hashToken, parseScopes } from './auth.js';
import { apiTime } from './clock.js';
import {
  ENTITY_KINDS,
  type EntityKind,
  GLOBAL_GRANT_FLAGS,
  type GlobalGrants,
  type Permission,
  type TokenRecord,
  type UserRecord,
  type World,
} from './world.js';

/** Users of the account and their personal access tokens. */

export function noGlobalGrants(): GlobalGrants {
  const flags = Object.fromEntries(GLOBAL_GRANT_FLAGS.map((flag) => [flag, false])) as Record<
    (typeof GLOBAL_GRANT_FLAGS)[number],
    boolean
  >;
  return { ...flags, account_access: null };
}

export interface NewUser {
  username: string;
  restricted?: boolean | undefined;
  email?: string | undefined;
  /** Global grants of a restricted user (e.g. `{add_volumes: true, account_access: 'read_only'}`). */
  globalGrants?: Partial<GlobalGrants> | undefined;
  /** Entity grants of a restricted user. */
  entityGrants?: { kind: EntityKind; id: number | string; permission: Permission }[] | undefined;
}

export function createUser(world: World, spec: NewUser): UserRecord {
  if (world.userByName(spec.username)) throw new Error(`User ${spec.username} already exists`);
  const uid = world.nextId('user', 1001);
  const entities = Object.fromEntries(
    ENTITY_KINDS.map((kind) => [kind, new Map<string, Permission>()]),
  ) as Record<EntityKind, Map<string, Permission>>;
  for (const grant of spec.entityGrants ?? []) entities[grant.kind].set(String(grant.id), grant.permission);
  const user: UserRecord = {
    uid,
    username: spec.username,
    email: spec.email ?? `${spec.username}@example.com`,
    restricted: spec.restricted ?? false,
    grants: { global: { ...noGlobalGrants(), ...spec.globalGrants }, entities },
    timezone: 'UTC',
    email_notifications: true,
    ip_whitelist_enabled: false,
    lish_auth_method: 'password_keys',
    authorized_keys: null,
    two_factor_auth: false,
    verified_phone_number: null,
    securityAnswers: new Map(),
    tfaPending: null,
    phoneCode: null,
    preferences: new Map(),
    apps: new Map(),
    devices: new Map(),
    logins: new Map(),
    sshKeys: new Map(),
  };
  world.users.set(uid, user);
  return user;
}

export interface NewToken {
  label?: string;
  scopes?: string;
  /** Epoch ms; absent or null: valid until revoked. */
  expiry?: number | null;
  appId?: number | null;
  /** A fixed token string (seed data); otherwise a random one. */
  token?: string;
}

/** Creates a token that works at once; returns the full token string, which is not stored. */
export function issueToken(
  world: World,
  user: UserRecord,
  spec: NewToken = {},
): { token: string; record: TokenRecord } {
  const scopes = spec.scopes ?? '*';
  const parsed = parseScopes(scopes);
  const token = spec.token ?? randomBytes(32).toString('hex');
  const record: TokenRecord = {
    id: world.nextId('token', 301),
    uid: user.uid,
    label: spec.label ?? '',
    scopes: parsed === '*' ? '*' : parsed.join(' '),
    created: world.now(),
    expiry: spec.expiry ?? null,
    prefix: token.slice(0, 16),
    hash: hashToken(token),
    appId: spec.appId ?? null,
  };
  world.tokens.set(record.id, record);
  world.tokensByHash.set(record.hash, record);
  world.issuedTokens.push({ token, username: user.username, createdAt: record.created });
  return { token, record };
}

export function revokeToken(world: World, record: TokenRecord): void {
  world.tokens.delete(record.id);
  world.tokensByHash.delete(record.hash);
}

export function renderToken(record: TokenRecord, fullToken?: string): Record<string, unknown> {
  return {
    id: record.id,
    label: record.label,
    scopes: record.scopes,
    created: apiTime(record.created),
    expiry: record.expiry === null ? null : apiTime(record.expiry),
    token: fullToken ?? record.prefix,
  };
}
