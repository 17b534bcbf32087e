/**
 * End to end: a webhook job on the real server; the receiver gets the signed completed record of a real
 * conversion. Retries, failures, listing and refusals are in test/http/webhooks.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '../../src/webhooks/signature.ts';
import { corpus } from '../support/corpus.ts';
import { decode } from '../support/images.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { type CompletedResult, download } from './helpers.ts';

interface Delivery {
  id: string;
  jobId: string;
  url: string;
  state: string;
  attempts: Array<{ attempt: number; statusCode?: number; error?: string; at: string; durationMs: number }>;
}

describe('webhooks', () => {
  let presso: TestPresso;
  let receiver: Receiver;
  /** Status codes the receiver answers with, per path, in order; 200 once a list is used up. */
  const script = new Map<string, number[]>();

  before(async () => {
    receiver = await startReceiver((req, res) => {
      const codes = script.get(req.url);
      const code = codes?.shift() ?? 200;
      res.writeHead(code, { 'content-type': 'text/plain' }).end(code === 200 ? 'ok' : 'broken');
    });
    presso = await startTestPresso({
      PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
      PRESSO_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
    });
  });
  after(async () => {
    await presso?.stop();
    await receiver?.close();
  });

  const deliveriesOf = async (jobId: string): Promise<Delivery[]> => {
    const response = await presso.request(`/1.0/webhooks?job=${jobId}`);
    assert.equal(response.status, 200);
    return ((await response.json()) as { deliveries: Delivery[] }).deliveries;
  };

  test('a webhook request is 202 and the receiver gets the signed completed record', async () => {
    const response = await presso.upload(corpus.chelsea, {
      webhook: { url: `${receiver.origin}/hook` },
      image: { resize: { width: 120 } },
    });
    assert.equal(response.status, 202);
    const ack = (await response.json()) as { id: string; status: string };
    assert.deepEqual(ack, { id: ack.id, status: 'enqueued' });

    const [hook] = (await receiver.waitFor(1)).filter((r) => r.url === '/hook');
    assert.ok(hook);
    assert.equal(hook.method, 'POST');
    assert.match(String(hook.headers['content-type']), /^application\/json/);
    assert.match(String(hook.headers['user-agent']), /^Presso\/1\.0 \(\+.+\)$/);
    const raw = hook.body.toString('utf8');
    assert.equal(verifyWebhook(presso.account.webhookSecret, hook.headers, raw), true);
    assert.equal(verifyWebhook(presso.account.webhookSecret, hook.headers, `${raw} `), false);
    assert.equal(verifyWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, hook.headers, raw), false);

    const record = JSON.parse(raw) as CompletedResult;
    assert.equal(record.id, ack.id);
    assert.equal(record.status, 'completed');
    // The same record the status endpoint serves.
    const polled = await presso.request(`/1.0/jobs/${ack.id}`);
    assert.deepEqual(await polled.json(), record);
    const decoded = await decode(await download(presso, record));
    assert.deepEqual([decoded.width, decoded.height], [120, Math.round((300 * 120) / 451)]);

    const deliveries = await deliveriesOf(ack.id);
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0]!.id, hook.headers['webhook-id']);
  });
});
