/**
 * x264 settings against `-preset medium` at equal quality (`node bench/media/x264-settings.ts [clip …]`):
 * each setting encodes each clip at a few CRFs (video only, every frame at its own time), each output is
 * scored against the source on SSIM over every frame and on SSIMULACRA 2 of sampled frames (peer.ts), and
 * its bytes at the medium encodes' quality are read from its own curve (log bytes, linear between CRFs).
 * So a setting is judged on both measures: one that only games SSIM (less psycho-visual tuning) shows up
 * as smaller on SSIM and not on SSIMULACRA 2. CPU from cgroups, per encode.
 */
import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuMeter } from '../shared/cpu-meter.ts';
import { CORPUS, VIDEOS } from './clips.ts';
import { ff, sampledSsimulacra2, ssimDb } from './peer.ts';

/** Camera, phone, screen and animation: the kinds whose bytes the x264 settings were judged on. */
const CLIPS = VIDEOS.slice(0, 4).map((v) => v.file);
const CRFS = [22, 26, 30];
const SETTINGS: Record<string, string[]> = {
  medium: ['-preset', 'medium'],
  slow: ['-preset', 'slow'],
  'slow psy-rd 0.5': ['-preset', 'slow', '-psy-rd', '0.5:0'],
  'medium tune ssim': ['-preset', 'medium', '-tune', 'ssim'],
};
const meter = CpuMeter.open('media-x264');

interface Point {
  crf: number;
  bytes: number;
  db: number;
  s2: number;
  cpu: number;
}

async function encode(clip: string, args: string[], crf: number, work: string): Promise<Point> {
  const out = join(work, `e-${crf}.mp4`);
  const { seconds } = await meter.measure(() =>
    ff([
      ...['-i', clip, '-map', '0:V:0', '-an', '-vf', 'setsar=1,format=yuv420p', '-fps_mode', 'vfr'],
      ...['-c:v', 'libx264', ...args, '-profile:v', 'high', '-crf', String(crf), '-threads', '2', out],
    ]),
  );
  return {
    crf,
    bytes: statSync(out).size,
    db: ssimDb(out, clip),
    s2: await sampledSsimulacra2(out, clip, work),
    cpu: seconds,
  };
}

/** log bytes of `curve` at quality `q` on `measure`, linear between its points (extrapolated at the ends). */
function bytesAt(curve: Point[], measure: 'db' | 's2', q: number): number {
  const sorted = [...curve].sort((a, b) => a[measure] - b[measure]);
  let i = 0;
  while (i < sorted.length - 2 && (sorted[i + 1] as Point)[measure] < q) i++;
  const a = sorted[i] as Point;
  const b = sorted[i + 1] as Point;
  const t = (q - a[measure]) / (b[measure] - a[measure]);
  return Math.exp(Math.log(a.bytes) + t * (Math.log(b.bytes) - Math.log(a.bytes)));
}

const r3 = (n: number) => Math.round(n * 1000) / 1000;

try {
  const load = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
  console.log(`load average ${load}`);
  const args = process.argv.slice(2);
  for (const clip of args.length > 0 ? args : CLIPS.map((c) => join(CORPUS, c))) {
    const work = await mkdtemp(join(tmpdir(), 'presso-x264-'));
    const curves: Record<string, Point[]> = {};
    for (const [name, settings] of Object.entries(SETTINGS)) {
      curves[name] = [];
      for (const crf of CRFS) curves[name].push(await encode(clip, settings, crf, work));
    }
    const base = curves.medium ?? [];
    for (const [name, curve] of Object.entries(curves)) {
      // The ratio at each medium point's quality, averaged over the points.
      const ratio = (m: 'db' | 's2') =>
        r3(base.reduce((s, p) => s + bytesAt(curve, m, p[m]) / p.bytes, 0) / base.length);
      const cpu = curve.reduce((s, p) => s + p.cpu, 0) / base.reduce((s, p) => s + p.cpu, 0);
      console.log(
        JSON.stringify({
          clip: clip.split('/').pop(),
          setting: name,
          bytesAtEqualSsim: ratio('db'),
          bytesAtEqualS2: ratio('s2'),
          cpu: r3(cpu),
          points: curve.map((p) => `${p.crf}:${p.bytes}/${p.db.toFixed(2)}/${p.s2.toFixed(1)}`).join(' '),
        }),
      );
    }
    await rm(work, { recursive: true, force: true });
  }
} finally {
  await meter.close();
}
