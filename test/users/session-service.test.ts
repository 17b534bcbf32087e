/**
 * Session expiry with a moved clock over the real SQLite stores: a session unused for longer than the idle
 * time ends, an active one ends at its absolute expiry, and use within the idle time keeps it alive.
 * Also the start-up checks of the session variables.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccountService } from '../../src/accounts/account-service.ts';
import { ConfigError } from '../../src/errors/catalog.ts';
import { openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteAccountStore } from '../../src/persistence/sqlite/sqlite-account-store.ts';
import { SqliteSessionStore } from '../../src/persistence/sqlite/sqlite-session-store.ts';
import { SqliteUserStore } from '../../src/persistence/sqlite/sqlite-user-store.ts';
import { MemoryRateLimiter } from '../../src/ratelimit/memory-rate-limiter.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { SessionService } from '../../src/users/session-service.ts';
import { UserService } from '../../src/users/user-service.ts';

const MINUTE = 60_000;
const PASSWORD = 'correct horse battery staple';

async function setup() {
  const db = openDatabase(':memory:');
  let now = Date.UTC(2026, 0, 1);
  const clock = () => now;
  const accounts = new AccountService(new SqliteAccountStore(db), { defaultRateLimit: 10, now: clock });
  const users = new SqliteUserStore(db);
  const sessions = new SqliteSessionStore(db);
  const limiter = new MemoryRateLimiter({ windowMs: 15 * MINUTE });
  const service = new SessionService(
    { users, sessions, accounts, limiter },
    {
      idleMs: 120 * MINUTE,
      maxAgeMs: 7 * 24 * 60 * MINUTE,
      signInLimitPerEmail: 10,
      signInLimitPerAddress: 50,
    },
    clock,
  );
  const { account } = await accounts.createAccount('a');
  const userService = new UserService(
    { store: users, sessions, accounts },
    { publicUrl: 'https://p.test', now: clock },
  );
  await userService.createUser(account.id, 'u@example.com', 'owner', PASSWORD);
  return {
    service,
    sessions,
    advance: (ms: number) => {
      now += ms;
    },
    close: async () => {
      await limiter.close();
      db.close();
    },
  };
}

test('a session unused for longer than the idle time is signed out, and removed', async () => {
  const { service, sessions, advance, close } = await setup();
  const signedIn = await service.signIn('u@example.com', PASSWORD, '127.0.0.1');
  advance(119 * MINUTE);
  assert.ok(await service.authenticate(signedIn.sessionId));
  // That use restarted the idle time.
  advance(119 * MINUTE);
  assert.ok(await service.authenticate(signedIn.sessionId));
  advance(121 * MINUTE);
  assert.equal(await service.authenticate(signedIn.sessionId), undefined);
  assert.equal(await sessions.findSession(signedIn.sessionHash), undefined);
  await close();
});

test('an active session ends at its absolute expiry', async () => {
  const { service, advance, close } = await setup();
  const signedIn = await service.signIn('u@example.com', PASSWORD, '127.0.0.1');
  assert.equal(signedIn.maxAgeSeconds, 7 * 24 * 3600);
  for (let hour = 0; hour < 7 * 24 - 1; hour++) {
    advance(60 * MINUTE);
    assert.ok(await service.authenticate(signedIn.sessionId), `hour ${hour}`);
  }
  advance(60 * MINUTE);
  assert.equal(await service.authenticate(signedIn.sessionId), undefined);
  await close();
});

test('a cookie value of the wrong shape is no session, without a lookup', async () => {
  const { service, close } = await setup();
  assert.equal(await service.authenticate('x'.repeat(5000)), undefined);
  assert.equal(await service.authenticate(''), undefined);
  await close();
});

test('the session variables are checked at start-up, naming the variable', () => {
  assert.deepEqual((({ idleMs, maxAgeMs }) => ({ idleMs, maxAgeMs }))(loadConfig({}).sessions), {
    idleMs: 2 * 3_600_000,
    maxAgeMs: 7 * 86_400_000,
  });
  assert.equal(
    loadConfig({ PRESSO_SESSION_IDLE: '30m', PRESSO_SESSION_MAX_AGE: '1d' }).sessions.idleMs,
    30 * MINUTE,
  );
  assert.throws(
    () => loadConfig({ PRESSO_SESSION_IDLE: 'soon' }),
    (e: Error) => e instanceof ConfigError && e.message.includes('PRESSO_SESSION_IDLE'),
  );
  assert.throws(
    () => loadConfig({ PRESSO_SESSION_IDLE: '3h', PRESSO_SESSION_MAX_AGE: '2h' }),
    (e: Error) => e instanceof ConfigError && /PRESSO_SESSION_MAX_AGE.*PRESSO_SESSION_IDLE/.test(e.message),
  );
  assert.throws(() => loadConfig({ PRESSO_SESSION_IDLE: '10s' }), /PRESSO_SESSION_IDLE must be at least 1m/);
  assert.throws(() => loadConfig({ PRESSO_WEBHOOK_SECRET_GRACE: 'a day' }), /PRESSO_WEBHOOK_SECRET_GRACE/);
});
