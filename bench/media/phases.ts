/**
 * Where a video request's CPU goes, per clip, without the HTTP service around it: the CRF search on the proxy
 * and the full-size check with the final encode (encode-to-level.ts), each measured in a cgroup with every
 * sandboxed ffmpeg it runs, against one ffmpeg run directly at the final settings. For trying a lever on the
 * search quickly (`node bench/media/phases.ts [clip …]`, default: the media benchmark's clips); the numbers
 * that go into the docs come from `npm run bench:media`, which runs requests as users do.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Deadline } from '../../src/processors/shared/deadline.ts';
import { DEFAULT_VIDEO_LIMITS, videoDecodeBounds } from '../../src/processors/video/config.ts';
import { encodeToLevel } from '../../src/processors/video/encode-to-level.ts';
import { CODEC_SETTINGS } from '../../src/processors/video/encoders.ts';
import { searchCrf } from '../../src/processors/video/quality-search.ts';
import { CpuMeter } from '../shared/cpu-meter.ts';
import { CORPUS, VIDEOS } from './clips.ts';
import { durationOf, ff, frameSize } from './peer.ts';

/** The clips that play as they are (the `.gz` one needs unpacking first). */
const CLIPS = VIDEOS.filter((v) => !v.file.endsWith('.gz')).map((v) => v.file);
const FORMATS: Record<string, string> = { mp4: 'mp4', webm: 'webm', avi: 'avi', mkv: 'mkv' };
const meter = CpuMeter.open('media-phases');
/** `--webm`: AV1 in WebM (the WebM default) instead of H.264 in MP4. */
const WEBM = process.argv.includes('--webm');
const codec = WEBM ? ('av1' as const) : ('h264' as const);
const container = WEBM ? ('webm' as const) : ('mp4' as const);
const r2 = (n: number) => Math.round(n * 100) / 100;

async function phases(clip: string): Promise<Record<string, unknown>> {
  const workDir = await mkdtemp(join(tmpdir(), 'presso-phases-'));
  try {
    const { width, height } = frameSize(clip);
    const seconds = durationOf(clip);
    const format = FORMATS[clip.split('.').pop() ?? ''] ?? 'mp4';
    const run = {
      deadline: new Deadline(60 * 60_000),
      signal: new AbortController().signal,
      workDir,
      inputs: [clip],
      bounds: videoDecodeBounds(DEFAULT_VIDEO_LIMITS),
    };
    const input = {
      ...{ path: clip, format, start: 0, duration: seconds, filters: 'setsar=1,format=yuv420p' },
      ...{ codec, level: 'high' as const, width, height },
    };
    const started = performance.now();
    const search = await meter.measure(() => searchCrf(input, run));
    const searchWall = (performance.now() - started) / 1000;
    const output = join(workDir, `out.${container}`);
    const plan = {
      ...{ inputPath: clip, inputFormat: format, start: 0, duration: undefined, filters: ['setsar=1'] },
      ...{ outputPixels: width * height, format: container, codec, output },
      crf: search.value.crf,
      audio: { kind: 'none' as const },
    };
    const checkStarted = performance.now();
    const check = await meter.measure(() => encodeToLevel(plan, input, run, {}));
    const checkWall = (performance.now() - checkStarted) / 1000;
    const bytes = await readFile(output);
    const direct = await meter.measure(() =>
      ff([
        ...['-i', clip, '-map', '0:V:0', '-an', '-vf', 'setsar=1,format=yuv420p', '-fps_mode', 'vfr'],
        ...CODEC_SETTINGS[codec].args(check.value.crf),
        ...(WEBM ? [join(workDir, 'direct.webm')] : ['-movflags', '+faststart', join(workDir, 'direct.mp4')]),
      ]),
    );
    const total = search.seconds + check.seconds;
    return {
      clip: clip.split('/').pop(),
      seconds: r2(seconds),
      searchCpu: r2(search.seconds),
      searchWall: r2(searchWall),
      checkCpu: r2(check.seconds),
      checkWall: r2(checkWall),
      directCpu: r2(direct.seconds),
      cpuRatio: r2(total / direct.seconds),
      trials: search.value.trials
        .map((t) => `${t.crf}:${t.db.toFixed(2)}/${t.ssimulacra2.toFixed(1)}`)
        .join(' '),
      tries: check.value.tries
        .map((t) => `${t.crf}:${t.db.toFixed(2)}/${t.ssimulacra2.toFixed(1)}`)
        .join(' '),
      crf: check.value.crf,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex').slice(0, 12),
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

try {
  const clips = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const load = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
  console.log(`load average ${load}`);
  for (const clip of clips.length > 0 ? clips : CLIPS.map((c) => join(CORPUS, c))) {
    console.log(JSON.stringify(await phases(clip)));
  }
} finally {
  await meter.close();
}
