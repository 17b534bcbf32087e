/**
 * Behaviour every SessionStore must have: sessions found by the hash of their id, touched forward only,
 * deleted one by one, per user (sign out everywhere), and in bulk once idle or past their absolute expiry.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { SessionRecord, SessionStore } from '../../src/users/user-store.ts';

/** `users`: two users that exist in the store's database (sessions reference them). */
export type SessionStoreFactory = () => Promise<{ store: SessionStore; users: [string, string] }>;

const session = (userId: string, at: number, expiresAt = at + 1000): SessionRecord => ({
  idHash: `s_${randomUUID()}`,
  userId,
  createdAt: at,
  lastSeenAt: at,
  expiresAt,
});

export function sessionStoreContract(name: string, make: SessionStoreFactory): void {
  describe(`SessionStore contract: ${name}`, () => {
    it('finds a session by its hash, and moves its last use forward only', async () => {
      const {
        store,
        users: [u],
      } = await make();
      const s = session(u, 100);
      await store.createSession(s);
      assert.deepEqual(await store.findSession(s.idHash), s);
      assert.equal(await store.findSession('s_unknown'), undefined);
      await store.touchSession(s.idHash, 150);
      await store.touchSession(s.idHash, 120);
      assert.deepEqual(await store.findSession(s.idHash), { ...s, lastSeenAt: 150 });
    });

    it('refuses a second session with the same id', async () => {
      const {
        store,
        users: [u],
      } = await make();
      const s = session(u, 1);
      await store.createSession(s);
      await assert.rejects(store.createSession({ ...s }));
    });

    it('signs out one session, or every session of one user', async () => {
      const {
        store,
        users: [u, v],
      } = await make();
      const [a, b, c] = [session(u, 1), session(u, 2), session(v, 3)];
      for (const s of [a, b, c]) await store.createSession(s);
      await store.deleteSession(a.idHash);
      assert.equal(await store.findSession(a.idHash), undefined);
      assert.deepEqual(await store.findSession(b.idHash), b);
      await store.createSession(session(u, 4));
      assert.equal(await store.deleteUserSessions(u), 2);
      assert.equal(await store.findSession(b.idHash), undefined);
      assert.deepEqual(await store.findSession(c.idHash), c);
      assert.equal(await store.deleteUserSessions(u), 0);
    });

    it('deletes sessions idle too long or past their absolute expiry, and keeps the others', async () => {
      const {
        store,
        users: [u],
      } = await make();
      const idle = session(u, 10, 10_000);
      const old = { ...session(u, 10, 500), lastSeenAt: 400 };
      const fresh = { ...session(u, 10, 10_000), lastSeenAt: 400 };
      for (const s of [idle, old, fresh]) await store.createSession(s);
      assert.equal(await store.deleteExpired(300, 500), 2);
      assert.equal(await store.findSession(idle.idHash), undefined);
      assert.equal(await store.findSession(old.idHash), undefined);
      assert.deepEqual(await store.findSession(fresh.idHash), fresh);
    });
  });
}
