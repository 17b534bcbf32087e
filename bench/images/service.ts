/**
 * Service overhead and memory: images per second through the HTTPS API against the processor called in
 * process (same files, same concurrency: the machine's cores, as `PRESSO_WORKERS` defaults to), and the peak RSS of a `presso serve` child process taking 8
 * concurrent 24 MP uploads (VmHWM from /proc).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { createAccountCli, spawnPresso, startTestPresso, testClient } from '../../test/support/presso.ts';
import { pool } from './cpu.ts';

export async function measureThroughput(
  files: string[],
  concurrency: number,
  inProcess: (file: string) => Promise<unknown>,
): Promise<{ inProcess: number; viaApi: number }> {
  let t0 = performance.now();
  await pool(files, concurrency, inProcess);
  const local = files.length / ((performance.now() - t0) / 1000);
  const server = await startTestPresso();
  t0 = performance.now();
  await pool(files, concurrency, async (f) => {
    const response = await server.upload(f, { image: { compression: 'high' } });
    const body = (await response.json()) as { url?: string };
    if (response.status !== 200 || !body.url)
      throw new Error(`upload ${response.status} ${JSON.stringify(body)}`);
    await (await server.get(body.url)).arrayBuffer();
  });
  const viaApi = files.length / ((performance.now() - t0) / 1000);
  await server.stop();
  return { inProcess: local, viaApi };
}

export async function measurePeakRss(
  photo: string,
  work: string,
): Promise<{ idleRssMb: number; peakRssMb: number; statuses: number[] }> {
  const big = join(work, 'big-24mp.jpg');
  await sharp(photo).resize(6000, 4000, { fit: 'fill' }).jpeg({ quality: 90 }).toFile(big);
  const dataDir = await mkdtemp(join(work, 'data-'));
  const account = await createAccountCli(dataDir, 'bench');
  const child = await spawnPresso(dataDir);
  const client = testClient(child.url, account.key, child.cert);
  const kb = (field: string) => {
    const status = readFileSync(`/proc/${child.child.pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  };
  const idleRssMb = kb('VmRSS') / 1024;
  const statuses = await Promise.all(
    Array.from({ length: 8 }, async () => {
      const r = await client.upload(big, { image: { compression: 'high' } });
      await r.arrayBuffer();
      return r.status;
    }),
  );
  const peakRssMb = kb('VmHWM') / 1024;
  await client.close();
  await child.kill('SIGTERM');
  return { idleRssMb, peakRssMb, statuses };
}
