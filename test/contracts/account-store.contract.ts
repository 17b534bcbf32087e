/** Behaviour every AccountStore must have: keys found by hash only while active, usage counted. */
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
      await subject.store.createAccount(a);
      await subject.store.createAccount(b);
      assert.deepEqual(await subject.store.getAccount(a.id), a);
      assert.deepEqual((await subject.store.listAccounts()).map((x) => x.name).sort(), ['a', 'b']);
      assert.equal(await subject.store.getAccount(randomUUID()), undefined);
    });

    it('finds an account by an active key hash only', async () => {
      const a = account('a');
      await subject.store.createAccount(a);
      await subject.store.addKey(
        { id: 'k1', accountId: a.id, prefix: 'psk_abc', createdAt: 1, revokedAt: undefined },
        'h1',
      );
      assert.deepEqual(await subject.store.findByKeyHash('h1'), { account: a, keyId: 'k1' });
      assert.equal(await subject.store.findByKeyHash('other'), undefined);
      assert.equal(await subject.store.revokeKey('k1', 5), true);
      assert.equal(await subject.store.findByKeyHash('h1'), undefined);
      assert.equal(await subject.store.revokeKey('missing', 5), false);
      const [key] = await subject.store.listKeys(a.id);
      assert.equal(key?.revokedAt, 5);
    });

    it('counts usage per account', async () => {
      const a = account('a');
      await subject.store.createAccount(a);
      await subject.store.addUsage(a.id, { requests: 2, bytesIn: 100 });
      await subject.store.addUsage(a.id, { requests: 1, jobs: 1, bytesOut: 40 });
      assert.deepEqual(await subject.store.getUsage(a.id), {
        requests: 3,
        jobs: 1,
        bytesIn: 100,
        bytesOut: 40,
      });
    });
  });
}
