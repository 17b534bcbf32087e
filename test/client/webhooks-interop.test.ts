/**
 * verifyWebhook and signWebhook against the `standardwebhooks` npm package, both ways, and against the
 * server's own signer (two signatures during a secret rotation).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PressoWebhookError, signWebhook, verifyWebhook } from '@presso/client';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook as serverSign } from '../../src/webhooks/signature.ts';

const body = JSON.stringify({ id: '0b9a3c1e-6f0e-4a47-9a51-4f3e0b3f6a10', status: 'completed' });
const now = () => Math.floor(Date.now() / 1000);

test('a signature made by standardwebhooks verifies with verifyWebhook', async () => {
  const secret = generateWebhookSecret();
  const id = 'msg_2aVx';
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(id, timestamp, body);
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
  assert.deepEqual(await verifyWebhook(body, headers, secret), JSON.parse(body));
  assert.deepEqual(
    await verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret),
    JSON.parse(body),
  );
});

test('a signature made by signWebhook verifies with standardwebhooks', async () => {
  const secret = generateWebhookSecret();
  const timestamp = now();
  const headers = {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(timestamp),
    'webhook-signature': await signWebhook(secret, 'msg_1', timestamp, body),
  };
  assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  // And it is byte for byte the server's signature.
  assert.equal(headers['webhook-signature'], serverSign(secret, 'msg_1', timestamp, body));
});

test('refused: tampered body, wrong secret, stale or future timestamp, missing header; either rotation signature passes', async () => {
  const secret = generateWebhookSecret();
  const previous = generateWebhookSecret();
  const timestamp = now();
  const signed = (ts: number, key = secret) => signWebhook(key, 'msg_9', ts, body);
  const headers = async (ts: number, signature?: string) => ({
    'webhook-id': 'msg_9',
    'webhook-timestamp': String(ts),
    'webhook-signature': signature ?? (await signed(ts)),
  });
  const refused = async (b: string, h: Record<string, string>, s = secret) =>
    assert.rejects(verifyWebhook(b, h, s), PressoWebhookError);
  await refused(`${body} `, await headers(timestamp));
  await refused(body.replace('completed', 'failed'), await headers(timestamp));
  await refused(body, await headers(timestamp), generateWebhookSecret());
  await refused(body, await headers(timestamp - 301));
  await refused(body, await headers(timestamp + 301));
  await refused(body, { 'webhook-id': 'msg_9', 'webhook-timestamp': String(timestamp) });
  // standardwebhooks refuses the same.
  assert.throws(() => new Webhook(secret).verify(`${body} `, headers(timestamp) as never));
  // Rotation: the server sends the new and the previous secret's signatures, space-separated.
  const both = `${serverSign(secret, 'msg_9', timestamp, body)} ${serverSign(previous, 'msg_9', timestamp, body)}`;
  assert.ok(await verifyWebhook(body, await headers(timestamp, both), secret));
  assert.ok(await verifyWebhook(body, await headers(timestamp, both), previous));
  assert.deepEqual(new Webhook(previous).verify(body, await headers(timestamp, both)), JSON.parse(body));
  await refused(body, await headers(timestamp, both), generateWebhookSecret());
});
