/**
 * End to end: an asynchronous job on the real server and image processor, acknowledged with 202,
 * polled until completed and downloaded. The route details (threshold, failed record, isolation, the
 * queued record) are in test/http/jobs.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { corpus } from '../support/corpus.ts';
import { decode } from '../support/images.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { type CompletedResult, download } from './helpers.ts';

describe('asynchronous jobs (end to end)', () => {
  let presso: TestPresso;
  before(async () => {
    presso = await startTestPresso();
  });
  after(() => presso?.stop());

  test('"async": true answers 202, the job completes by polling, and its output downloads', async () => {
    const response = await presso.upload(corpus.chelsea, { async: true, image: { resize: { width: 100 } } });
    assert.equal(response.status, 202);
    const ack = (await response.json()) as { id: string; status: string };
    assert.equal(ack.status, 'enqueued');
    const done = (await presso.waitForJob(ack.id)) as unknown as CompletedResult;
    assert.equal(done.status, 'completed');
    const decoded = await decode(await download(presso, done));
    assert.deepEqual([decoded.width, decoded.height], [100, Math.round((300 * 100) / 451)]);
  });
});
