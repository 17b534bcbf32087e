/**
 * The dashboard's sign-in over real HTTPS (test/support/presso.ts): the cookie's flags as the server sends
 * them, a planted cookie never surviving sign-in, state changes refused without the CSRF token, brute force
 * answered 429, keys kept off the session-only routes, members kept from changing connectors, another
 * account's ids answered 404, and a session doing what the dashboard does (an upload, a job read).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { FormData } from 'undici';
import { bodyOf, type ErrorBody, PASSWORD, type SignedInClient, signIn } from '../support/dashboard.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';

describe('dashboard sessions over HTTPS', () => {
  let presso: TestPresso;
  let owner: SignedInClient;
  let member: SignedInClient;
  before(async () => {
    presso = await startTestPresso({ PRESSO_SIGNIN_LIMIT: '5' });
    const { users } = presso.services;
    await users.createUser(presso.account.id, 'owner@example.com', 'owner', PASSWORD);
    await users.createUser(presso.account.id, 'member@example.com', 'member', PASSWORD);
    await users.createUser(presso.account.id, 'target@example.com', 'member', PASSWORD);
    owner = await signIn(presso, 'owner@example.com');
    member = await signIn(presso, 'member@example.com');
  });
  after(() => presso.stop());

  it('sets the session cookie HttpOnly, Secure, SameSite=Strict and replaces a planted one', async () => {
    const planted = 'presso_session=plantedByAnAttackerplantedByAnAttackerplanted';
    const response = await presso.request('/1.0/session', {
      method: 'POST',
      auth: false,
      headers: { 'content-type': 'application/json', cookie: planted, origin: presso.url },
      body: JSON.stringify({ email: 'owner@example.com', password: PASSWORD }),
    });
    assert.equal(response.status, 200);
    const cookie = response.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^presso_session=[A-Za-z0-9_-]{43}; /);
    for (const flag of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/'])
      assert.ok(cookie.split('; ').includes(flag), `${flag} in ${cookie}`);
    assert.ok(!cookie.startsWith(planted));
  });

  it('refuses a state change without the CSRF token, and makes it with the token', async () => {
    const body = JSON.stringify({ email: 'invitee@example.com', role: 'member' });
    const refused = await owner.request('/1.0/invites', { method: 'POST', body, csrf: false });
    assert.equal(refused.status, 403);
    const made = await owner.request('/1.0/invites', { method: 'POST', body });
    assert.equal(made.status, 201);
  });

  it('answers 429 once the sign-in attempts for an email pass the limit', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const response = await presso.request('/1.0/session', {
        method: 'POST',
        auth: false,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'target@example.com', password: `guess-${i}-guess` }),
      });
      statuses.push(response.status);
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
  });

  it('keeps an API key off the session-only routes', async () => {
    const response = await presso.request('/1.0/webhook-secret/rotate', { method: 'POST' });
    assert.equal(response.status, 401);
    assert.equal((await presso.request('/1.0/users')).status, 401);
  });

  it('lets a member read connectors but not create one', async () => {
    assert.equal((await member.request('/1.0/connectors')).status, 200);
    const refused = await member.request('/1.0/connectors', {
      method: 'POST',
      body: JSON.stringify({
        kind: 's3',
        bucket: 'b',
        credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      }),
    });
    assert.equal(refused.status, 403);
    assert.match((await bodyOf<ErrorBody>(refused)).message, /owner/);
  });

  it("uploads with a session as the dashboard does, and answers 404 for another account's job", async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3a6' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([png]), 'square.png');
    const uploaded = await owner.request('/1.0/upload', { method: 'POST', body: form });
    assert.equal(uploaded.status, 200, await uploaded.clone().text());
    const { id } = await bodyOf<{ id: string }>(uploaded);
    assert.equal((await owner.request(`/1.0/jobs/${id}`)).status, 200);
    const other = await presso.createAccount('other');
    await presso.services.users.createUser(other.account.id, 'other@example.com', 'owner', PASSWORD);
    const stranger = await signIn(presso, 'other@example.com');
    assert.equal((await stranger.request(`/1.0/jobs/${id}`)).status, 404);
    assert.equal(
      (await stranger.request(`/1.0/users/${owner.body.user.id}`, { method: 'DELETE' })).status,
      404,
    );
  });
});
