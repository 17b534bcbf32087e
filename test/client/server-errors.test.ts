/**
 * 5xx answers provoked for real: a reverse proxy (test/support/flaky-proxy.ts) in front of a started server
 * answers the next requests of a path with 503/502/504 and its own HTML page, as a load balancer does while
 * a backend restarts, then forwards again. The client, unmodified, must retry a GET with exponential
 * back-off and equal jitter (each wait within [step/2, step]), honour a Retry-After, keep polling a job
 * through the gap, never send a submission twice, and give up typed after its retries; the CLI likewise.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isAcknowledgement, NodePressoClient, PressoApiError, type RetryInfo } from '@presso/client';
import { corpus } from '../support/corpus.ts';
import { type FlakyProxy, startFlakyProxy } from '../support/flaky-proxy.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { runCli } from '../support/presso-client-cli.ts';

describe('@presso/client and presso-client against 5xx from a proxy', () => {
  let presso: TestPresso;
  let proxy: FlakyProxy;
  let scratch: string;
  const retries: RetryInfo[] = [];
  let client: NodePressoClient;

  before(async () => {
    presso = await startTestPresso();
    proxy = await startFlakyProxy(presso.url, presso.presso.tls!.cert);
    scratch = await mkdtemp(join(tmpdir(), 'presso-5xx-'));
    client = new NodePressoClient({
      baseUrl: proxy.origin,
      apiKey: presso.key,
      retry: { retries: 4, baseDelayMs: 40 },
      onRetry: (info) => retries.push(info),
    });
  });
  after(async () => {
    await client?.close();
    await proxy?.close();
    await presso?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  const reset = () => {
    retries.length = 0;
    proxy.seen.length = 0;
  };

  test('a GET answered 503, 502, 504 is retried with jittered exponential back-off, then succeeds', async () => {
    reset();
    for (const status of [503, 502, 504]) proxy.fail({ pathPrefix: '/1.0/account', status, times: 1 });
    const account = await client.account();
    assert.equal(account.id, presso.account.id);
    assert.deepEqual(
      proxy.seen.map((s) => [s.path, s.status]),
      [
        ['/1.0/account', 503],
        ['/1.0/account', 502],
        ['/1.0/account', 504],
        ['/1.0/account', 200],
      ],
    );
    assert.deepEqual(
      retries.map((r) => [r.reason, r.status, r.attempt]),
      [
        ['server-error', 503, 1],
        ['server-error', 502, 2],
        ['server-error', 504, 3],
      ],
    );
    for (const [i, retry] of retries.entries()) {
      const step = 40 * 2 ** i;
      assert.ok(
        retry.delayMs >= step / 2 && retry.delayMs <= step,
        `${retry.delayMs} in [${step / 2}, ${step}]`,
      );
    }
  });

  test('the waits are jittered: many clients retrying do not come back in step', async () => {
    reset();
    // Twelve calls, each answered 503 once and then forwarded: twelve first retries.
    for (let i = 0; i < 12; i++) {
      proxy.fail({ pathPrefix: '/1.0/account', status: 503, times: 1 });
      await client.account();
    }
    const firstWaits = retries.filter((r) => r.attempt === 1).map((r) => r.delayMs);
    assert.equal(firstWaits.length, 12);
    assert.ok(firstWaits.every((ms) => ms >= 20 && ms <= 40));
    assert.ok(new Set(firstWaits).size > 1, `the waits differ: ${firstWaits.join(', ')}`);
  });

  test("a 503 with Retry-After: the client waits at least the server's seconds", async () => {
    reset();
    proxy.fail({ pathPrefix: '/1.0/account', status: 503, times: 1, headers: { 'retry-after': '1' } });
    await client.account();
    assert.equal(retries.length, 1);
    assert.ok(retries[0]!.delayMs >= 1000, `waited ${retries[0]!.delayMs} ms`);
  });

  test('polling goes through a gap of 503s and ends with the completed job', async () => {
    reset();
    const ack = await client.upload(corpus.chelsea, { async: true, image: { format: 'webp' } });
    assert.ok(isAcknowledgement(ack));
    proxy.fail({ pathPrefix: `/1.0/jobs/${ack.id}`, method: 'GET', status: 503, times: 2 });
    const done = await client.wait(ack, { initialDelayMs: 50, maxIntervalMs: 200 });
    assert.equal(done.status, 'completed');
    assert.equal(done.output.format, 'webp');
    const gap = proxy.seen.filter((s) => s.path.startsWith(`/1.0/jobs/${ack.id}`));
    assert.deepEqual(
      gap.slice(0, 2).map((s) => s.status),
      [503, 503],
    );
    assert.equal(gap.at(-1)!.status, 200);
    assert.equal(retries.filter((r) => r.path === `/1.0/jobs/${ack.id}`).length, 2);
  });

  test('a submission answered 502 is not sent again; retries exhausted give a typed error', async () => {
    reset();
    proxy.fail({ pathPrefix: '/1.0/upload', status: 502, times: 1 });
    const refused = await client.upload(corpus.chelsea).catch((e: unknown) => e);
    assert.ok(refused instanceof PressoApiError);
    assert.equal(refused.status, 502);
    assert.match(refused.message, /backend restarting/);
    assert.equal(proxy.seen.filter((s) => s.path === '/1.0/upload').length, 1, 'sent once');
    assert.equal(retries.length, 0);

    reset();
    proxy.fail({ pathPrefix: '/1.0/account', status: 503, times: 100 });
    const exhausted = await client.account().catch((e: unknown) => e);
    assert.ok(exhausted instanceof PressoApiError);
    assert.equal(exhausted.status, 503);
    assert.equal(proxy.seen.length, 5, 'the first try and 4 retries');
    proxy.clear();
  });

  test('the CLI retries a 503 too: `job ID` prints the record', async () => {
    const direct = new NodePressoClient({
      baseUrl: presso.url,
      apiKey: presso.key,
      ca: presso.presso.tls!.cert,
    });
    // A real PNG cheap to search (~0.1 CPU-s; chelsea.png's ~1.2): the record is under test, not the job.
    const ack = await direct.upload(corpus.palettePng, { async: true });
    await direct.close();
    assert.ok(isAcknowledgement(ack));
    reset();
    proxy.fail({ pathPrefix: `/1.0/jobs/${ack.id}`, status: 503, times: 2 });
    await writeFile(join(scratch, 'none.json'), '{}');
    const run = await runCli(['job', ack.id], {
      PRESSO_URL: proxy.origin,
      PRESSO_API_KEY: presso.key,
      PRESSO_CLIENT_CONFIG: join(scratch, 'none.json'),
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).id, ack.id);
    assert.deepEqual(
      proxy.seen.map((s) => s.status),
      [503, 503, 200],
    );
  });
});
