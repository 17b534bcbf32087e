/**
 * The scaled-out benchmark, one command: `npm run bench:scale`. One API process and 1, then 2, worker
 * processes (`presso serve --role api|worker`, one job at a time each) over real PostgreSQL, Redis and an
 * S3 bucket (s3rver, in this process), as the multi-process test runs them. The same 80 small images (256×192
 * PNG photos cut from a Debian corpus image) are uploaded synchronously, 4 at a time, through the API: images
 * per second, p50/p99 latency, and the CPU seconds of every Presso process over the run, each with every tool
 * it started (a cgroup per process, bench/shared/cpu-meter.ts: the sandboxed tools escape its rusage), over the
 * run. The embedded default (one `presso serve`, 2 job workers) takes the same load for reference. Prints a
 * table, writes it into the README between the bench:scale markers, and writes bench/results/scale.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import sharp from 'sharp';
import { createAccountCli, type SpawnedPresso, spawnPresso, testClient } from '../../test/support/presso.ts';
import { type Receiver, startReceiver } from '../../test/support/receiver.ts';
import { ensureRedis, REDIS_URL, testPostgres } from '../../test/support/services.ts';
import { startS3rver } from '../../test/support/store-servers.ts';
import { CpuMeter, type CpuUnit } from '../shared/cpu-meter.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';

const IMAGES = 80;
const CONCURRENCY = 4;
const corpus = resolve(
  process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench',
  'usr/share/backgrounds/mate/nature',
);

interface Run {
  setup: string;
  /** Redis commands and PostgreSQL transactions per image over the run (scaled runs only). */
  redisCommandsPerImage?: number;
  postgresTransactionsPerImage?: number;
  imagesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuSeconds: number;
  cpuPerImageMs: number;
  wallSeconds: number;
}

/** Each Presso process in a cgroup of its own from the moment it listens, before any job. */
const units = new Map<SpawnedPresso, CpuUnit>();

async function started(meter: CpuMeter, spawning: Promise<SpawnedPresso>): Promise<SpawnedPresso> {
  const presso = await spawning;
  const unit = meter.unit();
  unit.adopt(presso.child.pid ?? 0);
  units.set(presso, unit);
  return presso;
}

/** CPU seconds of a Presso process and of every tool it ran, so far. */
const cpuOf = (presso: SpawnedPresso): number => units.get(presso)!.seconds();

async function images(): Promise<Buffer[]> {
  const { readdirSync } = await import('node:fs');
  const photos = readdirSync(corpus)
    .filter((f) => f.endsWith('.jpg'))
    .sort();
  if (photos.length === 0) throw new Error(`no photos in ${corpus}: run scripts/bench.sh scale`);
  const source = sharp(join(corpus, photos[0] as string)).resize(2048, 1536, { fit: 'cover' });
  const big = await source.raw().toBuffer({ resolveWithObject: true });
  return Promise.all(
    Array.from({ length: IMAGES }, (_, i) =>
      sharp(big.data, { raw: big.info })
        .extract({ left: (i % 8) * 224, top: Math.floor(i / 8) * 128, width: 256, height: 192 })
        .png()
        .toBuffer(),
    ),
  );
}

/**
 * Jobs reported by webhook: `arrival(id)` resolves when the job's webhook has come (before or after it is
 * asked for), so a run with webhooks measures from the upload to the webhook's arrival.
 */
interface WebhookSink {
  receiver: Receiver;
  arrival(jobId: string): Promise<void>;
}

async function webhookSink(): Promise<WebhookSink> {
  const arrived = new Set<string>();
  const waiting = new Map<string, () => void>();
  const receiver = await startReceiver((request, response) => {
    const { id } = JSON.parse(request.body.toString('utf8')) as { id: string };
    arrived.add(id);
    waiting.get(id)?.();
    response.end('ok');
  });
  return {
    receiver,
    arrival: (jobId) =>
      arrived.has(jobId) ? Promise.resolve() : new Promise((resolve) => waiting.set(jobId, resolve)),
  };
}

async function load(
  url: string,
  key: string,
  cert: string,
  inputs: Buffer[],
  processes: SpawnedPresso[],
  setup: string,
  webhooks?: WebhookSink,
): Promise<Run> {
  const client = testClient(url, key, cert);
  const cpu0 = processes.map(cpuOf);
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < inputs.length) {
        const i = next++;
        const started = performance.now();
        const response = await client.upload(
          inputs[i] as Buffer,
          {
            image: { compression: 'high' },
            ...(webhooks ? { webhook: { url: `${webhooks.receiver.origin}/hook` } } : {}),
          },
          undefined,
          `b${i}.png`,
        );
        const body = (await response.json()) as { url?: string; id?: string };
        if (webhooks) {
          // With a webhook the job runs in the background: done when its webhook arrives.
          if (response.status !== 202 || body.id === undefined) throw new Error(`upload ${response.status}`);
          await webhooks.arrival(body.id);
        } else if (response.status !== 200 || body.url === undefined) {
          throw new Error(`upload ${response.status}`);
        }
        latencies.push(performance.now() - started);
      }
    }),
  );
  const wallSeconds = (performance.now() - t0) / 1000;
  const cpuSeconds = processes.reduce((sum, p, i) => sum + cpuOf(p) - (cpu0[i] ?? 0), 0);
  await client.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    setup,
    imagesPerSecond: inputs.length / wallSeconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    cpuSeconds,
    cpuPerImageMs: (cpuSeconds * 1000) / inputs.length,
    wallSeconds,
  };
}

/** Commands Redis has run since it started (every client), from INFO commandstats. */
async function redisCommands(): Promise<number> {
  const redis = new Redis(REDIS_URL);
  const info = await redis.info('commandstats');
  redis.disconnect();
  return [...info.matchAll(/calls=(\d+)/g)].reduce((sum, [, n]) => sum + Number(n), 0);
}

/** Committed and rolled-back transactions of the bench's database (each statement outside BEGIN is one). */
async function postgresTransactions(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // The statistics collector reports with a short delay: ask for a fresh snapshot.
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  await client.end();
  return Number(rows[0]?.n ?? 0);
}

async function main(meter: CpuMeter): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'presso-bench-scale-'));
  const inputs = await images();
  await ensureRedis();
  const database = await testPostgres();
  const s3 = await startS3rver(['presso-bench']);
  const spawned: SpawnedPresso[] = [];
  const runs: Run[] = [];
  const receivers: Receiver[] = [];
  try {
    // The embedded default for reference: one process, its job workers on both cores.
    const embeddedDir = join(root, 'embedded');
    const embeddedKey = (await createAccountCli(embeddedDir, 'bench')).key;
    const embedded = await started(
      meter,
      spawnPresso(embeddedDir, { PRESSO_WORKERS: String(availableParallelism()) }),
    );
    spawned.push(embedded);
    await load(embedded.url, embeddedKey, embedded.cert, inputs.slice(0, 8), [embedded], 'warm-up');
    runs.push(
      await load(
        embedded.url,
        embeddedKey,
        embedded.cert,
        inputs,
        [embedded],
        `embedded, 1 process, ${availableParallelism()} job workers`,
      ),
    );
    await embedded.kill('SIGTERM');

    const env = {
      PRESSO_MODE: 'scaled',
      PRESSO_DATABASE_URL: database.url,
      PRESSO_REDIS_URL: REDIS_URL,
      PRESSO_REDIS_PREFIX: `presso-bench-${process.pid}`,
      PRESSO_S3_BUCKET: 'presso-bench',
      PRESSO_S3_ENDPOINT: s3.endpoint,
      PRESSO_S3_FORCE_PATH_STYLE: 'true',
      PRESSO_S3_ACCESS_KEY_ID: 'S3RVER',
      PRESSO_S3_SECRET_ACCESS_KEY: 'S3RVER',
      PRESSO_CONNECTOR_KEY: Buffer.alloc(32, 7).toString('base64'),
      // The webhook run's receiver listens on this machine.
      PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
    };
    const key = (await createAccountCli(join(root, 'cli'), 'bench', env)).key;
    const api = await started(meter, spawnPresso(join(root, 'api'), { ...env, PRESSO_ROLE: 'api' }));
    spawned.push(api);
    const workers: SpawnedPresso[] = [];
    for (const count of [1, 2]) {
      while (workers.length < count) {
        const worker = await started(
          meter,
          spawnPresso(join(root, `worker-${workers.length}`), {
            ...env,
            PRESSO_ROLE: 'worker',
            PRESSO_WORKERS: '1',
            PRESSO_PUBLIC_URL: api.url,
          }),
        );
        workers.push(worker);
        spawned.push(worker);
      }
      await load(api.url, key, api.cert, inputs.slice(0, 8), [api, ...workers], 'warm-up');
      const redis0 = await redisCommands();
      const pg0 = await postgresTransactions(database.url);
      const setup = `scaled, 1 API + ${count} worker${count > 1 ? 's' : ''} (1 job each)`;
      const run = await load(api.url, key, api.cert, inputs, [api, ...workers], setup);
      // Other clients of this Redis (none during the bench on this machine) would count too: an upper bound.
      run.redisCommandsPerImage = ((await redisCommands()) - redis0) / inputs.length;
      await new Promise((r) => setTimeout(r, 1000)); // the statistics collector's report interval
      run.postgresTransactionsPerImage = ((await postgresTransactions(database.url)) - pg0) / inputs.length;
      runs.push(run);
    }
    // The same load with a webhook per job: each job reported through the webhooks queue (BullMQ).
    const sink = await webhookSink();
    receivers.push(sink.receiver);
    const hooked = [api, ...workers];
    await load(api.url, key, api.cert, inputs.slice(0, 8), hooked, 'warm-up', sink);
    const redis0 = await redisCommands();
    const pg0 = await postgresTransactions(database.url);
    const run = await load(
      api.url,
      key,
      api.cert,
      inputs,
      hooked,
      'scaled, 1 API + 2 workers, a webhook per job',
      sink,
    );
    run.redisCommandsPerImage = ((await redisCommands()) - redis0) / inputs.length;
    await new Promise((r) => setTimeout(r, 1000));
    run.postgresTransactionsPerImage = ((await postgresTransactions(database.url)) - pg0) / inputs.length;
    runs.push(run);
  } finally {
    for (const receiver of receivers) await receiver.close();
    for (const p of spawned) await p.kill('SIGTERM').catch(() => {});
    await s3.close();
    await database.close();
    await rm(root, { recursive: true, force: true });
  }
  const [embedded, one, two, hooked] = runs;
  const table = [
    `Run: \`npm run bench:scale\`, ${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} vCPU, ${IMAGES} PNG photos of 256×192, \`high\`, ${CONCURRENCY} synchronous uploads at a time. CPU: every Presso process with every tool it ran, a cgroup each.`,
    '',
    '| setup | images/s | p50 ms | p99 ms | CPU s in all | CPU ms per image | Redis commands / image | PostgreSQL transactions / image |',
    '|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.setup} | ${r.imagesPerSecond.toFixed(2)} | ${Math.round(r.p50Ms)} | ${Math.round(r.p99Ms)} | ${r.cpuSeconds.toFixed(1)} | ${Math.round(r.cpuPerImageMs)} | ${r.redisCommandsPerImage?.toFixed(0) ?? '–'} | ${r.postgresTransactionsPerImage?.toFixed(0) ?? '–'} |`,
    ),
    '',
    `2 workers ÷ 1 worker: ${((two?.imagesPerSecond ?? 0) / (one?.imagesPerSecond ?? 1)).toFixed(2)}× the throughput; ` +
      `scaled (2 workers) ÷ embedded: ${((two?.imagesPerSecond ?? 0) / (embedded?.imagesPerSecond ?? 1)).toFixed(2)}×; ` +
      `CPU per image scaled ÷ embedded: ${((two?.cpuPerImageMs ?? 0) / (embedded?.cpuPerImageMs ?? 1)).toFixed(2)}; ` +
      `a webhook per job (asynchronous jobs, reported through the webhooks queue) ÷ synchronous: ${((hooked?.imagesPerSecond ?? 0) / (two?.imagesPerSecond ?? 1)).toFixed(2)}× the throughput, ` +
      `${((hooked?.redisCommandsPerImage ?? 0) - (two?.redisCommandsPerImage ?? 0)).toFixed(0)} Redis commands and ` +
      `${((hooked?.postgresTransactionsPerImage ?? 0) - (two?.postgresTransactionsPerImage ?? 0)).toFixed(0)} PostgreSQL transactions more per image.`,
  ].join('\n');
  console.log(table);
  if (writeReadmeSection(resolve('README.md'), 'scale', table)) console.log('README table written');
  await mkdir('bench/results', { recursive: true });
  await writeFile(
    'bench/results/scale.json',
    `${JSON.stringify({ cores: availableParallelism(), runs }, null, 2)}\n`,
  );
}

const meter = CpuMeter.open('scale');
try {
  await main(meter);
} finally {
  await meter.close();
}
