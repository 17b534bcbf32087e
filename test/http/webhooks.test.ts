/**
 * Webhooks through app.inject(): the completed and failed records are POSTed signed, retried on 5xx,
 * listed per job, and refused addresses are 422. One real delivery runs end to end in test/api.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '../../src/webhooks/signature.ts';
import { assertErrorBody, download } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import type { Receiver } from '../support/receiver.ts';
import { until } from '../support/until.ts';
import {
  type Delivery,
  deliveriesOf as deliveriesOfJob,
  receiveSignedCompletion,
  startScriptedReceiver,
} from '../support/webhook-flow.ts';

describe('webhooks', () => {
  let presso: TestApp;
  let receiver: Receiver;
  /** Status codes the receiver answers with, per path, in order; 200 once a list is used up. */
  const script = new Map<string, number[]>();

  before(async () => {
    receiver = await startScriptedReceiver(script);
    presso = await buildTestApp({
      env: { PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32', PRESSO_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms' },
    });
  });
  after(async () => {
    await presso?.close();
    await receiver?.close();
  });

  const deliveriesOf = (jobId: string) => deliveriesOfJob(presso, jobId);

  test('a webhook request is 202 and the receiver gets the signed completed record', async () => {
    const record = await receiveSignedCompletion(presso, receiver);
    assert.equal((await download(presso, record)).length, record.output.size);
  });

  test('a receiver answering 500 twice is retried, and the listing shows 3 attempts', async () => {
    script.set('/flaky', [500, 500, 200]);
    const before = receiver.requests.length;
    const response = await presso.upload(corpus.chelsea, { webhook: { url: `${receiver.origin}/flaky` } });
    assert.equal(response.status, 202);
    const { id } = (await response.json()) as { id: string };
    await receiver.waitFor(before + 3);

    const deliveries: Delivery[] = await until(
      async () => {
        const listed = await deliveriesOf(id);
        return listed[0]?.state === 'succeeded' ? listed : undefined;
      },
      'the delivery listed as succeeded',
      100,
    );
    assert.equal(deliveries.length, 1);
    const [delivery] = deliveries;
    assert.equal(delivery!.state, 'succeeded');
    assert.equal(delivery!.jobId, id);
    assert.equal(delivery!.url, `${receiver.origin}/flaky`);
    assert.deepEqual(
      delivery!.attempts.map((a) => [a.attempt, a.statusCode]),
      [
        [1, 500],
        [2, 500],
        [3, 200],
      ],
    );
    // Every attempt carried the same delivery id and a valid signature over the same body.
    const hooks = receiver.requests.slice(before).filter((r) => r.url === '/flaky');
    assert.equal(hooks.length, 3);
    for (const hook of hooks) {
      assert.equal(hook.headers['webhook-id'], delivery!.id);
      assert.equal(
        verifyWebhook(presso.account.webhookSecret, hook.headers, hook.body.toString('utf8')),
        true,
      );
      assert.deepEqual(hook.body, hooks[0]!.body);
    }
  });

  test('a failed job is delivered with the failed record', async () => {
    const before = receiver.requests.length;
    const response = await presso.upload(
      Buffer.from('not an image'),
      { webhook: { url: `${receiver.origin}/fail` } },
      undefined,
      'x.txt',
    );
    assert.equal(response.status, 202);
    const { id } = (await response.json()) as { id: string };
    const hook = (await receiver.waitFor(before + 1)).slice(before).find((r) => r.url === '/fail');
    assert.ok(hook);
    const record = JSON.parse(hook.body.toString('utf8')) as Record<string, unknown>;
    assert.equal(record.id, id);
    assert.equal(record.status, 'failed');
    assert.equal(record.success, false);
    assert.equal(typeof record.message, 'string');
  });

  test('a webhook URL on a refused address is 422 on webhook.url', async () => {
    const response = await presso.upload(corpus.chelsea, { webhook: { url: 'http://10.1.2.3/hook' } });
    const body = await assertErrorBody(response, 422);
    assert.deepEqual(
      (body.errors as Array<{ field: string }>).map((e) => e.field),
      ['webhook.url'],
    );
  });

  test("listing the deliveries of another account's job is 404", async () => {
    const response = await presso.upload(corpus.chelsea, { webhook: { url: `${receiver.origin}/hook` } });
    const { id } = (await response.json()) as { id: string };
    const other = await presso.createAccount('other-webhooks');
    await assertErrorBody(
      await presso.request(`/1.0/webhooks?job=${id}`, { auth: `Bearer ${other.key}` }),
      404,
    );
    await presso.waitForJob(id);
  });
});
