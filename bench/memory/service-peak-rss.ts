/**
 * Peak RSS of a `presso serve` child taking 8 concurrent 24 MP uploads at `high`: the benchmark's own
 * procedure (bench/images/service.ts `measurePeakRss`), alone, without the whole image benchmark.
 * Usage: node bench/memory/service-peak-rss.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSample } from '../images/sample.ts';
import { measurePeakRss } from '../images/service.ts';

// The benchmark's photo: the first of its sample (a mate-backgrounds nature photo), resized to 6000×4000.
const root = fileURLToPath(new URL('../..', import.meta.url));
const photo = benchSample(join(root, process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench'), true).photos[0]!;

const work = await mkdtemp(join(tmpdir(), 'presso-service-rss-'));
try {
  const before = Date.now();
  const result = await measurePeakRss(photo, work);
  const seconds = Math.round((Date.now() - before) / 1000);
  console.log(JSON.stringify({ ...result, peakRssMb: Math.round(result.peakRssMb), seconds }));
} finally {
  await rm(work, { recursive: true, force: true });
}
