/**
 * The scaled-out topology on real engines: 2 API and 2 worker processes (`presso serve --role api|worker`)
 * sharing PostgreSQL (a database of this test's own), Redis (its own key prefix) and an S3 bucket (s3rver,
 * started here). Jobs submitted to one API are polled on the other; 100 jobs with a worker killed by
 * SIGKILL mid-run all complete once with valid outputs and their webhooks; a rolling restart of both APIs
 * under load loses no request beyond retried connection errors; the rate limit holds across both APIs; both
 * serve the dashboard and share its sessions (dashboard-checks.ts).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { freePort } from '../support/ports.ts';
import {
  createAccountCli,
  isConnectionError,
  type SpawnedPresso,
  spawnPresso,
  type TestClient,
  testClient,
} from '../support/presso.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { ensureRedis, REDIS_URL, testPostgres, testRedis } from '../support/services.ts';
import { type S3Server, startS3rver } from '../support/store-servers.ts';
import { settled, until } from '../support/until.ts';
import { createDashboardUser, dashboardTests } from './dashboard-checks.ts';
import { failedStartTest } from './failed-start.ts';

/** How many of the 100 jobs are slow enough to be in flight when a worker is killed (see that test). */
const HELD_JOBS = 30;

describe('scaled-out mode: 2 API and 2 worker processes', () => {
  let root: string;
  let database: Awaited<ReturnType<typeof testPostgres>>;
  let s3: S3Server;
  let receiver: Receiver;
  let env: Record<string, string>;
  let key: string;
  const apis: { presso: SpawnedPresso; dataDir: string; port: number }[] = [];
  const workers: SpawnedPresso[] = [];
  const clients: TestClient[] = [];
  let images: Buffer[];

  // Both APIs answer for API 0's URL, as behind a balancer (the dashboard session's Origin check names it).
  const startApi = async (index: number, port?: number) => {
    const dataDir = join(root, `api-${index}`);
    const publicUrl: Record<string, string> = index === 0 ? {} : { PRESSO_PUBLIC_URL: apis[0]!.presso.url };
    const presso = await spawnPresso(dataDir, { ...env, ...publicUrl, PRESSO_ROLE: 'api' }, port);
    return { presso, dataDir, port: presso.port };
  };
  // Every process of a deployment shares the public URL (the balancer's): links a worker writes point there.
  // Each worker has its ops listener (metrics and health) on a port of its own, as a deployment runs them.
  const opsPorts: number[] = [];
  const startWorker = async (index: number) => {
    opsPorts[index] ??= await freePort();
    return spawnPresso(join(root, `worker-${index}`), {
      ...env,
      PRESSO_ROLE: 'worker',
      PRESSO_WORKERS: '2',
      PRESSO_PUBLIC_URL: apis[0]!.presso.url,
      PRESSO_METRICS_PORT: String(opsPorts[index]),
    });
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'presso-scaled-'));
    await ensureRedis();
    database = await testPostgres();
    s3 = await startS3rver(['presso-scaled']);
    receiver = await startReceiver((_request, response) => {
      response.statusCode = 200;
      response.end('ok');
    });
    env = {
      PRESSO_MODE: 'scaled',
      PRESSO_DATABASE_URL: database.url,
      PRESSO_REDIS_URL: REDIS_URL,
      PRESSO_REDIS_PREFIX: `presso-test-${process.pid}-${randomBytes(4).toString('hex')}`,
      PRESSO_S3_BUCKET: 'presso-scaled',
      PRESSO_S3_ENDPOINT: s3.endpoint,
      PRESSO_S3_FORCE_PATH_STYLE: 'true',
      PRESSO_S3_ACCESS_KEY_ID: 'S3RVER',
      PRESSO_S3_SECRET_ACCESS_KEY: 'S3RVER',
      PRESSO_CONNECTOR_KEY: randomBytes(32).toString('base64'),
      // A killed worker's jobs run elsewhere after 3 s, a dead process's webhook claim after 4 s.
      PRESSO_QUEUE_LOCK: '3s',
      PRESSO_WEBHOOK_CLAIM_TIMEOUT: '4s',
      PRESSO_STORAGE_RETRY: '200ms',
      PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
      PRESSO_WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms',
    };
    key = (await createAccountCli(join(root, 'cli'), 'scaled', env)).key;
    await createDashboardUser(join(root, 'cli'), env);
    for (const i of [0, 1]) apis.push(await startApi(i));
    for (const i of [0, 1]) workers.push(await startWorker(i));
    for (const api of apis) clients.push(testClient(api.presso.url, key, api.presso.cert));
    // Small distinct PNGs: real work for the image processor, seconds for a hundred.
    images = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        sharp({
          create: { width: 96, height: 64, channels: 3, background: { r: i * 2, g: 90, b: 255 - i * 2 } },
        })
          .composite([
            {
              input: randomBytes(32 * 32 * 3),
              raw: { width: 32, height: 32, channels: 3 },
              left: i % 60,
              top: 8,
            },
          ])
          .png()
          .toBuffer(),
      ),
    );
  });

  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    for (const p of [...apis.map((a) => a.presso), ...workers]) await p.kill('SIGKILL').catch(() => {});
    await receiver?.close();
    await s3?.close();
    await database?.close();
    await rm(root, { recursive: true, force: true });
  });

  test('a synchronous upload to one API is answered with a link the other API serves', async () => {
    const response = await clients[0]!.upload(
      images[0]!,
      { image: { compression: 'high' } },
      undefined,
      'first.png',
    );
    const body = (await response.json()) as { url: string; output: { size: number } };
    assert.equal(response.status, 200, JSON.stringify(body));
    // The download link names API 0's public URL; the same path on API 1 serves the same bytes from the bucket.
    const path = new URL(body.url).pathname;
    const bytes = Buffer.from(await (await clients[1]!.get(`${apis[1]!.presso.url}${path}`)).arrayBuffer());
    assert.equal(bytes.length, body.output.size);
    assert.equal((await sharp(bytes).metadata()).width, 96);
  });

  dashboardTests(
    () => clients,
    () => apis[0]!.presso.url,
  );

  test("a job's live events on one API follow a worker's run to its end; the job list and usage are shared", async () => {
    const upload = await clients[0]!.upload(images[1]!, { async: true }, undefined, 'live-events.png');
    assert.equal(upload.status, 202);
    const { id } = (await upload.json()) as { id: string };
    // Another API process than the one that took the job: the worker's notices reach it through Redis.
    const stream = await clients[1]!.request(`/1.0/jobs/${id}/events`);
    assert.equal(stream.status, 200);
    const statuses = (await stream.text())
      .split('\n\n')
      .filter((frame) => frame.startsWith('event: status'))
      .map((frame) => (JSON.parse(frame.split('\ndata: ')[1]!) as { status: string }).status);
    assert.equal(statuses.at(-1), 'completed');
    const list = (await (await clients[0]!.request('/1.0/jobs?q=live-events')).json()) as {
      jobs: { id: string }[];
    };
    assert.deepEqual(
      list.jobs.map((j) => j.id),
      [id],
    );
    const usage = (await (await clients[1]!.request('/1.0/usage?days=1')).json()) as {
      days: { kind: string; jobs: number }[];
    };
    assert.ok((usage.days.find((d) => d.kind === 'image')?.jobs ?? 0) >= 1);
  });

  test('100 jobs across both APIs, one worker killed mid-run: every job completes once, outputs valid, webhooks delivered', async () => {
    const ids: string[] = [];
    for (const [i, image] of images.entries()) {
      const client = clients[i % 2]!;
      // The first jobs search for the `high` level (~0.15 CPU-s each): they keep all four worker slots busy
      // past the 10th webhook, so the worker killed then dies holding jobs. The rest are real lossless
      // encodes (~0.01 CPU-s each): the same queue, bucket, job records and webhooks, a tenth of the CPU.
      const compression = i < HELD_JOBS ? 'high' : 'lossless';
      const response = await client.upload(
        image,
        { image: { compression }, webhook: { url: `${receiver.origin}/hook` } },
        undefined,
        `img-${i}.png`,
      );
      const body = (await response.json()) as { id: string };
      assert.equal(response.status, 202, JSON.stringify(body));
      ids.push(body.id);
    }
    // Kill a worker once work is under way (some webhooks in): it dies holding jobs.
    await until(() => receiver.requests.length >= 10);
    await workers[0]!.kill('SIGKILL');
    // Polled on the other API than the one that took the job.
    const records = [];
    for (const [i, id] of ids.entries()) records.push(await clients[(i + 1) % 2]!.waitForJob(id));
    for (const record of records) assert.equal(record.status, 'completed', JSON.stringify(record));
    assert.equal(new Set(ids).size, 100);
    // Outputs valid: a sample of them downloaded and decoded.
    for (const record of records.filter((_, i) => i % 10 === 0)) {
      const url = record.url as string;
      const bytes = Buffer.from(await (await clients[0]!.get(url)).arrayBuffer());
      assert.deepEqual(
        [(await sharp(bytes).metadata()).width, (await sharp(bytes).metadata()).height],
        [96, 64],
      );
    }
    // Every job's webhook arrived (a job re-run after the kill is still one completion, one record).
    const unreported = () =>
      ids.filter((id) => !receiver.requests.some((r) => r.body.toString().includes(id)));
    await until(() => unreported().length === 0, 'every webhook', 5).catch((error: Error) => {
      throw new Error(`${error.message}; none came for ${unreported().join(', ')}`);
    });
    // They went through the queue: BullMQ's event stream of the webhooks queue saw an attempt complete per job.
    // Awaited, not read once: a delivery reaches the receiver before its attempt is marked completed, and one
    // the killed worker was making is completed by the other after its claim times out (4 s).
    const redis = await testRedis();
    const completedAttempts = async () => {
      const events = await redis.redis.xrange(`${env.PRESSO_REDIS_PREFIX}:webhooks:events`, '-', '+');
      return events.filter(([, fields]) => fields[0] === 'event' && fields[1] === 'completed').length;
    };
    const completed = await settled(completedAttempts, (count) => count >= ids.length, 100).finally(() =>
      redis.close(),
    );
    assert.ok(completed >= ids.length, `${completed} webhook attempts completed in BullMQ`);
    workers[0] = await startWorker(0);
  });

  test('a rolling restart of both APIs under load loses no request beyond retried connection errors', async () => {
    let next = 0;
    const results: number[] = [];
    let stop = false;
    const send = async (i: number): Promise<number> => {
      for (let attempt = 0; ; attempt++) {
        const client = clients[(i + attempt) % 2]!;
        try {
          const response = await client.upload(
            images[i % 100]!,
            { image: { compression: 'ultra' } },
            undefined,
            `roll-${i}.png`,
          );
          await response.arrayBuffer();
          if (response.status !== 503) return response.status;
        } catch (error) {
          if (!isConnectionError(error)) throw error;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const load = (async () => {
      while (!stop) results.push(await send(next++));
    })();
    for (const index of [0, 1]) {
      const api = apis[index]!;
      await until(() => results.length >= 3 * (index + 1));
      await api.presso.kill('SIGTERM');
      apis[index] = await startApi(index, api.port);
      await clients[index]!.close();
      clients[index] = testClient(apis[index]!.presso.url, key, apis[index]!.presso.cert);
    }
    await until(() => results.length >= 12);
    stop = true;
    await load;
    assert.deepEqual([...new Set(results)], [200], JSON.stringify(results));
  });

  test('the rate limit holds across both API processes', async () => {
    const limited = await createAccountCli(join(root, 'cli'), 'limited', env, 5);
    const limitedClients = apis.map((api) => testClient(api.presso.url, limited.key, api.presso.cert));
    try {
      const statuses = [];
      for (let i = 0; i < 8; i++)
        statuses.push((await limitedClients[i % 2]!.request('/1.0/account')).status);
      assert.equal(statuses.filter((s) => s === 429).length, 3, JSON.stringify(statuses));
      assert.equal(
        statuses.slice(0, 5).every((s) => s === 200),
        true,
        JSON.stringify(statuses),
      );
    } finally {
      for (const client of limitedClients) await client.close();
    }
  });

  test('metrics and health of a worker on its ops port', async () => {
    // Worker 1: never killed, it has run jobs since the start.
    const port = opsPorts[1]!;
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(health.status, 200);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /presso_queue_jobs\{lane="media",state="waiting",role="worker"\} \d+/);
    assert.match(metrics, /presso_queue_oldest_waiting_seconds\{lane="standard",role="worker"\} [\d.]+/);
    assert.match(metrics, /presso_process_cpu_seconds_total/);
  });

  failedStartTest(
    () => env,
    () => apis[0]!.port,
    () => root,
  );
});
