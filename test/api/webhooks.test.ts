/**
 * End to end: a webhook job on the real server; the receiver gets the signed completed record of a real
 * conversion. Retries, failures, listing and refusals are in test/http/webhooks.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decode } from '../support/images.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import type { Receiver } from '../support/receiver.ts';
import { receiveSignedCompletion, startScriptedReceiver } from '../support/webhook-flow.ts';
import { download } from './helpers.ts';

describe('webhooks', () => {
  let presso: TestPresso;
  let receiver: Receiver;

  before(async () => {
    receiver = await startScriptedReceiver(new Map());
    presso = await startTestPresso({
      PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
      PRESSO_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
    });
  });
  after(async () => {
    await presso?.stop();
    await receiver?.close();
  });

  test('a webhook request is 202 and the receiver gets the signed completed record', async () => {
    const record = await receiveSignedCompletion(presso, receiver);
    const decoded = await decode(await download(presso, record));
    assert.deepEqual([decoded.width, decoded.height], [120, Math.round((300 * 120) / 451)]);
  });
});
