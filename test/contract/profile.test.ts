import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../infra/local/emulator/clock.js';
import type { RunningEmulator } from '../../infra/local/emulator/server.js';
import type { ApiClient } from '../../lib/api/client.js';
import { apiErrorOf, clientFor, op, raw, reasonsOf, STRONG_PASSWORD, startTestEmulator } from './support.js';

/** The profile area through the client: the document's profile rules 1-7 and its states table. */

let emulator: RunningEmulator;
let demo: ApiClient;

beforeAll(async () => {
  emulator = await startTestEmulator();
  demo = clientFor(emulator, emulator.control.tokens.demo);
});

afterAll(async () => {
  await emulator?.close();
});

/** A fresh user with a token, so tests do not share profile state. */
function newUser(username: string, scopes = '*', restricted = false) {
  emulator.control.createUser({ username, restricted });
  const { token } = emulator.control.createToken(username, { scopes });
  return { username, token, client: clientFor(emulator, token) };
}

const answers = (...ids: number[]) => ({
  security_questions: ids.map((question_id) => ({ question_id, response: `answer ${question_id}` })),
});

describe('profile rules', () => {
  it('profile rule 1: GET /profile identifies the acting user with any valid token, whatever its scopes', async () => {
    const { token } = emulator.control.createToken('demo', { scopes: 'nodes:read_only' });
    const narrow = clientFor(emulator, token);
    const profile = await narrow.call(op('GET /profile'), {});
    expect(profile).toMatchObject({ username: 'demo', restricted: false });
    const refused = await apiErrorOf(narrow.call(op('GET /profile/sshkeys'), {}));
    expect(refused.status).toBe(403);
  });

  it('profile rule 2: grants are open to any client and list only entities the user can access', async () => {
    const { token } = emulator.control.createToken('dev', { scopes: 'volumes:read_only' });
    const grants = (await clientFor(emulator, token).call(op('GET /profile/grants'), {})) as {
      node: { id: number; permissions: string }[];
      global: { add_volumes: boolean };
    };
    expect(grants.node.map((g) => [g.id, g.permissions])).toEqual([
      [1001, 'read_write'],
      [1002, 'read_only'],
    ]);
    expect(grants.global.add_volumes).toBe(true);
  });

  it('profile rule 3: answering overwrites earlier answers and resets unanswered questions to null', async () => {
    const { client } = newUser('answers-user');
    await client.call(op('POST /profile/security-questions'), answers(1, 2, 3));
    await client.call(op('POST /profile/security-questions'), answers(4, 5, 6));
    const listed = (await client.call(op('GET /profile/security-questions'), {})) as {
      security_questions: { id: number; response: string | null }[];
    };
    const answered = listed.security_questions.filter((q) => q.response !== null).map((q) => q.id);
    expect(answered).toEqual([4, 5, 6]);
  });

  it('profile rule 3: two-factor authentication cannot start before the security questions are answered', async () => {
    const { client } = newUser('no-answers-user');
    const error = await apiErrorOf(client.call(op('POST /profile/tfa-enable'), {}));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/security questions/);
  });

  it('profile rule 4: only the user who requested the phone code may use it', async () => {
    const alice = newUser('phone-alice');
    const bob = newUser('phone-bob');
    await alice.client.call(op('POST /profile/phone-number'), {
      iso_code: 'US',
      phone_number: '+1 555 0111',
    });
    const code = emulator.control.lastSmsCode('phone-alice') as string;
    const stolen = await apiErrorOf(
      bob.client.call(op('POST /profile/phone-number/verify'), { otp_code: code }),
    );
    expect(stolen.status).toBe(400);
    await alice.client.call(op('POST /profile/phone-number/verify'), { otp_code: code });
    expect(await bob.client.call(op('GET /profile'), {})).toMatchObject({ verified_phone_number: null });
    expect(await alice.client.call(op('GET /profile'), {})).toMatchObject({
      verified_phone_number: '+1 555 0111',
    });
  });

  it('profile rule 5: deleting an SSH key removes only the profile association; keys on disks stay', async () => {
    const { username, client } = newUser('keys-user');
    const sshKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeysUser keys@laptop';
    const key = (await client.call(op('POST /profile/sshkeys'), { label: 'laptop', ssh_key: sshKey })) as {
      id: number;
    };
    const node = (await demo.call(op('POST /node/instances'), {
      region: 'us-east',
      type: 'g6-nanode-1',
      image: 'node/debian12',
      root_pass: STRONG_PASSWORD,
      authorized_users: [username],
    })) as { id: number };
    await client.call(op('DELETE /profile/sshkeys/{sshKeyId}'), { sshKeyId: key.id });
    const keys = (await client.call(op('GET /profile/sshkeys'), {})) as { data: unknown[] };
    expect(keys.data).toEqual([]);
    const disks = [...(emulator.control.world.nodes.get(node.id)?.disks.values() ?? [])];
    expect(disks.some((disk) => disk.authorizedKeys.includes(sshKey))).toBe(true);
  });

  it('profile rule 6: a new token may not have more scopes than the acting token', async () => {
    const { client } = newUser('scoped-user', 'account:read_write nodes:read_only');
    const wider = await apiErrorOf(
      client.call(op('POST /profile/tokens'), { label: 'wider', scopes: 'nodes:read_write' }),
    );
    expect(wider.status).toBe(403);
    const all = await apiErrorOf(client.call(op('POST /profile/tokens'), { label: 'all', scopes: '*' }));
    expect(all.status).toBe(403);
    const created = (await client.call(op('POST /profile/tokens'), {
      label: 'same',
      scopes: 'nodes:read_only',
    })) as {
      token: string;
    };
    // It works at once.
    const nodes = (await clientFor(emulator, created.token).call(op('GET /node/instances'), {})) as {
      results: number;
    };
    expect(nodes.results).toBeGreaterThanOrEqual(30);
  });

  it('profile rule 6: without expiry a token is valid until revoked; the raw token is returned only at creation', async () => {
    const created = (await demo.call(op('POST /profile/tokens'), {
      label: 'forever',
      scopes: 'images:read_only',
    })) as {
      id: number;
      token: string;
      expiry: string | null;
    };
    expect(created.expiry).toBeNull();
    expect(created.token.length).toBeGreaterThan(16);
    const viewed = (await demo.call(op('GET /profile/tokens/{tokenId}'), { tokenId: created.id })) as {
      token: string;
    };
    expect(viewed.token).toBe(created.token.slice(0, 16));
    emulator.control.advance(400 * 24 * 60 * MINUTE);
    await expect(clientFor(emulator, created.token).call(op('GET /images'), {})).resolves.toBeDefined();
  });

  it('profile rule 7: only the label of an SSH key or a token can change', async () => {
    const key = (await demo.call(op('GET /profile/sshkeys'), {})) as { data: { id: number }[] };
    const sshKeyId = key.data[0]?.id as number;
    const response = await raw(emulator, 'PUT /profile/sshkeys/{sshKeyId}', {
      token: emulator.control.tokens.demo,
      params: { sshKeyId },
      body: { ssh_key: 'ssh-ed25519 AAAAC3Nza other@host' },
    });
    expect(response.status).toBe(400);
    expect(reasonsOf(response.body)).toEqual(['ssh_key: is not a known field']);
    const tokens = (await demo.call(op('GET /profile/tokens'), {})) as { data: { id: number }[] };
    const tokenResponse = await raw(emulator, 'PUT /profile/tokens/{tokenId}', {
      token: emulator.control.tokens.demo,
      params: { tokenId: tokens.data[0]?.id as number },
      body: { scopes: '*' },
    });
    expect(tokenResponse.status).toBe(400);
    const renamed = await demo.call(op('PUT /profile/sshkeys/{sshKeyId}'), { sshKeyId, label: 'renamed' });
    expect(renamed).toMatchObject({ label: 'renamed' });
  });
});

describe('profile states', () => {
  it('two-factor auth: disabled → secret issued → enabled with a current code → disabled', async () => {
    const { client } = newUser('tfa-user');
    await client.call(op('POST /profile/security-questions'), answers(1, 2, 3));
    const unconfirmed = await apiErrorOf(
      client.call(op('POST /profile/tfa-enable-confirm'), { tfa_code: '123456' }),
    );
    expect(unconfirmed.status).toBe(400);
    const { secret } = (await client.call(op('POST /profile/tfa-enable'), {})) as { secret: string };
    const wrong = await apiErrorOf(
      client.call(op('POST /profile/tfa-enable-confirm'), { tfa_code: '000000' }),
    );
    expect(wrong.errors).toEqual([{ field: 'tfa_code', reason: 'Invalid two-factor code' }]);
    const code = TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: emulator.control.now() });
    const confirmed = (await client.call(op('POST /profile/tfa-enable-confirm'), { tfa_code: code })) as {
      scratch: string;
    };
    expect(confirmed.scratch).toMatch(/\S{8,}/);
    expect(await client.call(op('GET /profile'), {})).toMatchObject({ two_factor_auth: true });
    await client.call(op('POST /profile/tfa-disable'), {});
    expect(await client.call(op('GET /profile'), {})).toMatchObject({ two_factor_auth: false });
  });

  it('phone number: the code is valid 10 minutes and a repeat request sends the same code', async () => {
    const { username, client } = newUser('phone-timer');
    const number = { iso_code: 'GB', phone_number: '+44 20 7946 0000' };
    await client.call(op('POST /profile/phone-number'), number);
    await client.call(op('POST /profile/phone-number'), number);
    const codes = emulator.control.smsMessages(username).map((m) => m.code);
    expect(codes).toHaveLength(2);
    expect(codes[0]).toBe(codes[1]);
    emulator.control.advance(11 * MINUTE);
    const expired = await apiErrorOf(
      client.call(op('POST /profile/phone-number/verify'), { otp_code: codes[0] }),
    );
    expect(expired.message).toMatch(/expired/);
  });

  it('phone number: verified, then deleted (opted out of SMS)', async () => {
    const { username, client } = newUser('phone-verified');
    await client.call(op('POST /profile/phone-number'), { iso_code: 'US', phone_number: '+1 555 0123' });
    await client.call(op('POST /profile/phone-number/verify'), {
      otp_code: emulator.control.lastSmsCode(username),
    });
    expect(await client.call(op('GET /profile'), {})).toMatchObject({ verified_phone_number: '+1 555 0123' });
    await client.call(op('DELETE /profile/phone-number'), {});
    expect(await client.call(op('GET /profile'), {})).toMatchObject({ verified_phone_number: null });
  });

  it("authorized app: revoking it expires the app's token", async () => {
    const appToken = emulator.control.world.issuedTokens.find(
      (t) => t.token.startsWith('app-') && t.username === 'demo',
    );
    const appClient = clientFor(emulator, appToken?.token);
    await expect(appClient.call(op('GET /node/instances'), {})).resolves.toBeDefined();
    const apps = (await demo.call(op('GET /profile/apps'), {})) as { data: { id: number; label: string }[] };
    const app = apps.data.find((a) => a.label === 'Example Dashboard');
    await demo.call(op('DELETE /profile/apps/{appId}'), { appId: app?.id as number });
    expect((await apiErrorOf(appClient.call(op('GET /node/instances'), {}))).status).toBe(401);
  });

  it('trusted device: revoked, it is gone', async () => {
    const devices = (await demo.call(op('GET /profile/devices'), {})) as { data: { id: number }[] };
    const deviceId = devices.data[0]?.id as number;
    await demo.call(op('DELETE /profile/devices/{deviceId}'), { deviceId });
    expect((await apiErrorOf(demo.call(op('GET /profile/devices/{deviceId}'), { deviceId }))).status).toBe(
      404,
    );
  });

  it('personal access token: revoked, later requests fail with 401, even for the token that revoked itself', async () => {
    const { token, id } = emulator.control.createToken('demo', { scopes: '*', label: 'self-revoking' });
    const self = clientFor(emulator, token);
    await self.call(op('DELETE /profile/tokens/{tokenId}'), { tokenId: id });
    const error = await apiErrorOf(self.call(op('GET /profile'), {}));
    expect(error.status).toBe(401);
  });

  it('personal access token: unusable once its expiry is reached', async () => {
    const expiry = emulator.control.now() + 60 * MINUTE;
    const { token } = emulator.control.createToken('demo', { scopes: '*', expiry });
    const client = clientFor(emulator, token);
    await expect(client.call(op('GET /profile'), {})).resolves.toBeDefined();
    emulator.control.advance(61 * MINUTE);
    expect((await apiErrorOf(client.call(op('GET /profile'), {}))).status).toBe(401);
  });
});

describe('authentication rules of the profile document', () => {
  it('authentication rule 1: a request without a bearer token is not authenticated (401)', async () => {
    const response = await raw(emulator, 'GET /profile');
    expect(response.status).toBe(401);
    const malformed = await raw(emulator, 'GET /profile', { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
  });

  it('authentication rule 2: scopes are <area>:read_only|read_write separated by spaces, and * is all access', async () => {
    const { token } = emulator.control.createToken('demo', { scopes: 'volumes:read_only nodes:read_write' });
    const client = clientFor(emulator, token);
    await expect(client.call(op('GET /volumes'), {})).resolves.toBeDefined();
    // read_write includes read_only of the same area.
    await expect(client.call(op('GET /node/instances'), {})).resolves.toBeDefined();
    expect((await apiErrorOf(client.call(op('GET /databases/instances'), {}))).status).toBe(403);
    const response = await raw(emulator, 'GET /volumes', { token: emulator.control.tokens.demo });
    expect(response.headers.get('x-oauth-scopes')).toBe('*');
    expect(response.headers.get('x-accepted-oauth-scopes')).toBe('volumes:read_only');
  });

  it('authentication rule 3: GET /profile and GET /profile/grants need no particular scope', async () => {
    const { token } = emulator.control.createToken('dev', { scopes: 'images:read_only' });
    const client = clientFor(emulator, token);
    await expect(client.call(op('GET /profile'), {})).resolves.toMatchObject({ username: 'dev' });
    await expect(client.call(op('GET /profile/grants'), {})).resolves.toHaveProperty('global');
  });

  it('authentication rule 5: restricted users are limited by grants; unrestricted users have access to everything', async () => {
    const restricted = clientFor(emulator, emulator.control.tokens.restricted);
    const visible = (await restricted.call(op('GET /node/instances'), {})) as { data: { id: number }[] };
    expect(visible.data.map((n) => n.id)).toEqual([1001, 1002]);
    expect(
      (await apiErrorOf(restricted.call(op('GET /node/instances/{nodeId}'), { nodeId: 1003 }))).status,
    ).toBe(403);
    const everything = (await demo.call(op('GET /node/instances'), {})) as { results: number };
    expect(everything.results).toBeGreaterThanOrEqual(30);
    const response = await raw(emulator, 'GET /profile/grants', { token: emulator.control.tokens.demo });
    expect(response.status).toBe(204);
  });

  it('authentication rule 6: a revoked personal access token fails with 401', async () => {
    const { token } = emulator.control.createToken('demo', { scopes: '*' });
    expect(emulator.control.revokeToken(token)).toBe(true);
    const response = await raw(emulator, 'GET /profile', { token });
    expect(response.status).toBe(401);
    expect(reasonsOf(response.body)).toEqual(['Invalid Token']);
  });
});
