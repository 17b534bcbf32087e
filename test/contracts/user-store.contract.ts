/**
 * Behaviour every UserStore must have: users round-trip and are unique by email across accounts, roles
 * change, invites are found only while unused and unexpired, and an invite creates exactly one user.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { InviteRecord, UserRecord, UserStore } from '../../src/users/user-store.ts';

/** `accounts`: two accounts that exist in the store's database (users and invites reference them). */
export type UserStoreFactory = () => Promise<{ store: UserStore; accounts: [string, string] }>;

const user = (accountId: string, email: string, createdAt = 1): UserRecord => ({
  id: `usr_${randomUUID()}`,
  accountId,
  email,
  role: 'member',
  passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
  createdAt,
  lastSignInAt: undefined,
});

const invite = (accountId: string, email: string, expiresAt: number): InviteRecord => ({
  tokenHash: `h_${randomUUID()}`,
  accountId,
  email,
  role: 'owner',
  createdAt: 0,
  expiresAt,
});

export function userStoreContract(name: string, make: UserStoreFactory): void {
  describe(`UserStore contract: ${name}`, () => {
    it('stores users, finds them by id and email, lists them per account oldest first', async () => {
      const {
        store,
        accounts: [a, b],
      } = await make();
      const second = user(a, 'second@example.com', 2);
      const first = user(a, 'first@example.com', 1);
      const other = user(b, 'other@example.com', 3);
      for (const u of [second, first, other]) await store.createUser(u);
      assert.deepEqual(await store.getUser(first.id), first);
      assert.deepEqual(await store.findByEmail('other@example.com'), other);
      assert.equal(await store.findByEmail('nobody@example.com'), undefined);
      assert.equal(await store.getUser('usr_missing'), undefined);
      assert.deepEqual(
        (await store.listUsers(a)).map((u) => u.email),
        ['first@example.com', 'second@example.com'],
      );
      assert.deepEqual(
        (await store.listUsers(b)).map((u) => u.id),
        [other.id],
      );
    });

    it('refuses a second user with the same email, even in another account', async () => {
      const {
        store,
        accounts: [a, b],
      } = await make();
      await store.createUser(user(a, 'same@example.com'));
      await assert.rejects(store.createUser(user(b, 'same@example.com')));
      assert.equal((await store.listUsers(b)).length, 0);
    });

    it('changes roles, records sign-ins and deletes users', async () => {
      const {
        store,
        accounts: [a],
      } = await make();
      const u = user(a, 'roles@example.com');
      await store.createUser(u);
      assert.equal(await store.setRole(u.id, 'owner'), true);
      await store.recordSignIn(u.id, 1234);
      assert.deepEqual(await store.getUser(u.id), { ...u, role: 'owner', lastSignInAt: 1234 });
      assert.equal(await store.setRole('usr_missing', 'owner'), false);
      assert.equal(await store.deleteUser(u.id), true);
      assert.equal(await store.getUser(u.id), undefined);
      assert.equal(await store.deleteUser(u.id), false);
    });

    it('finds an invite only while it is unused and unexpired', async () => {
      const {
        store,
        accounts: [a],
      } = await make();
      const i = invite(a, 'invited@example.com', 1000);
      await store.createInvite(i);
      assert.deepEqual(await store.findInvite(i.tokenHash, 999), i);
      assert.equal(await store.findInvite(i.tokenHash, 1000), undefined);
      assert.equal(await store.findInvite('h_unknown', 0), undefined);
      // Expired: accepting it creates nobody.
      const late = user(a, 'invited@example.com');
      assert.equal(await store.acceptInvite(i.tokenHash, late, 1000), false);
      assert.equal(await store.getUser(late.id), undefined);
    });

    it('uses an invite once: of two acceptances exactly one creates its user', async () => {
      const {
        store,
        accounts: [a],
      } = await make();
      const i = invite(a, 'once@example.com', 10_000);
      await store.createInvite(i);
      const one = user(a, 'once@example.com');
      const two = { ...user(a, 'once@example.com'), id: `usr_${randomUUID()}` };
      const results = await Promise.all([
        store.acceptInvite(i.tokenHash, one, 5).catch(() => false),
        store.acceptInvite(i.tokenHash, two, 5).catch(() => false),
      ]);
      assert.deepEqual(results.sort(), [false, true]);
      assert.equal((await store.listUsers(a)).length, 1);
      assert.equal(await store.findInvite(i.tokenHash, 5), undefined);
    });

    it('leaves the invite unused when its user cannot be created (the email was taken meanwhile)', async () => {
      const {
        store,
        accounts: [a, b],
      } = await make();
      const i = invite(a, 'taken@example.com', 10_000);
      await store.createInvite(i);
      await store.createUser(user(b, 'taken@example.com'));
      await assert.rejects(store.acceptInvite(i.tokenHash, user(a, 'taken@example.com'), 5));
      assert.deepEqual(await store.findInvite(i.tokenHash, 5), i);
    });
  });
}
