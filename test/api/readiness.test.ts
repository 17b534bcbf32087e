/**
 * Readiness is written once (src/http/readiness.ts): the API's `/healthz` and the ops listener's answer the
 * same status and body, ready or not (review 2, 3.5: they differed in body, order and time cap).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort, startTestPresso } from '../support/presso.ts';

/** Both answers, free space left out: the disk may change between the two reads. */
async function bothAnswers(env: Record<string, string>) {
  const opsPort = await freePort();
  const presso = await startTestPresso({ ...env, PRESSO_METRICS_PORT: String(opsPort) });
  try {
    const api = await presso.request('/healthz', { auth: false });
    const ops = await fetch(`http://127.0.0.1:${opsPort}/healthz`);
    const read = async (response: Response) => {
      const { disk, ...body } = (await response.json()) as {
        disk?: { minFreeBytes: number };
        sandbox?: string;
      };
      return { status: response.status, body, minFreeBytes: disk?.minFreeBytes };
    };
    return { api: await read(api), ops: await read(ops) };
  } finally {
    await presso.stop();
  }
}

test('the API and the ops listener answer readiness the same: ready', async () => {
  const { api, ops } = await bothAnswers({});
  assert.equal(api.status, 200);
  assert.deepEqual(api.body, { status: 'ok', queued: 0, sandbox: api.body.sandbox });
  assert.deepEqual(ops, api);
});

test('the API and the ops listener answer readiness the same: low on disk', async () => {
  const { api, ops } = await bothAnswers({ PRESSO_MIN_FREE_DISK: '1000000GiB' });
  assert.equal(api.status, 503);
  assert.deepEqual(api.body, {
    status: 'degraded',
    reason: 'low-disk',
    queued: 0,
    sandbox: api.body.sandbox,
  });
  assert.equal(api.minFreeBytes, 1_000_000 * 1024 ** 3);
  assert.deepEqual(ops, api);
});
