/** Behaviour every AccountStore must have: accounts created whole, keys found by hash only while active, usage counted. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Account, AccountStore } from '../../src/accounts/account-store.ts';

export interface AccountStoreUnderTest {
  store: AccountStore;
  close(): Promise<void>;
}

const account = (name: string): Account => ({
  id: randomUUID(),
  name,
  rateLimit: 10,
  webhookSecret: 'whsec_x',
  createdAt: Date.now(),
});

/** A first key for `a`, with ids unique per call unless given. */
const firstKey = (a: Account, id = `k_${randomUUID()}`, hash = `h_${randomUUID()}`) => ({
  key: { id, accountId: a.id, prefix: 'psk_first', createdAt: 1, revokedAt: undefined },
  hash,
});

export function accountStoreContract(name: string, factory: () => Promise<AccountStoreUnderTest>): void {
  describe(`AccountStore contract: ${name}`, () => {
    let subject: AccountStoreUnderTest;
    beforeEach(async () => {
      subject = await factory();
    });
    afterEach(() => subject.close());

    it('stores accounts and lists them', async () => {
      const a = account('a');
      const b = account('b');
      await subject.store.createAccount(a, firstKey(a));
      await subject.store.createAccount(b, firstKey(b));
      assert.deepEqual(await subject.store.getAccount(a.id), a);
      assert.deepEqual((await subject.store.listAccounts()).map((x) => x.name).sort(), ['a', 'b']);
      assert.equal(await subject.store.getAccount(randomUUID()), undefined);
    });

    it('finds an account by an active key hash only', async () => {
      const a = account('a');
      await subject.store.createAccount(a, firstKey(a));
      await subject.store.addKey(
        { id: 'k1', accountId: a.id, prefix: 'psk_abc', createdAt: 1, revokedAt: undefined },
        'h1',
      );
      assert.deepEqual(await subject.store.findByKeyHash('h1'), {
        account: a,
        keyId: 'k1',
        scopes: ['jobs', 'connectors'],
      });
      assert.equal(await subject.store.findByKeyHash('other'), undefined);
      assert.equal(await subject.store.revokeKey('k1', 5), true);
      assert.equal(await subject.store.findByKeyHash('h1'), undefined);
      assert.equal(await subject.store.revokeKey('missing', 5), false);
      const key = (await subject.store.listKeys(a.id)).find((k) => k.id === 'k1');
      assert.equal(key?.revokedAt, 5);
    });

    it('creates an account with its first key, and creates neither when the key cannot be stored', async () => {
      const a = account('a');
      await subject.store.createAccount(a, firstKey(a, 'k_first', 'h_first'));
      assert.deepEqual(await subject.store.findByKeyHash('h_first'), {
        account: a,
        keyId: 'k_first',
        scopes: ['jobs', 'connectors'],
      });
      // The same key id again: the key insert fails after the account row was written.
      const b = account('b');
      await assert.rejects(subject.store.createAccount(b, firstKey(b, 'k_first')));
      assert.equal(await subject.store.getAccount(b.id), undefined);
      assert.deepEqual(
        (await subject.store.listAccounts()).map((x) => x.name),
        ['a'],
      );
      // Nothing half-written blocks a retry of the same account.
      await subject.store.createAccount(b, firstKey(b));
      assert.deepEqual(await subject.store.getUsage(b.id), { requests: 0, jobs: 0, bytesIn: 0, bytesOut: 0 });
    });

    it('counts usage per account', async () => {
      const a = account('a');
      await subject.store.createAccount(a, firstKey(a));
      await subject.store.addUsage(a.id, { requests: 2, bytesIn: 100 });
      await subject.store.addUsage(a.id, { requests: 1, jobs: 1, bytesOut: 40 });
      assert.deepEqual(await subject.store.getUsage(a.id), {
        requests: 3,
        jobs: 1,
        bytesIn: 100,
        bytesOut: 40,
      });
    });

    it('keeps the scopes a key was given (every scope when none were)', async () => {
      const a = account('a');
      await subject.store.createAccount(a, firstKey(a));
      const key = { id: 'k_jobs', accountId: a.id, prefix: 'psk_j', createdAt: 2, revokedAt: undefined };
      await subject.store.addKey({ ...key, scopes: ['jobs'] }, 'h_jobs');
      assert.deepEqual((await subject.store.findByKeyHash('h_jobs'))?.scopes, ['jobs']);
      assert.deepEqual(
        (await subject.store.listKeys(a.id)).map((k) => k.scopes),
        [['jobs', 'connectors'], ['jobs']],
      );
    });

    it('changes the rate limit, disables and enables an account', async () => {
      const a = account('a');
      await subject.store.createAccount(a, firstKey(a));
      assert.equal(await subject.store.updateAccount(a.id, { rateLimit: 7 }), true);
      assert.deepEqual(await subject.store.getAccount(a.id), { ...a, rateLimit: 7 });
      assert.equal(await subject.store.updateAccount(a.id, { disabledAt: 99 }), true);
      assert.deepEqual(await subject.store.getAccount(a.id), { ...a, rateLimit: 7, disabledAt: 99 });
      // A change that names neither field leaves both as they are.
      assert.equal(await subject.store.updateAccount(a.id, {}), true);
      assert.equal((await subject.store.getAccount(a.id))?.disabledAt, 99);
      await subject.store.updateAccount(a.id, { disabledAt: null });
      assert.deepEqual(await subject.store.getAccount(a.id), { ...a, rateLimit: 7 });
      assert.equal(await subject.store.updateAccount(randomUUID(), { rateLimit: 1 }), false);
    });

    it('rotates the webhook secret, keeping the previous one with its end of validity', async () => {
      const a = account('a');
      await subject.store.createAccount(a, firstKey(a));
      assert.equal(await subject.store.rotateWebhookSecret(a.id, 'whsec_new', 5000, 1000), true);
      assert.deepEqual(await subject.store.getAccount(a.id), {
        ...a,
        webhookSecret: 'whsec_new',
        previousWebhookSecret: 'whsec_x',
        previousSecretValidUntil: 5000,
        webhookSecretRotatedAt: 1000,
      });
      assert.equal(await subject.store.rotateWebhookSecret(randomUUID(), 'whsec_y', 1, 1), false);
    });
  });
}
