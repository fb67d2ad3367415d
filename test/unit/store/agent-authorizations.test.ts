import { createHash } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentAuthorizationStore,
  AUTHORIZATION_CODE_SECONDS,
  type AuthorizationRequest,
  SIGN_IN_SECONDS,
} from '../../../lib/store/agent-authorizations.js';
import { AgentClientRepository } from '../../../lib/store/agent-clients.js';
import { createTestTable, type TestTable } from '../../support/store.js';

let table: TestTable;
let store: AgentAuthorizationStore;
beforeAll(async () => {
  table = await createTestTable();
  store = new AgentAuthorizationStore(table.ctx);
});
afterAll(() => table.dispose());

const REQUEST: AuthorizationRequest = {
  clientId: 'https://agent.example.com/client.json',
  clientName: 'Claude Code',
  redirectUri: 'http://localhost:33418/callback',
  codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  resource: 'https://bot.example.com/mcp',
  scopes: ['cloud:read', 'cloud:change'],
  state: 'xyz',
};
const PERSON = { team: 'T0TEAM', user: 'U0ALICE', channels: [{ id: 'C0OPS', name: 'ops' }] };

const hash = (text: string) => createHash('sha256').update(text).digest('base64url');

describe('an agent sign-in', () => {
  it('is found by its id from the browser that started it, with what the agent asked for', async () => {
    const started = await store.start(REQUEST);
    const found = await store.look(started.id, started.browserSecret);
    expect(found).toMatchObject({ status: 'valid', signIn: { request: REQUEST, nonce: started.nonce } });
  });

  it('is refused to another browser', async () => {
    const started = await store.start(REQUEST);
    const other = await store.start(REQUEST);
    expect(await store.look(started.id, other.browserSecret)).toEqual({ status: 'other_browser' });
  });

  it('is unknown under an id it was not given, however the id is shaped', async () => {
    const started = await store.start(REQUEST);
    for (const id of ['', '__proto__', 'x'.repeat(10_000), `${started.id}=`, started.browserSecret])
      expect(await store.look(id, started.browserSecret)).toEqual({ status: 'unknown' });
  });

  it('expires ten minutes after it started', async () => {
    const started = await store.start(REQUEST);
    table.clock.advance(SIGN_IN_SECONDS * 1000);
    expect(await store.look(started.id, started.browserSecret)).toEqual({ status: 'expired' });
  });

  it('takes the person Slack named once: a second callback is refused', async () => {
    const started = await store.start(REQUEST);
    const first = await store.signIn(started.id, started.browserSecret, PERSON);
    expect(first).toMatchObject({ status: 'valid', signIn: { person: PERSON } });
    expect(first.consentSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await store.signIn(started.id, started.browserSecret, { ...PERSON, user: 'U0MALLORY' })).toEqual({
      status: 'used',
    });
  });

  it('is decided once, with the consent page’s secret only', async () => {
    const started = await store.start(REQUEST);
    const signedIn = await store.signIn(started.id, started.browserSecret, PERSON);
    const secret = signedIn.consentSecret ?? '';
    expect(await store.decide(started.id, started.browserSecret, started.nonce)).toEqual({
      status: 'unknown',
    });
    expect(await store.decide(started.id, started.browserSecret, secret)).toMatchObject({
      status: 'valid',
      signIn: { person: PERSON },
    });
    expect(await store.decide(started.id, started.browserSecret, secret)).toEqual({ status: 'used' });
  });

  it('cannot be decided before Slack said who the person is', async () => {
    const started = await store.start(REQUEST);
    expect(await store.decide(started.id, started.browserSecret, started.browserSecret)).toEqual({
      status: 'unknown',
    });
  });

  it('keeps its id, browser and consent secrets only as hashes', async () => {
    const started = await store.start(REQUEST);
    const signedIn = await store.signIn(started.id, started.browserSecret, PERSON);
    const dump = JSON.stringify(
      (await table.client.send(new ScanCommand({ TableName: table.ctx.tableName }))).Items,
    );
    for (const secret of [started.id, started.browserSecret, signedIn.consentSecret ?? 'none'])
      expect(dump).not.toContain(secret);
    expect(dump).toContain(hash(started.id));
  });
});

describe('an authorization code', () => {
  const issue = () =>
    store.issueCode({
      clientId: REQUEST.clientId,
      redirectUri: REQUEST.redirectUri,
      codeChallenge: REQUEST.codeChallenge,
      resource: REQUEST.resource,
      grant: { team: 'T0TEAM', user: 'U0ALICE', id: 'grant1' },
    });

  it('is redeemed once; the second redemption says what it was issued for', async () => {
    const { code } = await issue();
    const first = await store.redeemCode(code);
    expect(first).toMatchObject({ status: 'valid', code: { grant: { id: 'grant1' } } });
    expect(await store.redeemCode(code)).toMatchObject({ status: 'used', code: { grant: { id: 'grant1' } } });
  });

  it('can be looked at without being spent', async () => {
    const { code } = await issue();
    expect((await store.lookCode(code)).status).toBe('valid');
    expect((await store.redeemCode(code)).status).toBe('valid');
  });

  it('expires two minutes after it was issued', async () => {
    const { code } = await issue();
    table.clock.advance(AUTHORIZATION_CODE_SECONDS * 1000);
    expect(await store.redeemCode(code)).toEqual({ status: 'expired' });
  });

  it('is stored only as a hash', async () => {
    const { code } = await issue();
    const dump = JSON.stringify(
      (await table.client.send(new ScanCommand({ TableName: table.ctx.tableName }))).Items,
    );
    expect(dump).not.toContain(code);
  });

  it('is unknown when forged', async () => {
    expect(await store.redeemCode('A'.repeat(43))).toEqual({ status: 'unknown' });
    expect(await store.redeemCode('constructor')).toEqual({ status: 'unknown' });
  });
});

describe('registered agents (DCR)', () => {
  it('are found by the id they were issued, with their redirect URIs', async () => {
    const clients = new AgentClientRepository(table.ctx);
    const registered = await clients.register({
      clientName: 'Cursor',
      redirectUris: ['http://127.0.0.1/callback'],
    });
    expect(registered.clientId).toMatch(/^cbc_/);
    expect(await clients.get(registered.clientId)).toMatchObject({
      clientName: 'Cursor',
      redirectUris: ['http://127.0.0.1/callback'],
    });
    expect(await clients.get('cbc_unknown')).toBeUndefined();
  });

  it('stay for good once a person consented to them (their TTL goes)', async () => {
    const clients = new AgentClientRepository(table.ctx);
    const registered = await clients.register({ clientName: 'x', redirectUris: ['https://a.example/cb'] });
    await clients.keep(registered.clientId);
    const items = await table.client.send(new ScanCommand({ TableName: table.ctx.tableName }));
    const item = items.Items?.find((entry) => entry.pk?.S === `AGENT_CLIENT#${registered.clientId}`);
    expect(item?.expires_at).toBeUndefined();
  });
});
