/**
 * Presso as its users run it for the media benchmark: a `presso serve` child process (embedded default,
 * HTTPS), a clip uploaded through the API, its output downloaded. Measured per request: the CPU time of the
 * server and of every process it started (every ffmpeg and ffprobe, in their sandbox), from a cgroup of
 * the server's own (bench/shared/cpu-meter.ts; the server's rusage no longer sees its sandboxed tools), and
 * the peak resident memory of the server and its children together, sampled every 50 ms from /proc (the
 * kernel's high-water mark covers one process only, and ffmpeg's encoders are most of it).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createAccountCli, spawnPresso, testClient } from '../../test/support/presso.ts';
import type { CpuMeter } from '../shared/cpu-meter.ts';

const PAGE_KB = 4;

export interface ApiRun {
  path: string;
  bytes: number;
  /** CPU seconds of the server and of every process it ran (the tools) for this request. */
  cpu: number;
  wallSeconds: number;
  /** Peak RSS of the server and its child processes together during the request, MB. */
  peakRssMb: number;
  format: string;
}

export interface MediaService {
  run(file: string, data: Record<string, unknown>, out: string): Promise<ApiRun>;
  stop(): Promise<void>;
}

function statFields(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
  } catch {
    return undefined; // the process ended between the listing and the read
  }
}

/** RSS in MB of `root` and every process under it. */
function treeRssMb(root: number): number {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const fields = statFields(pid);
    if (fields === undefined) continue;
    parents.set(pid, Number(fields[1])); // ppid is field 4
    rss.set(pid, Number(fields[21]) * PAGE_KB); // rss (pages) is field 24
  }
  let total = 0;
  for (const [pid, kb] of rss) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parents.get(p)) {
      if (p === root) {
        total += kb;
        break;
      }
    }
  }
  return total / 1024;
}

export async function startMediaService(work: string, meter: CpuMeter): Promise<MediaService> {
  const dataDir = await mkdtemp(join(work, 'data-'));
  const account = await createAccountCli(dataDir, 'bench');
  // Long clips take minutes: the synchronous answer waits for them instead of turning into a job.
  const child = await spawnPresso(dataDir, {
    PRESSO_SYNC_TIMEOUT: '30m',
    PRESSO_VIDEO_TIME_BUDGET: '2h',
    PRESSO_VIDEO_TIME_FLOOR: '2h',
  });
  const client = testClient(child.url, account.key, child.cert);
  const pid = child.child.pid ?? 0;
  // Moved in once it listens, before any request: every tool it starts from now on is counted with it.
  const unit = meter.unit();
  unit.adopt(pid);
  return {
    async run(file, data, out) {
      let peak = 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, treeRssMb(pid));
      }, 50);
      const cpu0 = unit.seconds();
      const t0 = performance.now();
      try {
        const response = await client.upload(file, data);
        let body = (await response.json()) as Record<string, unknown>;
        if (response.status === 202) body = await client.waitForJob(String(body.id));
        const output = body.output as { url?: string; format?: string } | undefined;
        const url = (body.url as string | undefined) ?? output?.url;
        if (url === undefined) throw new Error(`upload ${response.status}: ${JSON.stringify(body)}`);
        const bytes = Buffer.from(await (await client.get(url)).arrayBuffer());
        const wallSeconds = (performance.now() - t0) / 1000;
        const cpu = unit.seconds() - cpu0;
        await writeFile(out, bytes);
        return {
          path: out,
          bytes: bytes.length,
          cpu,
          wallSeconds,
          peakRssMb: peak,
          format: output?.format ?? '',
        };
      } finally {
        clearInterval(sampler);
      }
    },
    async stop() {
      await client.close();
      await child.kill('SIGTERM');
      await unit.finish();
    },
  };
}
