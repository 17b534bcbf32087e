import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../../src/webhooks/signature.ts';

describe('webhook signatures (Standard Webhooks)', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const msgId = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const timestamp = 1614265330;
  const body = '{"test": 2432232314}';

  it('matches the published Standard Webhooks test vector', () => {
    assert.equal(
      signWebhook(secret, msgId, timestamp, body),
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('matches an HMAC computed independently with node:crypto', () => {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key).update(`${msgId}.${timestamp}.${body}`).digest('base64');
    assert.equal(signWebhook(secret, msgId, timestamp, body), `v1,${mac}`);
  });

  it('generates 32-byte secrets with the whsec_ prefix', () => {
    const generated = generateWebhookSecret();
    assert.match(generated, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(generated.slice(6), 'base64').length, 32);
    assert.notEqual(generateWebhookSecret(), generated);
  });

  const headersFor = (signature: string, id = msgId, ts = String(timestamp)) => ({
    'webhook-id': id,
    'webhook-timestamp': ts,
    'webhook-signature': signature,
  });
  const signature = signWebhook(secret, msgId, timestamp, body);

  it('verifies a round trip, with plain objects, mixed-case names and Headers', () => {
    assert.equal(verifyWebhook(secret, headersFor(signature), body, 300, timestamp), true);
    const mixed = {
      'Webhook-Id': msgId,
      'Webhook-Timestamp': String(timestamp),
      'Webhook-Signature': signature,
    };
    assert.equal(verifyWebhook(secret, mixed, body, 300, timestamp + 10), true);
    assert.equal(verifyWebhook(secret, new Headers(headersFor(signature)), body, 300, timestamp - 10), true);
    const fresh = generateWebhookSecret();
    const now = Math.floor(Date.now() / 1000);
    assert.equal(
      verifyWebhook(fresh, headersFor(signWebhook(fresh, 'id', now, body), 'id', String(now)), body),
      true,
    );
  });

  it('detects tampering with the body, id, timestamp, signature or secret', () => {
    const at = timestamp;
    assert.equal(verifyWebhook(secret, headersFor(signature), `${body} `, 300, at), false);
    assert.equal(verifyWebhook(secret, headersFor(signature, 'msg_other'), body, 300, at), false);
    assert.equal(
      verifyWebhook(secret, headersFor(signature, msgId, String(timestamp + 1)), body, 300, at),
      false,
    );
    const flipped = `v1,${Buffer.from(Buffer.from(signature.slice(3), 'base64').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64')}`;
    assert.equal(verifyWebhook(secret, headersFor(flipped), body, 300, at), false);
    assert.equal(verifyWebhook(generateWebhookSecret(), headersFor(signature), body, 300, at), false);
    assert.equal(verifyWebhook(secret, headersFor(`v2,${signature.slice(3)}`), body, 300, at), false);
    assert.equal(verifyWebhook(secret, headersFor('v1,'), body, 300, at), false);
    assert.equal(verifyWebhook(secret, { 'webhook-id': msgId }, body, 300, at), false);
    // A timestamp that is not plain digits is refused before any HMAC.
    assert.equal(verifyWebhook(secret, headersFor(signature, msgId, `${timestamp}.0`), body, 300, at), false);
  });

  it('refuses timestamps outside the tolerance, in both directions', () => {
    assert.equal(verifyWebhook(secret, headersFor(signature), body, 300, timestamp + 300), true);
    assert.equal(verifyWebhook(secret, headersFor(signature), body, 300, timestamp + 301), false);
    assert.equal(verifyWebhook(secret, headersFor(signature), body, 300, timestamp - 301), false);
    assert.equal(verifyWebhook(secret, headersFor(signature), body, 1000, timestamp + 900), true);
  });

  it('accepts any one of several space-separated signatures (secret rotation)', () => {
    const old = signWebhook(generateWebhookSecret(), msgId, timestamp, body);
    assert.equal(verifyWebhook(secret, headersFor(`${old} ${signature}`), body, 300, timestamp), true);
    assert.equal(verifyWebhook(secret, headersFor(`${signature} ${old}`), body, 300, timestamp), true);
    assert.equal(verifyWebhook(secret, headersFor(`${old} v1,AAAA`), body, 300, timestamp), false);
  });
});
