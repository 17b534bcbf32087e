/**
 * Rotating an account's webhook secret: during the grace period every delivery carries a signature by the
 * new secret and one by the previous secret (space-separated, Standard Webhooks style), so a receiver still
 * holding the old secret verifies it; once the grace is over only the new secret signs.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { AccountService } from '../../src/accounts/account-service.ts';
import { openDatabase } from '../../src/persistence/sqlite/database.ts';
import { SqliteAccountStore } from '../../src/persistence/sqlite/sqlite-account-store.ts';
import { SqliteWebhookStore } from '../../src/persistence/sqlite/sqlite-webhook-store.ts';
import { verifyWebhook } from '../../src/webhooks/signature.ts';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.ts';
import { FetchOutboundClient, startReceiver, waitFor } from './helpers.ts';

const HOUR = 3_600_000;

test('a receiver holding the old secret verifies deliveries during the grace period, and not after', async () => {
  const db = openDatabase(':memory:');
  let now = Date.UTC(2026, 0, 1);
  const accounts = new AccountService(new SqliteAccountStore(db), { defaultRateLimit: 10, now: () => now });
  const { account } = await accounts.createAccount('rotating');
  const oldSecret = account.webhookSecret;
  const hook = await startReceiver();
  const store = new SqliteWebhookStore(db);
  const dispatcher = new WebhookDispatcher({
    store,
    client: new FetchOutboundClient(),
    secretFor: (accountId) => accounts.signingSecrets(accountId),
    userAgent: 'Presso/1.0 (+https://presso.test)',
    timeoutMs: 2000,
    retrySchedule: [50],
    pollIntervalMs: 1000,
  });
  after(async () => {
    await dispatcher.stop();
    await hook.close();
    db.close();
  });
  await dispatcher.start();
  const deliver = async (jobId: string) => {
    const id = await dispatcher.enqueue({
      jobId,
      accountId: account.id,
      url: hook.url,
      payload: { id: jobId },
    });
    await waitFor(
      async () => ((await store.get(id))?.state === 'succeeded' ? true : undefined),
      `${id} sent`,
    );
    const request = hook.requests.find((r) => r.headers['webhook-id'] === id);
    assert.ok(request);
    return request;
  };

  const { secret: newSecret, previousValidUntil } = await accounts.rotateWebhookSecret(account.id, 24 * HOUR);
  assert.notEqual(newSecret, oldSecret);
  assert.equal(previousValidUntil, now + 24 * HOUR);

  now += 23 * HOUR;
  const during = await deliver('job-during');
  assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
  assert.equal(verifyWebhook(oldSecret, during.headers, during.body), true);
  assert.equal(verifyWebhook(newSecret, during.headers, during.body), true);

  now += 2 * HOUR;
  const afterGrace = await deliver('job-after');
  assert.equal(String(afterGrace.headers['webhook-signature']).split(' ').length, 1);
  assert.equal(verifyWebhook(oldSecret, afterGrace.headers, afterGrace.body), false);
  assert.equal(verifyWebhook(newSecret, afterGrace.headers, afterGrace.body), true);
});
