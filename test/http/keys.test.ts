/**
 * API keys through app.inject(): GET /1.0/keys lists names, scopes, use and revocation (never a secret),
 * POST creates a key whose secret is in that answer only, DELETE revokes. Another account's key is 404.
 * Until dashboard sessions land, every call here is made with an API key (the session-only and owner-only
 * rules come with them); a key may revoke itself and no other.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertErrorBody } from '../api/helpers.ts';
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
  before(async () => {
    presso = await buildTestApp();
  });
  after(() => presso?.close());

  const listKeys = async (auth = bearer(presso.key)) => {
    const response = await presso.request('/1.0/keys', { auth });
    assert.equal(response.status, 200);
    return ((await response.json()) as { keys: KeyView[] }).keys;
  };
  const createKey = (body: unknown, auth: string | false = bearer(presso.key)) =>
    presso.request('/1.0/keys', {
      method: 'POST',
      auth,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  test('the first key is listed with both scopes and its last use, and no secret', async () => {
    const keys = await listKeys();
    const first = keys.find((k) => k.id === presso.keyId);
    assert.ok(first);
    assert.deepEqual(first.scopes, ['jobs', 'connectors']);
    assert.equal(first.revokedAt, null);
    assert.equal(presso.key.startsWith(first.prefix), true);
    // This very request authenticated with it: its use is noted.
    assert.ok(first.lastUsedAt !== null && Date.now() - Date.parse(first.lastUsedAt) < 3_600_000);
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

  test('a key cannot create a key with a scope it lacks', async () => {
    const jobsOnly = (await (await createKey({ name: 'jobs only' })).json()) as KeyView;
    const auth = bearer(jobsOnly.key!);
    await assertErrorBody(await createKey({ name: 'escalate', scopes: ['connectors'] }, auth), 403);
    await assertErrorBody(await createKey({ name: 'escalate', scopes: ['jobs', 'connectors'] }, auth), 403);
    assert.equal((await createKey({ name: 'sibling' }, auth)).status, 201);
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

  test('a key cannot revoke another key of its account (that takes an owner’s session)', async () => {
    const created = (await (await createKey({ name: 'victim' })).json()) as KeyView;
    const response = await presso.request(`/1.0/keys/${created.id}`, { method: 'DELETE' });
    await assertErrorBody(response, 403);
    assert.equal((await presso.request('/1.0/account', { auth: bearer(created.key!) })).status, 200);
  });

  test("another account's key id is 404, and its keys are not listed", async () => {
    const other = await presso.createAccount('other');
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
    await assertErrorBody(await createKey({ name: 'x' }, false), 401);
  });
});
