/**
 * Video and audio benchmark, one command: `npm run bench:media` (scripts/bench.sh media: set-up, corpus, this).
 * Real clips from the Debian package forensics-samples-files (a phone video, a 720p screen recording, a
 * speech WAV). In the same run, per clip:
 * - Presso `high` (MP4/H.264) through the HTTPS API (a `presso serve` child, api-service.ts) versus ffmpeg
 *   called directly with Presso's chosen arguments (the CRF the search picks): the speed ratio (CPU time,
 *   ffmpeg ÷ the server's; target ≥ 0.95). The CRF search costs the same few seconds of footage whatever
 *   the clip's length, so a one-minute clip (the 8 s clip looped) shows how the ratio grows with length.
 * - Peak RSS of the server and its ffmpeg children during each request.
 * - Presso `high` versus libx264 at its defaults (CRF 23, preset medium) searched to the largest CRF whose
 *   SSIM is at least Presso's: bytes ratio (target ≤ 0.85); Presso `high` WebM versus the same peer at the
 *   WebM's SSIM (target ≤ 0.6).
 * - Encode speed as × realtime on this machine's cores, from CPU time (wall time is noise on a shared host).
 * - Audio: Presso `high` per format versus ffmpeg's defaults for that format: bytes, duration and loudness.
 * CPU time from cgroups (bench/shared/cpu-meter.ts), the same way on both sides: the server's own, with
 * every tool it runs in its sandbox (which its rusage misses), and one per direct ffmpeg run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Deadline } from '../../src/processors/shared/deadline.ts';
import { DEFAULT_VIDEO_LIMITS, videoDecodeBounds } from '../../src/processors/video/config.ts';
import { CODEC_SETTINGS } from '../../src/processors/video/encoders.ts';
import { searchCrf } from '../../src/processors/video/quality-search.ts';
import { integratedLoudness } from '../../test/support/media.ts';
import { CpuMeter } from '../shared/cpu-meter.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';
import { type MediaService, startMediaService } from './api-service.ts';

const corpus = resolve(
  process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench',
  'usr/share/forensics-samples/original-files',
);
const VIDEOS = ['movie1/VID_20191220_170832.mp4', 'movie2/movie-hello.mp4'];
/** The 720p clip played this many times over (`-stream_loop`, no re-encode): about a minute of footage. */
const LONG_LOOPS = 7;
const AUDIO = 'audio1/debian.wav';
const meter = CpuMeter.open('media');

function ff(args: string[]): void {
  execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

function durationOf(path: string): number {
  return Number(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path]),
  );
}

/** Mean SSIM (all planes) in dB of `encoded` against `source`, full length. */
function ssimDb(encoded: string, source: string): number {
  const run = spawnSync('ffmpeg', [
    '-nostdin',
    '-hide_banner',
    '-i',
    encoded,
    '-i',
    source,
    '-lavfi',
    '[0:v][1:v]ssim',
    '-f',
    'null',
    '-',
  ]);
  const match = /All:([\d.]+)/.exec(run.stderr.toString());
  const ssim = Number(match?.[1]);
  return -10 * Math.log10(1 - ssim);
}

/** libx264 defaults (preset medium) at `crf`, AAC 128k audio like Presso's. */
function x264(source: string, crf: number, out: string): number {
  ff([
    '-i',
    source,
    '-c:v',
    'libx264',
    '-crf',
    String(crf),
    '-preset',
    'medium',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '128k',
    out,
  ]);
  return Number(execFileSync('stat', ['-c', '%s', out]).toString());
}

/** The largest CRF (smallest file) whose SSIM is at least `target`, by bisection over [10, 40]. */
function peerAt(source: string, target: number, work: string): { crf: number; bytes: number; db: number } {
  let lo = 10; // meets
  let hi = 41; // fails
  let best = { crf: lo, bytes: 0, db: 0 };
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const out = join(work, `peer-${mid}.mp4`);
    const bytes = x264(source, mid, out);
    const db = ssimDb(out, source);
    if (db >= target) {
      lo = mid;
      best = { crf: mid, bytes, db };
    } else hi = mid;
  }
  if (best.bytes === 0) {
    const out = join(work, `peer-${lo}.mp4`);
    best = { crf: lo, bytes: x264(source, lo, out), db: ssimDb(out, source) };
  }
  return best;
}

/** The clip's width and height (even sizes: these clips need no crop). */
function frameSize(path: string): { width: number; height: number } {
  const [width, height] = execFileSync('ffprobe', [
    ...['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0'],
    path,
  ])
    .toString()
    .trim()
    .split(',')
    .map(Number);
  return { width: width ?? 0, height: height ?? 0 };
}

const r2 = (n: number) => Math.round(n * 100) / 100;

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'presso-bench-media-'));
  const service = await startMediaService(work, meter);
  let outputs = 0;
  const presso = (file: string, data: Record<string, unknown>, ext: string) =>
    service.run(file, data, join(work, `presso-${outputs++}.${ext}`));
  const rows: Record<string, unknown>[] = [];
  try {
    for (const clip of VIDEOS) {
      const source = join(corpus, clip);
      const seconds = durationOf(source);
      const high = await presso(source, { video: { compression: 'high' } }, 'mp4');
      const db = ssimDb(high.path, source);
      const size = frameSize(source);
      const { crf, direct } = await directRun(source, seconds, work);
      const peer = peerAt(source, db, work);
      const peer23 = x264(source, 23, join(work, 'peer-default.mp4'));
      const webm = await presso(source, { video: { compression: 'high', format: 'webm' } }, 'webm');
      const webmDb = ssimDb(webm.path, source);
      const webmPeer = peerAt(source, webmDb, work);
      rows.push({
        clip: `forensics-samples-files: ${clip}`,
        seconds: r2(seconds),
        inputBytes: (await stat(source)).size,
        frame: `${size.width}×${size.height}`,
        pressoBytes: high.bytes,
        pressoCrf: crf,
        pressoSsimDb: r2(db),
        pressoCpu: r2(high.cpu),
        pressoWall: r2(high.wallSeconds),
        peakRssMb: Math.round(high.peakRssMb),
        directCpu: r2(direct.cpu),
        speedRatio: r2(direct.cpu / high.cpu),
        x264Crf23Bytes: peer23,
        peerCrf: peer.crf,
        peerBytes: peer.bytes,
        bytesRatio: r2(high.bytes / peer.bytes),
        webmBytes: webm.bytes,
        webmSsimDb: r2(webmDb),
        webmPeerBytes: webmPeer.bytes,
        webmRatio: r2(webm.bytes / webmPeer.bytes),
        realtimeX: r2(seconds / (high.cpu / availableParallelism())),
        webmRealtimeX: r2(seconds / (webm.cpu / availableParallelism())),
        webmPeakRssMb: Math.round(webm.peakRssMb),
      });
    }
    const long = await longClipRow(service, join(corpus, VIDEOS[1]!), work);
    const wav = join(corpus, AUDIO);
    const audioRows: Record<string, unknown>[] = [];
    const defaults: Record<string, string[]> = {
      mp3: ['-c:a', 'libmp3lame'],
      m4a: ['-c:a', 'aac'],
      opus: ['-c:a', 'libopus'],
      ogg: ['-c:a', 'libvorbis'],
    };
    for (const [format, args] of Object.entries(defaults)) {
      const result = await presso(wav, { audio: { format } }, format);
      const peerPath = join(work, `peer.${format}`);
      ff(['-i', wav, ...args, peerPath]);
      const peerBytes = (await stat(peerPath)).size;
      audioRows.push({
        format,
        pressoBytes: result.bytes,
        ffmpegDefaultBytes: peerBytes,
        bytesRatio: r2(result.bytes / peerBytes),
        durationDelta: r2(durationOf(result.path) - durationOf(wav)),
        loudnessDeltaLu: r2(integratedLoudness(result.path) - integratedLoudness(wav)),
      });
    }
    console.table(rows);
    console.table([long]);
    console.table(audioRows);
    const table = mediaReport(rows, long, audioRows);
    console.log(table);
    if (writeReadmeSection(resolve('README.md'), 'media', table)) console.log('README table written');
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/media-${new Date().toISOString().slice(0, 10)}.json`;
    await writeFile(
      file,
      `${JSON.stringify({ cores: availableParallelism(), video: rows, long, audio: audioRows }, null, 2)}\n`,
    );
    console.log(`written ${file}`);
  } finally {
    await service.stop();
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * ffmpeg run directly with the arguments Presso's `high` MP4 encode uses, at the CRF its search picks (the
 * search is deterministic: run again here, it gives the CRF the service used). CPU of that one encode.
 */
async function directRun(
  source: string,
  seconds: number,
  work: string,
): Promise<{ crf: number; direct: { cpu: number } }> {
  const searchDir = await mkdtemp(join(work, 'search-'));
  const run = {
    deadline: new Deadline(3_600_000, 'the video'),
    signal: new AbortController().signal,
    workDir: searchDir,
    // The source lies outside the work directory: the sandbox shows it to ffmpeg read-only.
    inputs: [source],
    bounds: videoDecodeBounds(DEFAULT_VIDEO_LIMITS),
  };
  const filters = 'setsar=1,format=yuv420p';
  const { crf } = await searchCrf(
    {
      path: source,
      format: 'mp4',
      start: 0,
      duration: seconds,
      filters,
      ...frameSize(source),
      codec: 'h264',
      level: 'high',
    },
    run,
  );
  const { seconds: cpu } = await meter.measure(() =>
    ff([
      ...['-i', source, '-map', '0:V:0', '-map', '0:a:0?', '-vf', filters],
      ...CODEC_SETTINGS.h264.args(crf),
      ...['-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', join(work, 'direct.mp4')],
    ]),
  );
  return { crf, direct: { cpu } };
}

/** The 720p clip looped to about a minute: the search's fixed cost against a longer encode. */
async function longClipRow(
  service: MediaService,
  clip: string,
  work: string,
): Promise<Record<string, unknown>> {
  const source = join(work, 'long.mp4');
  ff(['-stream_loop', String(LONG_LOOPS - 1), '-i', clip, '-c', 'copy', source]);
  const seconds = durationOf(source);
  const result = await service.run(source, { video: { compression: 'high' } }, join(work, 'long-out.mp4'));
  const { crf, direct } = await directRun(source, seconds, work);
  return {
    clip: `forensics-samples-files: ${basename(clip)} looped ${LONG_LOOPS}×`,
    seconds: r2(seconds),
    pressoCrf: crf,
    pressoCpu: r2(result.cpu),
    directCpu: r2(direct.cpu),
    speedRatio: r2(direct.cpu / result.cpu),
    realtimeX: r2(seconds / (result.cpu / availableParallelism())),
    peakRssMb: Math.round(result.peakRssMb),
  };
}

/** The README table: the targets, each with the median over the clips and met or missed. */
function mediaReport(
  video: Record<string, unknown>[],
  long: Record<string, unknown>,
  audio: Record<string, unknown>[],
): string {
  const median = (key: string) => {
    const values = video.map((r) => Number(r[key])).sort((a, b) => a - b);
    const mid = values.length >> 1;
    return values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
  };
  const row = (target: string, key: string, goal: (v: number) => boolean) => {
    const v = median(key);
    return `| ${target} | ${v.toFixed(2)} | ${goal(v) ? 'met' : 'missed'} |`;
  };
  return [
    `Run: \`npm run bench:media\`, ${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} vCPU, ` +
      `${video.length} clips (forensics-samples-files). CPU time from cgroups (the server with every tool it ran, ffmpeg direct alike), medians over the clips.`,
    '',
    '| target | measured | |',
    '|---|---|---|',
    row(
      'speed ≥ 0.95 × ffmpeg run directly with Presso’s arguments (API, clips of 1.6 and 8.3 s)',
      'speedRatio',
      (v) => v >= 0.95,
    ),
    `| the same on a ${long.seconds} s clip (the CRF search costs the same footage at any length) | ${Number(long.speedRatio).toFixed(2)} | ${Number(long.speedRatio) >= 0.95 ? 'met' : 'missed'} |`,
    row('`high` MP4 bytes ≤ 0.85 × libx264 (CRF searched to equal SSIM)', 'bytesRatio', (v) => v <= 0.85),
    row('`high` WebM bytes ≤ 0.6 × that H.264 peer', 'webmRatio', (v) => v <= 0.6),
    ...video.map(
      (r) =>
        `| encode speed, ${r.frame} ${r.seconds} s (× realtime, H.264 \`high\` with its search, CPU time over the cores); peak RSS | ${r.realtimeX}×; ${r.peakRssMb} MB | (reported) |`,
    ),
    `| encode speed, ${long.seconds} s 1280×720 (× realtime); peak RSS | ${long.realtimeX}×; ${long.peakRssMb} MB | (reported) |`,
    '',
    '| audio `high` | bytes ÷ ffmpeg default | duration change (s) | loudness change (LU) |',
    '|---|---|---|---|',
    ...audio.map(
      (r) =>
        `| ${r.format} | ${Number(r.bytesRatio).toFixed(2)} | ${r.durationDelta} | ${r.loudnessDeltaLu} |`,
    ),
  ].join('\n');
}

try {
  await main();
} finally {
  await meter.close();
}
