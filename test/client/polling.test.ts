/**
 * Waiting on a slow job, for real: the job fetches its input from a local source that holds the body back
 * until the test lets it go, so the job stays `processing` for as many checks as the test wants. The planned
 * delays come from `onPoll` (no wall clock): the first check after 1-2 s, intervals that grow, the server's
 * Retry-After honoured, an abort that stops the wait; and 429 with a small rate limit.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import {
  isAcknowledgement,
  NodePressoClient,
  type PollStep,
  PressoNetworkError,
  PressoRateLimitError,
  type RetryInfo,
} from '@presso/client';
import { corpus } from '../support/corpus.ts';
import { freePort, startTestPresso, type TestPresso } from '../support/presso.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';

describe('@presso/client waiting and retrying', () => {
  let presso: TestPresso;
  let client: NodePressoClient;
  let source: Receiver;
  const held = new Map<string, () => void>();

  before(async () => {
    presso = await startTestPresso({ PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32', PRESSO_RATE_WINDOW: '3s' });
    client = new NodePressoClient({ baseUrl: presso.url, apiKey: presso.key, ca: presso.presso.tls!.cert });
    // A real PNG cheap to convert (~0.1 CPU-s to WebP; chelsea.png's ~0.3): the waiting is under test.
    const png = await readFile(corpus.palettePng);
    // Sends the first half of the PNG, then the rest once the test releases that path.
    source = await startReceiver(async (req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      res.write(png.subarray(0, png.length / 2));
      await new Promise<void>((release) => held.set(req.url, release));
      res.end(png.subarray(png.length / 2));
    });
  });
  after(async () => {
    for (const release of held.values()) release();
    await client?.close();
    await presso?.stop();
    await source?.close();
  });

  const slowJob = async (path: string) => {
    const ack = await client.fetch(`${source.origin}${path}`, { async: true, image: { format: 'webp' } });
    assert.ok(isAcknowledgement(ack));
    return ack;
  };

  test('default schedule: first check after 1-2 s, then growing intervals, never sooner than Retry-After', async () => {
    const ack = await slowJob('/default.png');
    const steps: PollStep[] = [];
    const statuses: string[] = [];
    const done = await client.wait(ack, {
      onPoll: (step) => {
        steps.push(step);
        if (step.check === 5) held.get('/default.png')?.();
      },
      onProgress: (record) => statuses.push(record.status),
    });
    assert.equal(done.status, 'completed');
    assert.equal(done.output.format, 'webp');
    assert.ok(steps.length >= 5);
    assert.ok(steps[0]!.delayMs >= 1000 && steps[0]!.delayMs <= 2000, `first delay ${steps[0]!.delayMs}`);
    for (let i = 1; i < 5; i++) {
      assert.ok(steps[i]!.delayMs > steps[i - 1]!.delayMs, `delays grow: ${steps.map((s) => s.delayMs)}`);
      assert.equal(steps[i]!.status, 'processing', 'the job was still running');
      assert.ok(steps[i]!.retryAfter !== undefined, 'the server sent Retry-After');
      assert.ok(steps[i]!.delayMs >= steps[i]!.retryAfter! * 1000);
    }
    assert.deepEqual(statuses.slice(0, 4), ['processing', 'processing', 'processing', 'processing']);
  });

  test("a faster schedule of the caller's still waits the server's Retry-After", async () => {
    const ack = await slowJob('/fast.png');
    const steps: PollStep[] = [];
    await client.wait(ack, {
      initialDelayMs: 50,
      maxIntervalMs: 100,
      onPoll: (step) => {
        steps.push(step);
        if (step.check === 4) held.get('/fast.png')?.();
      },
    });
    assert.ok(steps[0]!.delayMs < 1000, 'the first check follows the caller');
    // Retry-After grows with the job's age (1 s while it is young, 2 s after 10 s: a busy machine gets
    // there), so the check is that each wait honours what the server said, never the caller's 100 ms.
    for (const step of steps.slice(1)) {
      assert.ok(
        step.retryAfter !== undefined && step.retryAfter >= 1,
        `Retry-After sent: ${step.retryAfter}`,
      );
      assert.ok(
        step.delayMs >= step.retryAfter * 1000,
        `Retry-After ${step.retryAfter} s honoured over a 100 ms interval: ${step.delayMs}`,
      );
    }
  });

  test('an AbortSignal stops the wait: no check after it, rejected with its reason', async () => {
    const ack = await slowJob('/aborted.png');
    const controller = new AbortController();
    let checks = 0;
    const error = await client
      .wait(ack, {
        signal: controller.signal,
        onPoll: (step) => {
          if (step.check === 3) controller.abort();
        },
        onProgress: () => checks++,
      })
      .catch((e: unknown) => e);
    assert.equal((error as Error).name, 'AbortError');
    assert.equal(checks, 2, 'two checks made, the third never sent');
    held.get('/aborted.png')?.();
    assert.equal((await client.wait(ack.id)).status, 'completed', 'the job itself went on');
  });

  test('429 with a small rate limit: the client waits for the reset and goes on; without retries it throws typed', async () => {
    const { key } = await presso.createAccount('limited', 3);
    const retries: RetryInfo[] = [];
    const limited = new NodePressoClient({
      baseUrl: presso.url,
      apiKey: key,
      ca: presso.presso.tls!.cert,
      onRetry: (info) => retries.push(info),
    });
    for (let i = 0; i < 5; i++) assert.equal((await limited.account()).name, 'limited');
    assert.ok(retries.length >= 1, 'the 4th request hit the limit');
    for (const retry of retries) {
      assert.equal(retry.reason, 'rate-limited');
      assert.equal(retry.status, 429);
      assert.ok(retry.delayMs >= 1000, `waited the Retry-After: ${retry.delayMs}`);
    }
    const impatient = new NodePressoClient({
      baseUrl: presso.url,
      apiKey: key,
      ca: presso.presso.tls!.cert,
      retry: { retries: 0 },
    });
    let error: unknown;
    for (let i = 0; i < 5 && !error; i++)
      error = await impatient.account().then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(error instanceof PressoRateLimitError);
    assert.equal(error.status, 429);
    assert.ok(error.retryAfterSeconds >= 1);
    assert.equal(error.headers.get('x-ratelimit-remaining'), '0');
    assert.match(error.message, /Retry in \d+ seconds/);
    await Promise.all([limited.close(), impatient.close()]);
  });

  test('network errors: a GET is retried with jittered back-off, a POST is not', async () => {
    const port = await freePort();
    const retries: RetryInfo[] = [];
    const nowhere = new NodePressoClient({
      baseUrl: `https://127.0.0.1:${port}`,
      apiKey: 'k',
      retry: { retries: 3, baseDelayMs: 20 },
      onRetry: (info) => retries.push(info),
    });
    await assert.rejects(nowhere.account(), PressoNetworkError);
    assert.deepEqual(
      retries.map((r) => r.reason),
      ['network-error', 'network-error', 'network-error'],
    );
    for (const [i, retry] of retries.entries()) {
      const step = 20 * 2 ** i;
      assert.ok(retry.delayMs >= step / 2 && retry.delayMs <= step, `jittered within [${step / 2}, ${step}]`);
    }
    retries.length = 0;
    await assert.rejects(nowhere.fetch('https://example.org/a.png'), PressoNetworkError);
    assert.equal(retries.length, 0, 'a submission is never sent twice on a network error');
    await nowhere.close();
  });
});
