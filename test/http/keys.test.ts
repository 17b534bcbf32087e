/**
 * API keys through app.inject(): GET /1.0/keys lists names, scopes, use and revocation (never a secret),
 * POST creates a key whose secret is in that answer only (an owner's dashboard session, with its CSRF token;
 * never a key, never a member), DELETE revokes (an owner's session, or a key revoking itself). Another
 * account's key is 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertErrorBody } from '../api/helpers.ts';
import { PASSWORD, type SignedInClient, signIn } from '../support/dashboard.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import { bearer } from '../support/presso.ts';

interface KeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  key?: string;
}

describe('API keys', () => {
  let presso: TestApp;
  let owner: SignedInClient;
  let member: SignedInClient;
  before(async () => {
    presso = await buildTestApp();
    const { users } = presso.services;
    await users.createUser(presso.account.id, 'owner@example.com', 'owner', PASSWORD);
    await users.createUser(presso.account.id, 'member@example.com', 'member', PASSWORD);
    owner = await signIn(presso, 'owner@example.com');
    member = await signIn(presso, 'member@example.com');
  });
  after(() => presso?.close());

  const listKeys = async (auth = bearer(presso.key)) => {
    const response = await presso.request('/1.0/keys', { auth });
    assert.equal(response.status, 200);
    return ((await response.json()) as { keys: KeyView[] }).keys;
  };
  /** As the dashboard does: the owner's session and its CSRF token. */
  const createKey = (body: unknown, as: SignedInClient = owner) =>
    as.request('/1.0/keys', { method: 'POST', body: JSON.stringify(body) });

  test('the first key is listed with both scopes and its last use, and no secret', async () => {
    const keys = await listKeys();
    const first = keys.find((k) => k.id === presso.keyId);
    assert.ok(first);
    assert.deepEqual(first.scopes, ['jobs', 'connectors']);
    assert.equal(first.revokedAt, null);
    assert.equal(presso.key.startsWith(first.prefix), true);
    // This very request authenticated with it: its use is noted, at or after the key's creation.
    assert.ok(first.lastUsedAt !== null && Date.parse(first.lastUsedAt) >= Date.parse(first.createdAt));
    assert.doesNotMatch(JSON.stringify(keys), new RegExp(presso.key.slice(10)));
  });

  test('a created key shows its secret once, works, and is `jobs` only unless asked', async () => {
    const response = await createKey({ name: 'CI uploads' });
    assert.equal(response.status, 201);
    const created = (await response.json()) as KeyView;
    assert.equal(created.name, 'CI uploads');
    assert.deepEqual(created.scopes, ['jobs']);
    assert.equal(created.lastUsedAt, null);
    assert.ok(created.key?.startsWith(created.prefix));
    const account = await presso.request('/1.0/account', { auth: bearer(created.key!) });
    assert.equal(account.status, 200);
    const listed = (await listKeys()).find((k) => k.id === created.id);
    assert.deepEqual(Object.keys(listed ?? {}).sort(), [
      'createdAt',
      'id',
      'lastUsedAt',
      'name',
      'prefix',
      'revokedAt',
      'scopes',
    ]);
    assert.ok(listed?.lastUsedAt, 'used once since');
    assert.doesNotMatch(JSON.stringify(await listKeys()), new RegExp(created.key!.slice(10)));

    const both = (await (await createKey({ name: 'ops', scopes: ['connectors', 'jobs'] })).json()) as KeyView;
    assert.deepEqual(both.scopes, ['jobs', 'connectors']);
  });

  test('only an owner’s session creates keys: never a key (even one with every scope), a member, or without CSRF', async () => {
    const byKey = await presso.request('/1.0/keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'minted by a key' }),
    });
    const refused = await assertErrorBody(byKey, 401);
    assert.match(String(refused.message), /session/);
    await assertErrorBody(await createKey({ name: 'by a member' }, member), 403);
    const noCsrf = await owner.request('/1.0/keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'forged' }),
      csrf: false,
    });
    await assertErrorBody(noCsrf, 403);
    const names = (await listKeys()).map((k) => k.name);
    for (const name of ['minted by a key', 'by a member', 'forged']) assert.ok(!names.includes(name));
  });

  test('a key needs a name; scopes are from the list, each once', async () => {
    for (const body of [{}, { name: '' }, { name: 'x', scopes: ['admin'] }, { name: 'x', scopes: [] }]) {
      const response = await createKey(body);
      await assertErrorBody(response, 422);
    }
    await assertErrorBody(await createKey({ name: 'x', scopes: ['jobs', 'jobs'] }), 422);
  });

  test('a key revokes itself and is refused from then on', async () => {
    const created = (await (await createKey({ name: 'short-lived' })).json()) as KeyView;
    const auth = bearer(created.key!);
    const revoked = await presso.request(`/1.0/keys/${created.id}`, { method: 'DELETE', auth });
    assert.equal(revoked.status, 204);
    await assertErrorBody(await presso.request('/1.0/account', { auth }), 401);
    const listed = (await listKeys()).find((k) => k.id === created.id);
    assert.ok(listed?.revokedAt);
  });

  test('a key cannot revoke another key of its account, nor can a member; an owner’s session can', async () => {
    const created = (await (await createKey({ name: 'victim' })).json()) as KeyView;
    const path = `/1.0/keys/${created.id}`;
    await assertErrorBody(await presso.request(path, { method: 'DELETE' }), 403);
    await assertErrorBody(await member.request(path, { method: 'DELETE' }), 403);
    assert.equal((await presso.request('/1.0/account', { auth: bearer(created.key!) })).status, 200);
    assert.equal((await owner.request(path, { method: 'DELETE' })).status, 204);
    assert.equal((await presso.request('/1.0/account', { auth: bearer(created.key!) })).status, 401);
    const listed = (await (await member.request('/1.0/keys')).json()) as { keys: KeyView[] };
    assert.ok(listed.keys.find((k) => k.id === created.id)?.revokedAt, 'a member reads the list');
  });

  test("another account's key id is 404, and its keys are not listed", async () => {
    const other = await presso.createAccount('other');
    await presso.services.users.createUser(other.account.id, 'other@example.com', 'owner', PASSWORD);
    const otherOwner = await signIn(presso, 'other@example.com');
    await assertErrorBody(await otherOwner.request(`/1.0/keys/${presso.keyId}`, { method: 'DELETE' }), 404);
    const response = await presso.request(`/1.0/keys/${presso.keyId}`, {
      method: 'DELETE',
      auth: bearer(other.key),
    });
    await assertErrorBody(response, 404);
    await assertErrorBody(
      await presso.request('/1.0/keys/key_doesnotexist', { method: 'DELETE', auth: bearer(other.key) }),
      404,
    );
    assert.equal((await presso.request('/1.0/account')).status, 200, 'the key still works');
    assert.deepEqual(
      (await listKeys(bearer(other.key))).map((k) => k.id),
      [other.keyId],
    );
  });

  test('without a key the key routes are 401', async () => {
    await assertErrorBody(await presso.request('/1.0/keys', { auth: false }), 401);
    await assertErrorBody(
      await presso.request('/1.0/keys', { method: 'POST', auth: false, body: '{"name":"x"}' }),
      401,
    );
  });
});
