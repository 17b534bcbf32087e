/** The webhook flow both harnesses test (app.inject in test/http, the real server in test/api): one scripted receiver, one signed delivery. */
import assert from 'node:assert/strict';
import type { Account } from '../../src/accounts/account-store.ts';
import { verifyWebhook } from '../../src/webhooks/signature.ts';
import type { CompletedResult } from '../api/helpers.ts';
import { corpus } from './corpus.ts';
import type { TestClient } from './presso.ts';
import { type Received, type Receiver, startReceiver } from './receiver.ts';

export interface Delivery {
  id: string;
  jobId: string;
  url: string;
  state: string;
  attempts: Array<{ attempt: number; statusCode?: number; error?: string; at: string; durationMs: number }>;
}

type Harness = TestClient & { account: Account };

/** A receiver answering, per path, the status codes listed in `script` in order, then 200. */
export function startScriptedReceiver(script: Map<string, number[]>): Promise<Receiver> {
  return startReceiver((req, res) => {
    const code = script.get(req.url)?.shift() ?? 200;
    res.writeHead(code, { 'content-type': 'text/plain' }).end(code === 200 ? 'ok' : 'broken');
  });
}

export async function deliveriesOf(presso: TestClient, jobId: string): Promise<Delivery[]> {
  const response = await presso.request(`/1.0/webhooks?job=${jobId}`);
  assert.equal(response.status, 200);
  return ((await response.json()) as { deliveries: Delivery[] }).deliveries;
}

/**
 * Uploads chelsea resized to 120 px wide with a webhook to `/hook`, and checks the 202 acknowledgement, the
 * signed POST (a changed body or another secret fails verification), that the record is the one the status
 * endpoint serves, and that one delivery is listed under the webhook-id the receiver saw.
 */
export async function receiveSignedCompletion(presso: Harness, receiver: Receiver) {
  const response = await presso.upload(corpus.chelsea, {
    webhook: { url: `${receiver.origin}/hook` },
    image: { resize: { width: 120 } },
  });
  assert.equal(response.status, 202);
  const ack = (await response.json()) as { id: string; status: string };
  assert.deepEqual(ack, { id: ack.id, status: 'enqueued' });

  const [hook]: Array<Received | undefined> = (await receiver.waitFor(1)).filter((r) => r.url === '/hook');
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
  const polled = await presso.request(`/1.0/jobs/${ack.id}`);
  assert.deepEqual(await polled.json(), record);

  const deliveries = await deliveriesOf(presso, ack.id);
  assert.equal(deliveries.length, 1);
  assert.equal(deliveries[0]!.id, hook.headers['webhook-id']);
  return record;
}
