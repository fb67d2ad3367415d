import { createHash } from 'node:crypto';
import type { Scope } from '../../../lib/api/operation.js';
import { SCOPE_AREAS } from '../../../lib/api/operation.js';
import { badRequest, forbidden, unauthorized } from './errors.js';
import type { EntityKind, GlobalGrantFlag, Permission, TokenRecord, UserRecord, World } from './world.js';

/**
 * Who is calling and what they may do: bearer tokens with scopes, restricted users with grants.
 * `*` grants every scope; `<area>:read_write` includes `<area>:read_only`.
 */

export interface Caller {
  user: UserRecord;
  token: TokenRecord;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function bearerTokenOf(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

/**
 * The caller of a request: undefined without an Authorization header; 401 for a token that is
 * unknown, revoked or expired (documents: a revoked token fails with 401).
 */
export function authenticate(world: World, authorization: string | undefined): Caller | undefined {
  if (authorization === undefined || authorization.trim() === '') return undefined;
  const token = bearerTokenOf(authorization);
  if (!token) throw unauthorized('Invalid Token');
  const record = world.tokensByHash.get(hashToken(token));
  if (!record) throw unauthorized('Invalid Token');
  if (record.expiry !== null && record.expiry <= world.now()) throw unauthorized('Token expired');
  const user = world.users.get(record.uid);
  if (!user) throw unauthorized('Invalid Token');
  return { user, token: record };
}

const SCOPE_PATTERN = /^([a-z_]+):(read_only|read_write)$/;

/** Parses a scope string; throws 400 on an unknown area or level. */
export function parseScopes(scopes: string, field = 'scopes'): '*' | Scope[] {
  const parts = scopes.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) throw badRequest('must name at least one scope', field);
  if (parts.includes('*')) {
    if (parts.length > 1) throw badRequest('* cannot be combined with other scopes', field);
    return '*';
  }
  return parts.map((part) => {
    const match = SCOPE_PATTERN.exec(part);
    if (!match || !(SCOPE_AREAS as readonly string[]).includes(match[1] ?? '')) {
      throw badRequest(`${part} is not a known scope`, field);
    }
    return part as Scope;
  });
}

export function scopesCover(granted: string, needed: Scope): boolean {
  const parsed = parseScopes(granted);
  if (parsed === '*') return true;
  const [area] = needed.split(':');
  return parsed.some(
    (scope) => scope === needed || (scope === `${area}:read_write` && needed.endsWith(':read_only')),
  );
}

/** Documents' profile rule 6: a new token's scopes may not exceed those of the acting token. */
export function scopesWithin(requested: string, acting: string): boolean {
  const parsed = parseScopes(requested);
  if (parsed === '*') return parseScopes(acting) === '*';
  return parsed.every((scope) => scopesCover(acting, scope));
}

/** 403 unless the token holds every scope the operation lists. */
export function requireScopes(caller: Caller, scopes: readonly string[]): void {
  const missing = scopes.filter((scope) => !scopesCover(caller.token.scopes, scope as Scope));
  if (missing.length > 0) {
    throw forbidden(`Your OAuth token is not authorized to use this endpoint (needs ${missing.join(', ')})`);
  }
}

export function hasScopes(caller: Caller, scopes: readonly string[]): boolean {
  return scopes.every((scope) => scopesCover(caller.token.scopes, scope as Scope));
}

// ---------------------------------------------------------------------------------------------
// Grants of restricted users

/** The caller's permission on one entity: unrestricted users may do everything. */
export function permissionOn(
  user: UserRecord,
  kind: EntityKind,
  id: number | string,
): Permission | undefined {
  if (!user.restricted) return 'read_write';
  return user.grants.entities[kind].get(String(id));
}

export function canView(user: UserRecord, kind: EntityKind, id: number | string): boolean {
  return permissionOn(user, kind, id) !== undefined;
}

const KIND_NAMES: Record<EntityKind, string> = {
  node: 'node',
  volume: 'volume',
  image: 'image',
  database: 'database',
};

/** 403 when a restricted user lacks the permission (read_write includes read_only). */
export function requirePermission(
  user: UserRecord,
  kind: EntityKind,
  id: number | string,
  needed: Permission,
): void {
  const held = permissionOn(user, kind, id);
  if (held === 'read_write' || (held === 'read_only' && needed === 'read_only')) return;
  throw forbidden(`You need ${needed} access to ${KIND_NAMES[kind]} ${id}`);
}

export function requireGlobalGrant(user: UserRecord, grant: GlobalGrantFlag): void {
  if (user.restricted && !user.grants.global[grant]) {
    throw forbidden(`You need the ${grant} grant`);
  }
}

export function requireUnrestricted(user: UserRecord, what = 'This action'): void {
  if (user.restricted) throw forbidden(`${what} is for unrestricted users only`);
}

/** A restricted user who creates an entity gets read_write on it. */
export function grantCreator(user: UserRecord, kind: EntityKind, id: number | string): void {
  if (user.restricted) user.grants.entities[kind].set(String(id), 'read_write');
}

/** Removes a deleted entity from every user's grants. */
export function forgetEntity(world: World, kind: EntityKind, id: number | string): void {
  for (const user of world.users.values()) user.grants.entities[kind].delete(String(id));
}
