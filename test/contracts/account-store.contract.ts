/** Behaviour every AccountStore must have: accounts created whole, keys found by hash only while active, usage counted. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Account, AccountStore, ApiKeyRecord } from '../../src/accounts/account-store.ts';

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

/** A key record of `accountId`, as stored before its first use. */
const keyRecord = (accountId: string, id: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id,
  accountId,
  name: '',
  prefix: 'psk_first',
  scopes: ['jobs', 'connectors'],
  createdAt: 1,
  revokedAt: undefined,
  lastUsedAt: undefined,
  ...overrides,
});

/** A first key for `a`, with ids unique per call unless given. */
const firstKey = (a: Account, id = `k_${randomUUID()}`, hash = `h_${randomUUID()}`) => ({
  key: keyRecord(a.id, id),
  hash,
});

/** What findByKeyHash answers for a key never used, with both scopes. */
const owner = (account: Account, keyId: string) => ({
  account,
  keyId,
  scopes: ['jobs', 'connectors'],
  lastUsedAt: undefined,
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
      await subject.store.addKey(keyRecord(a.id, 'k1', { prefix: 'psk_abc' }), 'h1');
      assert.deepEqual(await subject.store.findByKeyHash('h1'), owner(a, 'k1'));
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
      assert.deepEqual(await subject.store.findByKeyHash('h_first'), owner(a, 'k_first'));
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

    it("stores a key's name and scopes, and lists them without the hash", async () => {
      const a = account('a');
      await subject.store.createAccount(a, firstKey(a, 'k_first'));
      const ci = keyRecord(a.id, 'k_ci', { name: 'CI uploads', scopes: ['jobs'], createdAt: 2 });
      await subject.store.addKey(ci, 'h_ci');
      const keys = await subject.store.listKeys(a.id);
      assert.deepEqual(keys, [keyRecord(a.id, 'k_first'), ci]);
      assert.ok(!JSON.stringify(keys).includes('h_ci'));
      assert.deepEqual((await subject.store.findByKeyHash('h_ci'))?.scopes, ['jobs']);
    });

    it('notes when a key was last used, at most once per interval', async () => {
      const a = account('a');
      await subject.store.createAccount(a, firstKey(a, 'k1', 'h1'));
      await subject.store.touchKey('k1', 100_000, 40_000);
      assert.equal((await subject.store.findByKeyHash('h1'))?.lastUsedAt, 100_000);
      // Touched less than a minute ago: left as it is.
      await subject.store.touchKey('k1', 130_000, 70_000);
      assert.equal((await subject.store.findByKeyHash('h1'))?.lastUsedAt, 100_000);
      await subject.store.touchKey('k1', 160_000, 100_000);
      assert.equal((await subject.store.listKeys(a.id))[0]?.lastUsedAt, 160_000);
    });

    it("revokes a key of the account named only, never another account's", async () => {
      const a = account('a');
      const b = account('b');
      await subject.store.createAccount(a, firstKey(a, 'ka', 'ha'));
      await subject.store.createAccount(b, firstKey(b, 'kb', 'hb'));
      assert.equal(await subject.store.revokeKey('ka', 5, b.id), false);
      assert.ok(await subject.store.findByKeyHash('ha'), 'still active');
      assert.equal(await subject.store.revokeKey('ka', 5, a.id), true);
      assert.equal(await subject.store.findByKeyHash('ha'), undefined);
    });

    it('counts usage per account, day and kind, and lists it from a day on', async () => {
      const a = account('a');
      const b = account('b');
      await subject.store.createAccount(a, firstKey(a));
      await subject.store.createAccount(b, firstKey(b));
      await subject.store.addDailyUsage(a.id, '2026-11-24', 'image', { jobs: 1, bytesIn: 100, bytesOut: 40 });
      await subject.store.addDailyUsage(a.id, '2026-11-25', 'image', { jobs: 1, failures: 1, bytesIn: 7 });
      await subject.store.addDailyUsage(a.id, '2026-11-25', 'image', { jobs: 1, bytesIn: 3, bytesOut: 2 });
      await subject.store.addDailyUsage(a.id, '2026-11-25', 'http', { requests: 2 });
      await subject.store.addDailyUsage(b.id, '2026-11-25', 'video', { jobs: 5 });
      const zero = { requests: 0, jobs: 0, failures: 0, bytesIn: 0, bytesOut: 0 };
      assert.deepEqual(await subject.store.listDailyUsage(a.id, '2026-11-25'), [
        { ...zero, date: '2026-11-25', kind: 'http', requests: 2 },
        { ...zero, date: '2026-11-25', kind: 'image', jobs: 2, failures: 1, bytesIn: 10, bytesOut: 2 },
      ]);
      assert.deepEqual(
        (await subject.store.listDailyUsage(a.id, '2026-01-01')).map((d) => `${d.date} ${d.kind}`),
        ['2026-11-24 image', '2026-11-25 http', '2026-11-25 image'],
      );
      assert.deepEqual(await subject.store.listDailyUsage(randomUUID(), '2026-01-01'), []);
    });

    it('keeps the scopes a key was given', async () => {
      const a = account('a');
      await subject.store.createAccount(a, firstKey(a));
      await subject.store.addKey(
        keyRecord(a.id, 'k_jobs', { prefix: 'psk_j', createdAt: 2, scopes: ['jobs'] }),
        'h_jobs',
      );
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
