/**
 * Peak RSS of `presso serve` for one upload of a 7000×7000 PNG (49 MP decoded from ~50 KB) in every output
 * format and level, each case in a fresh server child so its VmHWM (/proc/<pid>/status) is its own: the
 * audit's finding (615-623 MB against the 512 MB target), measured the way bench/images/service.ts measures
 * the 24 MP case. Also the CPU of the server and of every process it starts (a cgroup of its own,
 * bench/shared/cpu-meter.ts: the sandboxed tools and the image encoder's child escape rusage), the wall
 * time of the request, and the output's bytes and SHA-256 (a memory fix must
 * leave the same bytes at the same request).
 * `--timeline` also samples the server's VmRSS every TIMELINE_MS while the request runs, and at its highest
 * sample reads /proc/<pid>/smaps_rollup (anonymous memory against file-backed) and the V8 heap's share is
 * left to the caller's --trace-gc: the samples go to the JSON, the peak's breakdown to the table's end.
 * Usage: node bench/memory/png49-service.ts [--input flat|pattern] [--only format/level,...] [--timeline]
 *   [--out file.json]
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createAccountCli, spawnPresso, testClient } from '../../test/support/presso.ts';
import { CpuMeter } from '../shared/cpu-meter.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const arg = (name: string) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};

const FORMATS = ['png', 'jpeg', 'webp', 'avif', 'gif', 'tiff', 'jxl', 'auto'] as const;
const LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
const SIDE = 7000;

/** The flat input of the audit, or a simple pattern (4 colours in 64 px stripes) that still packs to ~50 KB. */
async function makeInput(kind: string, path: string): Promise<void> {
  if (kind === 'flat') {
    await sharp({ create: { width: SIDE, height: SIDE, channels: 3, background: '#4a7ab0' } })
      .png({ compressionLevel: 9 })
      .toFile(path);
    return;
  }
  const row = Buffer.alloc(SIDE * 3);
  const colours = [
    [0x4a, 0x7a, 0xb0],
    [0xf0, 0xe0, 0x30],
    [0x20, 0x20, 0x20],
    [0xff, 0xff, 0xff],
  ];
  for (let x = 0; x < SIDE; x++) row.set(colours[Math.floor(x / 64) % 4]!, x * 3);
  const raw = Buffer.alloc(SIDE * SIDE * 3);
  for (let y = 0; y < SIDE; y++) raw.set(row, y * SIDE * 3);
  await sharp(raw, { raw: { width: SIDE, height: SIDE, channels: 3 } })
    .png({ compressionLevel: 9 })
    .toFile(path);
}

const statusKb = (pid: number, field: string) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  for (const line of status.split('\n')) {
    if (line.startsWith(`${field}:`)) return Number.parseInt(line.slice(field.length + 1).trim(), 10);
  }
  return 0;
};

const TIMELINE_MS = 20;

/** VmRSS (MB) every TIMELINE_MS until stopped, with smaps_rollup read at each new high (by 4 MB or more). */
function sampleTimeline(pid: number) {
  const started = performance.now();
  const samples: [number, number][] = [];
  let highest = 0;
  let atPeak = '';
  const timer = setInterval(() => {
    try {
      const rss = statusKb(pid, 'VmRSS') / 1024;
      samples.push([Math.round(performance.now() - started), Math.round(rss)]);
      if (rss >= highest + 4) {
        highest = rss;
        atPeak = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      }
    } catch {
      // the child has gone
    }
  }, TIMELINE_MS);
  return {
    stop() {
      clearInterval(timer);
      const fields = Object.fromEntries(
        atPeak
          .split('\n')
          .filter((line) =>
            /^(Rss|Anonymous|Pss_Anon|Pss_File|Shared_Clean|Private_Clean|Private_Dirty):/.test(line),
          )
          .map((line) => [line.split(':')[0]!, Math.round(Number.parseInt(line.split(':')[1]!, 10) / 1024)]),
      );
      return { samples, peakRollupMb: fields };
    },
  };
}

interface CaseResult {
  format: string;
  level: string;
  status: number;
  outputFormat?: string;
  bytes?: number;
  sha256?: string;
  peakRssMb: number;
  idleRssMb: number;
  cpuSeconds: number;
  wallSeconds: number;
  error?: string;
  timeline?: { samples: [number, number][]; peakRollupMb: Record<string, number> };
}

async function runCase(input: string, format: string, level: string, work: string): Promise<CaseResult> {
  const dataDir = await mkdtemp(join(work, 'data-'));
  const account = await createAccountCli(dataDir, 'bench');
  // A machine busy with other work can take more than the default 30 s to start a server.
  const child = await spawnPresso(dataDir, {}, undefined, 180_000);
  const pid = child.child.pid!;
  const client = testClient(child.url, account.key, child.cert);
  // The server's time from here on, and its tools', sandboxed or not, is counted in the unit.
  const unit = meter.unit();
  unit.adopt(pid);
  try {
    const idleRssMb = statusKb(pid, 'VmRSS') / 1024;
    const cpuBefore = unit.seconds();
    const started = performance.now();
    const timeline = process.argv.includes('--timeline') ? sampleTimeline(pid) : undefined;
    const params = { image: { compression: level, ...(format === 'png' ? {} : { format }) } };
    const response = await client.upload(input, params);
    let body = (await response.json()) as { id?: string; url?: string; message?: string };
    let status = response.status;
    // A job past the synchronous wait is answered 202: its end is still the case's end.
    if (status === 202 && body.id !== undefined) {
      body = (await client.waitForJob(body.id)) as typeof body;
      status = body.url ? 200 : 422;
    }
    let output: Buffer | undefined;
    if (status === 200 && body.url) output = Buffer.from(await (await client.get(body.url)).arrayBuffer());
    const wallSeconds = (performance.now() - started) / 1000;
    const sampled = timeline?.stop();
    const result: CaseResult = {
      format,
      level,
      status,
      peakRssMb: Math.round(statusKb(pid, 'VmHWM') / 1024),
      idleRssMb: Math.round(idleRssMb),
      cpuSeconds: Math.round((unit.seconds() - cpuBefore) * 100) / 100,
      wallSeconds: Math.round(wallSeconds * 100) / 100,
      ...(sampled === undefined ? {} : { timeline: sampled }),
    };
    if (output !== undefined) {
      result.bytes = output.length;
      result.sha256 = createHash('sha256').update(output).digest('hex').slice(0, 16);
      result.outputFormat = (await sharp(output).metadata()).format;
    } else {
      result.error = body.message;
    }
    return result;
  } finally {
    await client.close();
    await child.kill('SIGTERM');
    await unit.remove();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const meter = CpuMeter.open('png49');
const kind = arg('--input') ?? 'flat';
const only = arg('--only')?.split(',');
const work = await mkdtemp(join(tmpdir(), 'presso-png49-'));
try {
  const input = join(work, `${kind}-49mp.png`);
  await makeInput(kind, input);
  const results: CaseResult[] = [];
  const out =
    arg('--out') ??
    join(root, 'bench/results', `png49-${kind}-${new Date().toISOString().replace(/:/g, '-')}.json`);
  await mkdir(join(out, '..'), { recursive: true });
  console.log('| format | level | status | output | bytes | peak RSS MB | CPU s | wall s |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const format of FORMATS) {
    for (const level of LEVELS) {
      if (only !== undefined && !only.includes(`${format}/${level}`) && !only.includes(format)) continue;
      const r = await runCase(input, format, level, work);
      results.push(r);
      console.log(
        `| ${format} | ${level} | ${r.status} | ${r.outputFormat ?? r.error ?? ''} | ${r.bytes ?? ''} | ` +
          `${r.peakRssMb} | ${r.cpuSeconds} | ${r.wallSeconds} |`,
      );
      if (r.timeline !== undefined)
        console.log(`  at the highest sample: ${JSON.stringify(r.timeline.peakRollupMb)}`);
      // Written after every case: a run of half an hour keeps what it measured if it is cut short.
      await writeFile(out, `${JSON.stringify({ input: kind, side: SIDE, results }, null, 2)}\n`);
    }
  }
  console.log(`written ${out}`);
} finally {
  await rm(work, { recursive: true, force: true });
  await meter.close();
}
