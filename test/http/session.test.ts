/**
 * Dashboard sessions and access control through app.inject(): the cookie and its flags, one answer for every
 * sign-in failure, rotation at sign-in, CSRF on state changes, roles, key scopes, session-only routes,
 * disabled accounts, invites, sign-out, the webhook secret and the operator's routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  asSignedIn,
  bodyOf,
  type ErrorBody,
  PASSWORD,
  type SessionBody,
  type SignedInClient,
  sessionPair,
  signIn,
} from '../support/dashboard.ts';
import { buildTestApp, TEST_PUBLIC_URL, type TestApp } from '../support/http-app.ts';

const json = (body: unknown) => ({
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});

describe('dashboard sessions and access control', () => {
  let t: TestApp;
  let owner: SignedInClient;
  let member: SignedInClient;
  let operator: SignedInClient;
  before(async () => {
    t = await buildTestApp({ env: { PRESSO_SIGNIN_LIMIT: '8' } });
    const { users } = t.services;
    await users.createUser(t.account.id, 'Owner@Example.com', 'owner', PASSWORD);
    await users.createUser(t.account.id, 'member@example.com', 'member', PASSWORD);
    const ops = await t.createAccount('operators');
    await users.createUser(ops.account.id, 'operator@example.com', 'operator', PASSWORD);
    owner = await signIn(t, 'owner@example.com');
    member = await signIn(t, 'member@example.com');
    operator = await signIn(t, 'operator@example.com');
  });
  after(() => t.close());

  it('signs in with a cookie that is HttpOnly, Secure, SameSite=Strict, for the whole site, for the absolute lifetime', async () => {
    const response = await t.request('/1.0/session', {
      method: 'POST',
      auth: false,
      ...json({ email: ' OWNER@example.com ', password: PASSWORD }),
    });
    assert.equal(response.status, 200);
    const cookie = response.headers.get('set-cookie') ?? '';
    const flags = cookie.split('; ').slice(1);
    assert.deepEqual(flags.sort(), ['HttpOnly', 'Max-Age=604800', 'Path=/', 'SameSite=Strict', 'Secure']);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const body = await bodyOf<SessionBody>(response);
    assert.deepEqual(Object.keys(body).sort(), ['account', 'csrfToken', 'user']);
    assert.deepEqual(body.account, { id: t.account.id, name: t.account.name });
    assert.equal(body.user.email, 'owner@example.com');
    assert.equal(body.user.role, 'owner');
    assert.doesNotMatch(JSON.stringify(body), /argon2|whsec_/);
  });

  it('answers an unknown email and a wrong password alike', async () => {
    const attempt = async (email: string, password: string) => {
      const response = await t.request('/1.0/session', {
        method: 'POST',
        auth: false,
        ...json({ email, password }),
      });
      const { id: _id, ...body } = await bodyOf<ErrorBody>(response);
      return { status: response.status, body };
    };
    const unknown = await attempt('nobody@example.com', PASSWORD);
    const wrong = await attempt('member@example.com', 'not the password');
    assert.equal(unknown.status, 401);
    assert.deepEqual(unknown, wrong);
    assert.equal(wrong.body.message, 'The email or password is incorrect.');
  });

  it('never keeps a cookie from before sign-in (session fixation), and ends the session it replaced', async () => {
    const planted = 'presso_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const first = await signIn(t, 'member@example.com', PASSWORD, { cookie: planted });
    assert.notEqual(first.cookie, planted);
    const second = await signIn(t, 'member@example.com', PASSWORD, { cookie: first.cookie });
    assert.notEqual(second.cookie, first.cookie);
    assert.equal((await first.request('/1.0/session')).status, 401);
    assert.equal((await second.request('/1.0/session')).status, 200);
  });

  it('answers the session, with the same CSRF token, to GET /1.0/session', async () => {
    const response = await owner.request('/1.0/session');
    assert.equal(response.status, 200);
    const body = await bodyOf<SessionBody>(response);
    assert.equal(body.csrfToken, owner.csrfToken);
    assert.equal(body.user.id, owner.body.user.id);
    assert.equal((await t.request('/1.0/session', { auth: false })).status, 401);
  });

  it('refuses a state change made with the session cookie but without its CSRF token, or from another origin', async () => {
    const invite = (init: { csrf?: boolean; headers?: Record<string, string> }) =>
      owner.request('/1.0/invites', {
        method: 'POST',
        body: JSON.stringify({ email: 'x@example.com', role: 'member' }),
        ...init,
      });
    const missing = await invite({ csrf: false });
    assert.equal(missing.status, 403);
    assert.match((await bodyOf<ErrorBody>(missing)).message, /X-CSRF-Token/);
    const wrong = await invite({ csrf: false, headers: { 'x-csrf-token': member.csrfToken } });
    assert.equal(wrong.status, 403);
    const foreign = await invite({ headers: { origin: 'https://evil.example' } });
    assert.equal(foreign.status, 403);
    assert.match((await bodyOf<ErrorBody>(foreign)).message, /origin/);
    const good = await invite({ headers: { origin: TEST_PUBLIC_URL } });
    assert.equal(good.status, 201);
    // A key is not subject to CSRF: a script sends it on purpose (and keys cannot reach invites at all).
    assert.equal((await t.request('/1.0/webhook-secret')).status, 200);
  });

  it('refuses a sign-in from another origin (login CSRF)', async () => {
    const response = await t.request('/1.0/session', {
      method: 'POST',
      auth: false,
      body: JSON.stringify({ email: 'member@example.com', password: PASSWORD }),
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    });
    assert.equal(response.status, 403);
  });

  it('refuses an API key on the session-only routes', async () => {
    for (const [method, path] of [
      ['GET', '/1.0/session'],
      ['GET', '/1.0/users'],
      ['POST', '/1.0/webhook-secret/rotate'],
      ['GET', '/1.0/operator/overview'],
    ] as const) {
      const response = await t.request(path, { method });
      assert.equal(response.status, 401, `${method} ${path}`);
      assert.match((await bodyOf<ErrorBody>(response)).message, /dashboard session/);
    }
  });

  it('lets a member read but not change: no connector, invite, role change or secret rotation', async () => {
    assert.equal((await member.request('/1.0/users')).status, 200);
    assert.equal((await member.request('/1.0/connectors')).status, 200);
    const refused = [
      await member.request('/1.0/connectors', {
        method: 'POST',
        body: JSON.stringify({ kind: 's3', bucket: 'b', credentials: {} }),
      }),
      await member.request('/1.0/invites', {
        method: 'POST',
        body: JSON.stringify({ email: 'y@example.com', role: 'member' }),
      }),
      await member.request(`/1.0/users/${member.body.user.id}`, {
        method: 'PATCH',
        body: JSON.stringify({ role: 'owner' }),
      }),
      await member.request('/1.0/webhook-secret/rotate', { method: 'POST' }),
      await member.request('/1.0/operator/accounts'),
    ];
    assert.deepEqual(
      refused.map((r) => r.status),
      [403, 403, 403, 403, 403],
    );
  });

  it('refuses a jobs-only key on the connector routes, and keeps keys made before scopes working there', async () => {
    const jobsOnly = await t.accounts.createKey(t.account.id, { scopes: ['jobs'] });
    const create = (auth: string) =>
      t.request('/1.0/connectors', {
        method: 'POST',
        auth,
        ...json({ kind: 's3', bucket: 'b', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }),
      });
    const refused = await create(`Bearer ${jobsOnly.key}`);
    assert.equal(refused.status, 403);
    assert.match((await bodyOf<ErrorBody>(refused)).message, /"connectors" scope/);
    assert.equal((await t.request('/1.0/account', { auth: `Bearer ${jobsOnly.key}` })).status, 200);
    // The test key has both scopes: the request passes the gate and fails later, on the probe, not with 403.
    assert.notEqual((await create(`Bearer ${t.key}`)).status, 403);
  });

  it('never shows the webhook secret after creation but in the answer to a rotation', async () => {
    const secret = (await t.accounts.getAccount(t.account.id))?.webhookSecret ?? '';
    const hint = await bodyOf<{ hint: string }>(await owner.request('/1.0/webhook-secret'));
    assert.equal(hint.hint, `whsec_…${secret.slice(-4)}`);
    const rotated = await owner.request('/1.0/webhook-secret/rotate', { method: 'POST' });
    assert.equal(rotated.status, 200);
    const { secret: fresh, previousValidUntil } = await bodyOf<{
      secret: string;
      previousValidUntil: string;
    }>(rotated);
    assert.match(fresh, /^whsec_/);
    assert.ok(Date.parse(previousValidUntil) > Date.now());
    const bodies = await Promise.all(
      ['/1.0/webhook-secret', '/1.0/session', '/1.0/account', '/1.0/users'].map(async (path) =>
        (await owner.request(path)).text(),
      ),
    );
    bodies.push(await (await t.request('/1.0/webhook-secret')).text());
    bodies.push(await (await operator.request('/1.0/operator/accounts')).text());
    for (const body of bodies) {
      assert.ok(!body.includes(secret.slice(6)), body);
      assert.ok(!body.includes(fresh.slice(6)), body);
    }
    const after = await bodyOf<{ hint: string; previousValidUntil: string }>(
      await owner.request('/1.0/webhook-secret'),
    );
    assert.equal(after.hint, `whsec_…${fresh.slice(-4)}`);
    assert.equal(after.previousValidUntil, previousValidUntil);
  });

  it("answers 404 for another account's user, as for an unknown one", async () => {
    const other = await t.createAccount('other');
    const stranger = await t.services.users.createUser(
      other.account.id,
      'stranger@example.com',
      'owner',
      PASSWORD,
    );
    for (const init of [
      { method: 'PATCH', body: JSON.stringify({ role: 'member' }) },
      { method: 'DELETE' },
    ]) {
      assert.equal((await owner.request(`/1.0/users/${stranger.id}`, init)).status, 404);
      assert.equal((await owner.request('/1.0/users/usr_unknown', init)).status, 404);
    }
    assert.equal((await t.services.users.getUser(stranger.id))?.role, 'owner');
  });

  it('keeps an owner in every account', async () => {
    const response = await owner.request(`/1.0/users/${owner.body.user.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ role: 'member' }),
    });
    assert.equal(response.status, 409);
  });

  it('invites by a one-time link that signs the new user in', async () => {
    const created = await owner.request('/1.0/invites', {
      method: 'POST',
      body: JSON.stringify({ email: 'New@Example.com', role: 'member' }),
    });
    assert.equal(created.status, 201);
    const { token, url, expiresAt } = await bodyOf<{ token: string; url: string; expiresAt: string }>(
      created,
    );
    assert.equal(url, `${TEST_PUBLIC_URL}/dashboard/#/invite/${token}`);
    assert.equal(Math.round((Date.parse(expiresAt) - Date.now()) / 3_600_000), 72);
    const shown = await t.request(`/1.0/invites/${token}`, { auth: false });
    assert.deepEqual(await shown.json(), {
      email: 'new@example.com',
      accountName: t.account.name,
      role: 'member',
    });
    const short = await t.request(`/1.0/invites/${token}/accept`, {
      method: 'POST',
      auth: false,
      ...json({ password: 'short' }),
    });
    assert.equal(short.status, 422);
    const accepted = await t.request(`/1.0/invites/${token}/accept`, {
      method: 'POST',
      auth: false,
      ...json({ password: PASSWORD }),
    });
    assert.equal(accepted.status, 200);
    const invited = asSignedIn(t, sessionPair(accepted), await bodyOf<SessionBody>(accepted));
    assert.equal(invited.body.user.email, 'new@example.com');
    assert.equal((await invited.request('/1.0/session')).status, 200);
    const again = await t.request(`/1.0/invites/${token}/accept`, {
      method: 'POST',
      auth: false,
      ...json({ password: PASSWORD }),
    });
    assert.equal(again.status, 404);
    assert.equal((await t.request(`/1.0/invites/${token}`, { auth: false })).status, 404);
    // Only an operator gives the operator role.
    const escalate = await owner.request('/1.0/invites', {
      method: 'POST',
      body: JSON.stringify({ email: 'boss@example.com', role: 'operator' }),
    });
    assert.equal(escalate.status, 403);
  });

  it('signs out one session, then every session of the user', async () => {
    const one = await signIn(t, 'member@example.com');
    const two = await signIn(t, 'member@example.com');
    const out = await one.request('/1.0/session', { method: 'DELETE' });
    assert.equal(out.status, 204);
    assert.match(out.headers.get('set-cookie') ?? '', /^presso_session=; Max-Age=0;/);
    assert.equal((await one.request('/1.0/session')).status, 401);
    assert.equal((await two.request('/1.0/session')).status, 200);
    const three = await signIn(t, 'member@example.com');
    assert.equal((await three.request('/1.0/sessions', { method: 'DELETE' })).status, 204);
    assert.equal((await two.request('/1.0/session')).status, 401);
    assert.equal((await three.request('/1.0/session')).status, 401);
    member = await signIn(t, 'member@example.com');
  });

  it('slows brute force: past the per-email limit every attempt is 429, the right password too', async () => {
    await t.services.users.createUser(t.account.id, 'target@example.com', 'member', PASSWORD);
    const attempt = (password: string) =>
      t.request('/1.0/session', {
        method: 'POST',
        auth: false,
        ...json({ email: 'target@example.com', password }),
      });
    const statuses = [];
    for (let i = 0; i < 8; i++) statuses.push((await attempt(`guess ${i}`)).status);
    assert.deepEqual(statuses, Array(8).fill(401));
    const limited = await attempt(PASSWORD);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });
});
