import { Secret, TOTP } from 'otpauth';
import { issueToken, renderToken, revokeToken } from '../accounts.js';
import { parseScopes, scopesWithin } from '../auth.js';
import { SECURITY_QUESTIONS } from '../catalog.js';
import { apiTime, DAY, MINUTE, parseApiTime } from '../clock.js';
import { badRequest, forbidden } from '../errors.js';
import type { AppRecord, DeviceRecord, LoginRecord, SshKeyRecord, UserRecord, World } from '../world.js';
import { byId, found } from './lookup.js';
import { empty, type GroupHandlers, type HandlerContext, json, list, noContent } from './types.js';

/** Profile area: the acting user's own records (documents: profile rules 1-7, states table). */

export const PHONE_CODE_VALIDITY_MS = 10 * MINUTE;
export const TFA_SECRET_VALIDITY_MS = 10 * MINUTE;
const LOGIN_HISTORY_MS = 90 * DAY;
const REQUIRED_SECURITY_ANSWERS = 3;

export function renderProfile(user: UserRecord): Record<string, unknown> {
  return {
    uid: user.uid,
    username: user.username,
    email: user.email,
    restricted: user.restricted,
    two_factor_auth: user.two_factor_auth,
    email_notifications: user.email_notifications,
    ip_whitelist_enabled: user.ip_whitelist_enabled,
    lish_auth_method: user.lish_auth_method,
    authorized_keys: user.authorized_keys ?? [],
    timezone: user.timezone,
    verified_phone_number: user.verified_phone_number,
    authentication_type: 'password',
    referrals: {
      code: `${user.username}-ref`,
      url: `https://cloud.example.com/?r=${user.username}-ref`,
      total: 0,
      completed: 0,
      pending: 0,
      credit: 0,
    },
  };
}

function renderApp(app: AppRecord) {
  return {
    id: app.id,
    label: app.label,
    scopes: app.scopes,
    created: apiTime(app.created),
    expiry: app.expiry === null ? null : apiTime(app.expiry),
    thumbnail_url: app.thumbnail_url,
    website: app.website,
  };
}

function renderDevice(device: DeviceRecord) {
  return {
    id: device.id,
    created: apiTime(device.created),
    expiry: apiTime(device.expiry),
    last_authenticated: apiTime(device.last_authenticated),
    last_remote_addr: device.last_remote_addr,
    user_agent: device.user_agent,
  };
}

function renderLogin(login: LoginRecord) {
  return {
    id: login.id,
    datetime: apiTime(login.datetime),
    ip: login.ip,
    restricted: login.restricted,
    status: login.status,
    username: login.username,
  };
}

function renderSshKey(key: SshKeyRecord) {
  return { id: key.id, label: key.label, ssh_key: key.ssh_key, created: apiTime(key.created) };
}

/** The entity grants of a restricted user, with labels; entities that are gone are left out. */
function renderGrants(world: World, user: UserRecord) {
  const entries = (kind: 'node' | 'volume' | 'image' | 'database') =>
    [...user.grants.entities[kind]].flatMap(([id, permissions]) => {
      const label = entityLabel(world, kind, id);
      return label === undefined
        ? []
        : [{ id: kind === 'image' ? imageGrantId(id) : Number(id), label, permissions }];
    });
  return {
    global: { ...user.grants.global },
    node: entries('node'),
    volume: entries('volume'),
    image: entries('image'),
    database: entries('database'),
    domain: [],
    longview: [],
    nodebalancer: [],
    stackscript: [],
    vpc: [],
  };
}

/** Image grants carry the numeric part of a private image id. */
function imageGrantId(id: string): number {
  return Number(id.replace(/^private\//, ''));
}

function entityLabel(
  world: World,
  kind: 'node' | 'volume' | 'image' | 'database',
  id: string,
): string | undefined {
  switch (kind) {
    case 'node':
      return world.nodes.get(Number(id))?.label;
    case 'volume':
      return world.volumes.get(Number(id))?.label;
    case 'image':
      return world.images.get(id)?.label;
    case 'database':
      return world.databases.get(Number(id))?.label;
  }
}

const SSH_KEY_PATTERN =
  /^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com) [A-Za-z0-9+/=]+( .*)?$/;

function preferencesKey(ctx: HandlerContext): string {
  const appId = ctx.caller?.token.appId;
  return appId ? `app:${appId}` : 'personal-access-tokens';
}

function newBase32Secret(world: World): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let secret = '';
  for (let i = 0; i < 16; i++) secret += alphabet[world.random.int(0, 31)];
  return secret;
}

export const profileHandlers: GroupHandlers<'profile'> = {
  // Profile rule 1: any valid token, whatever its scopes.
  'profile.view': (ctx) => json(renderProfile(ctx.user)),

  'profile.update': (ctx) => {
    const user = ctx.user;
    const input = ctx.input;
    const twoFactor = input.optionalBool('two_factor_auth');
    if (twoFactor === true && !user.two_factor_auth) {
      throw badRequest(
        'Enable two-factor authentication with tfa-enable and tfa-enable-confirm',
        'two_factor_auth',
      );
    }
    if (input.optionalBool('ip_whitelist_enabled') === true && !user.ip_whitelist_enabled) {
      throw badRequest('is deprecated and cannot be enabled', 'ip_whitelist_enabled');
    }
    if (twoFactor === false) {
      user.two_factor_auth = false;
      user.tfaPending = null;
    }
    const email = input.optionalText('email');
    if (email !== undefined) user.email = email;
    const notifications = input.optionalBool('email_notifications');
    if (notifications !== undefined) user.email_notifications = notifications;
    if (input.optionalBool('ip_whitelist_enabled') === false) user.ip_whitelist_enabled = false;
    const lish = input.optionalText('lish_auth_method');
    if (lish !== undefined) user.lish_auth_method = lish as UserRecord['lish_auth_method'];
    const restricted = input.optionalBool('restricted');
    if (restricted !== undefined) user.restricted = restricted;
    const timezone = input.optionalText('timezone');
    if (timezone !== undefined) user.timezone = timezone;
    if (input.raw('authorized_keys') === null) user.authorized_keys = null;
    const keys = input.optionalTextList('authorized_keys');
    if (keys !== undefined) user.authorized_keys = keys;
    return json(renderProfile(user));
  },

  'profile.apps-list': (ctx) => list(byId(ctx.user.apps.values()), renderApp),
  'profile.apps-view': (ctx) =>
    json(renderApp(found(ctx.user.apps.get(ctx.input.int('appId')), 'Authorized app'))),
  // States table: a revoked app's token expires and can no longer access the account.
  'profile.apps-revoke': (ctx) => {
    const app = found(ctx.user.apps.get(ctx.input.int('appId')), 'Authorized app');
    ctx.user.apps.delete(app.id);
    for (const token of [...ctx.world.tokens.values()]) {
      if (token.appId === app.id) revokeToken(ctx.world, token);
    }
    return empty();
  },

  'profile.devices-list': (ctx) => list(byId(ctx.user.devices.values()), renderDevice),
  'profile.devices-view': (ctx) =>
    json(renderDevice(found(ctx.user.devices.get(ctx.input.int('deviceId')), 'Trusted device'))),
  'profile.devices-revoke': (ctx) => {
    const device = found(ctx.user.devices.get(ctx.input.int('deviceId')), 'Trusted device');
    ctx.user.devices.delete(device.id);
    return empty();
  },

  // Profile rule 2: any client may ask; only accessible entities are listed; unrestricted users get 204.
  'profile.grants': (ctx) => (ctx.user.restricted ? json(renderGrants(ctx.world, ctx.user)) : noContent()),

  // The login list covers the last 90 days.
  'profile.logins-list': (ctx) =>
    list(
      byId(ctx.user.logins.values()).filter((login) => login.datetime >= ctx.now - LOGIN_HISTORY_MS),
      renderLogin,
    ),
  'profile.logins-view': (ctx) =>
    json(renderLogin(found(ctx.user.logins.get(ctx.input.int('loginId')), 'Login'))),

  'profile.phone-number-delete': (ctx) => {
    ctx.user.verified_phone_number = null;
    ctx.user.phoneCode = null;
    return empty();
  },

  // States table: the code is valid 10 minutes; a repeat request before expiry sends the same code.
  'profile.phone-number-add': (ctx) => {
    const user = ctx.user;
    const phoneNumber = ctx.input.text('phone_number');
    const isoCode = ctx.input.text('iso_code').toUpperCase();
    const pending = user.phoneCode && user.phoneCode.expiresAt > ctx.now ? user.phoneCode : null;
    const code = pending?.code ?? ctx.world.random.digits(6);
    user.phoneCode = {
      code,
      phoneNumber,
      isoCode,
      expiresAt: pending?.expiresAt ?? ctx.now + PHONE_CODE_VALIDITY_MS,
    };
    ctx.world.sms.push({ username: user.username, phoneNumber, code, sentAt: ctx.now });
    return empty();
  },

  // Profile rule 4: only the user who requested the code may use it, and only before it expires.
  'profile.phone-number-verify': (ctx) => {
    const user = ctx.user;
    const pending = user.phoneCode;
    const code = ctx.input.text('otp_code');
    if (!pending) throw badRequest('No verification code was sent to you; request one first', 'otp_code');
    if (pending.expiresAt <= ctx.now) {
      user.phoneCode = null;
      throw badRequest('The verification code has expired; request a new one', 'otp_code');
    }
    if (pending.code !== code) throw badRequest('Invalid verification code', 'otp_code');
    user.verified_phone_number = pending.phoneNumber;
    user.phoneCode = null;
    return empty();
  },

  'profile.preferences-view': (ctx) => json(ctx.user.preferences.get(preferencesKey(ctx)) ?? {}),
  'profile.preferences-update': (ctx) => {
    const preferences = { ...ctx.input.all };
    ctx.user.preferences.set(preferencesKey(ctx), preferences);
    return json(preferences);
  },

  'profile.security-questions-list': (ctx) =>
    json({
      security_questions: SECURITY_QUESTIONS.map((q) => ({
        id: q.id,
        question: q.question,
        response: ctx.user.securityAnswers.get(q.id) ?? null,
      })),
    }),

  // Profile rule 3: answering overwrites earlier answers and resets unanswered questions to null.
  'profile.security-questions-answer': (ctx) => {
    const answers = (ctx.input.optionalList('security_questions') ?? []) as {
      question_id: number;
      response: string;
    }[];
    answers.forEach((answer, index) => {
      if (!SECURITY_QUESTIONS.some((q) => q.id === answer.question_id)) {
        throw badRequest('is not a known security question', `security_questions.${index}.question_id`);
      }
    });
    if (new Set(answers.map((a) => a.question_id)).size !== REQUIRED_SECURITY_ANSWERS) {
      throw badRequest('Answer exactly three different questions', 'security_questions');
    }
    ctx.user.securityAnswers.clear();
    for (const answer of answers) ctx.user.securityAnswers.set(answer.question_id, answer.response);
    return json({
      security_questions: answers.map((answer) => ({
        question_id: answer.question_id,
        response: answer.response,
        security_question: SECURITY_QUESTIONS.find((q) => q.id === answer.question_id)?.question ?? '',
      })),
    });
  },

  'profile.sshkeys-list': (ctx) => list(byId(ctx.user.sshKeys.values()), renderSshKey),
  'profile.sshkeys-create': (ctx) => {
    const sshKey = ctx.input.optionalText('ssh_key');
    if (sshKey === undefined) throw badRequest('is required', 'ssh_key');
    if (!SSH_KEY_PATTERN.test(sshKey.trim())) throw badRequest('is not a valid SSH public key', 'ssh_key');
    const key: SshKeyRecord = {
      id: ctx.world.nextId('sshkey', 51),
      label: ctx.input.optionalText('label') ?? '',
      ssh_key: sshKey.trim(),
      created: ctx.now,
    };
    ctx.user.sshKeys.set(key.id, key);
    return json(renderSshKey(key));
  },
  'profile.sshkeys-view': (ctx) =>
    json(renderSshKey(found(ctx.user.sshKeys.get(ctx.input.int('sshKeyId')), 'SSH key'))),
  // Profile rule 7: only the label changes (the row accepts nothing else).
  'profile.sshkeys-update': (ctx) => {
    const key = found(ctx.user.sshKeys.get(ctx.input.int('sshKeyId')), 'SSH key');
    const label = ctx.input.optionalText('label');
    if (label !== undefined) key.label = label;
    return json(renderSshKey(key));
  },
  // Profile rule 5: only the profile association goes; keys placed on disks stay there.
  'profile.sshkeys-delete': (ctx) => {
    const key = found(ctx.user.sshKeys.get(ctx.input.int('sshKeyId')), 'SSH key');
    ctx.user.sshKeys.delete(key.id);
    return empty();
  },

  'profile.tfa-disable': (ctx) => {
    ctx.user.two_factor_auth = false;
    ctx.user.tfaPending = null;
    return empty();
  },

  // Profile rule 3 and the states table: security questions first, then a secret to confirm.
  'profile.tfa-enable': (ctx) => {
    const user = ctx.user;
    if (user.two_factor_auth) throw badRequest('Two-factor authentication is already enabled');
    if (user.securityAnswers.size < REQUIRED_SECURITY_ANSWERS) {
      throw badRequest('Answer your security questions before enabling two-factor authentication');
    }
    const secret = newBase32Secret(ctx.world);
    user.tfaPending = { secret, expiresAt: ctx.now + TFA_SECRET_VALIDITY_MS };
    return json({ secret, expiry: apiTime(user.tfaPending.expiresAt) });
  },

  // States table: a current time-based code for the issued secret enables 2FA.
  'profile.tfa-confirm': (ctx) => {
    const user = ctx.user;
    const pending = user.tfaPending;
    if (!pending || pending.expiresAt <= ctx.now) {
      user.tfaPending = null;
      throw badRequest('No two-factor secret is waiting for confirmation; call tfa-enable first');
    }
    const delta = TOTP.validate({
      token: ctx.input.text('tfa_code'),
      secret: Secret.fromBase32(pending.secret),
      timestamp: ctx.now,
      window: 1,
    });
    if (delta === null) throw badRequest('Invalid two-factor code', 'tfa_code');
    user.two_factor_auth = true;
    user.tfaPending = null;
    return json({ scratch: ctx.world.random.hex(16) });
  },

  'profile.tokens-list': (ctx) =>
    list(
      byId(ctx.world.tokens.values()).filter((token) => token.uid === ctx.user.uid && token.appId === null),
      (token) => renderToken(token),
    ),

  // Profile rule 6: no more than the acting token's scopes; no expiry means valid until revoked.
  'profile.tokens-create': (ctx) => {
    const acting = ctx.caller?.token.scopes ?? '';
    const scopes = ctx.input.optionalText('scopes') ?? acting;
    parseScopes(scopes);
    if (!scopesWithin(scopes, acting)) {
      throw forbidden('The new token may not have more scopes than the token used to create it', 'scopes');
    }
    const expiryText = ctx.input.optionalText('expiry');
    const expiry = expiryText === undefined ? null : parseApiTime(expiryText);
    if (expiry !== null && (!Number.isFinite(expiry) || expiry <= ctx.now)) {
      throw badRequest('must be a date-time in the future', 'expiry');
    }
    const { token, record } = issueToken(ctx.world, ctx.user, {
      label: ctx.input.optionalText('label') ?? '',
      scopes,
      expiry,
    });
    return json(renderToken(record, token));
  },
  'profile.tokens-view': (ctx) => json(renderToken(ownToken(ctx))),
  'profile.tokens-update': (ctx) => {
    const token = ownToken(ctx);
    const label = ctx.input.optionalText('label');
    if (label !== undefined) token.label = label;
    return json(renderToken(token));
  },
  // States table: invalidated at once, even the token making the request.
  'profile.tokens-delete': (ctx) => {
    revokeToken(ctx.world, ownToken(ctx));
    return empty();
  },
};

function ownToken(ctx: HandlerContext) {
  const token = ctx.world.tokens.get(ctx.input.int('tokenId'));
  return found(token && token.uid === ctx.user.uid && token.appId === null ? token : undefined, 'Token');
}
