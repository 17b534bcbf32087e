/**
 * Resident memory of an idle embedded `presso serve` (glibc settings of bin/presso): on its first start
 * (which makes its self-signed certificate), on a restart over the same data directory, and after it has
 * answered one small image upload (the state a large request starts from). Each is a fresh server child,
 * read SETTLE_MS after it says it is listening: VmRSS, and VmHWM (the start-up's own peak). A further
 * restart, with a loader hook logging every module (test/support/module-log.ts), lists which of the modules
 * an idle server should not load (test/support/idle-modules.ts) it loaded, and how many modules in all.
 * Usage: node bench/memory/idle-rss.ts [--runs N] [--out file.json]
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { lazyModulesLoaded, moduleLogEnv } from '../../test/support/idle-modules.ts';
import {
  createAccountCli,
  type SpawnedPresso,
  sleep,
  spawnPresso,
  testClient,
} from '../../test/support/presso.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const RUNS = Number(arg('--runs') ?? 3);
/** Long enough for the start-up's promises, timers and first sweeps to have run. */
const SETTLE_MS = 3000;

const statusMb = (pid: number, field: string) => {
  for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    if (line.startsWith(`${field}:`))
      return Math.round(Number.parseInt(line.slice(field.length + 1), 10) / 1024);
  }
  return 0;
};

interface Reading {
  rssMb: number;
  hwmMb: number;
}

async function read(server: SpawnedPresso): Promise<Reading> {
  await sleep(SETTLE_MS);
  const pid = server.child.pid!;
  return { rssMb: statusMb(pid, 'VmRSS'), hwmMb: statusMb(pid, 'VmHWM') };
}

const work = await mkdtemp(join(tmpdir(), 'presso-idle-rss-'));
try {
  const image = await sharp({ create: { width: 512, height: 384, channels: 3, background: '#4a7ab0' } })
    .png()
    .toBuffer();
  const readings: Record<'first start' | 'restart' | 'after one request', Reading[]> = {
    'first start': [],
    restart: [],
    'after one request': [],
  };
  for (let run = 0; run < RUNS; run++) {
    const dataDir = join(work, `data-${run}`);
    const account = await createAccountCli(dataDir, 'bench');
    const first = await spawnPresso(dataDir);
    readings['first start'].push(await read(first));
    await first.kill('SIGTERM');
    const restarted = await spawnPresso(dataDir);
    readings.restart.push(await read(restarted));
    const client = testClient(restarted.url, account.key, restarted.cert);
    const response = await client.upload(image, { image: { compression: 'high' } });
    if (response.status !== 200) throw new Error(`upload answered ${response.status}`);
    await response.arrayBuffer();
    await client.close();
    readings['after one request'].push(await read(restarted));
    await restarted.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
  const logged = join(work, 'data-logged');
  await createAccountCli(logged, 'bench');
  await (await spawnPresso(logged)).kill('SIGTERM');
  const log = join(work, 'modules.log');
  const server = await spawnPresso(logged, moduleLogEnv(log));
  await sleep(SETTLE_MS);
  await server.kill('SIGTERM');
  const lazyLoaded = await lazyModulesLoaded(log);
  const modules = (await readFile(log, 'utf8')).split('\n').filter(Boolean).length;

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const span = (values: number[]) => `${Math.min(...values)}-${Math.max(...values)}`;
  console.log(`| idle server (${RUNS} runs) | VmRSS MB, median (range) | VmHWM MB, median (range) |`);
  console.log('|---|---|---|');
  for (const [state, list] of Object.entries(readings)) {
    const rss = list.map((r) => r.rssMb);
    const hwm = list.map((r) => r.hwmMb);
    console.log(`| ${state} | ${median(rss)} (${span(rss)}) | ${median(hwm)} (${span(hwm)}) |`);
  }
  console.log(`modules loaded by a restarted idle server: ${modules}`);
  console.log(`of those it should not load: ${lazyLoaded.length === 0 ? 'none' : lazyLoaded.join(', ')}`);
  const out =
    arg('--out') ??
    join(root, 'bench/results', `idle-rss-${new Date().toISOString().replace(/:/g, '-')}.json`);
  await mkdir(join(out, '..'), { recursive: true });
  await writeFile(
    out,
    `${JSON.stringify({ runs: RUNS, settleMs: SETTLE_MS, readings, modules, lazyLoaded }, null, 2)}\n`,
  );
  console.log(`written ${out}`);
} finally {
  await rm(work, { recursive: true, force: true });
}
