/**
 * Video and audio benchmark, one command: `npm run bench:media` (scripts/bench.sh media: set-up, corpus, this).
 * Real clips from the Debian package forensics-samples-files (a phone video, a 720p screen recording, a
 * speech WAV). In the same run, per clip:
 * - Presso `high` (MP4/H.264) through the processor versus ffmpeg called directly with Presso's chosen
 *   arguments (the CRF the search picks): the speed ratio (CPU time, ffmpeg ÷ Presso; target ≥ 0.95).
 * - Presso `high` versus libx264 at its defaults (CRF 23, preset medium) searched to the largest CRF whose
 *   SSIM is at least Presso's: bytes ratio (target ≤ 0.85); Presso `high` WebM versus the same peer at the
 *   WebM's SSIM (target ≤ 0.6).
 * - Encode speed as × realtime on this machine's cores, from CPU time (wall time is noise on a shared host).
 * - Audio: Presso `high` per format versus ffmpeg's defaults for that format: bytes, duration and loudness.
 * CPU time is this process's plus its waited-for children's (ffmpeg), read from /proc/self/stat.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { detectFile } from '../../src/media/detect.ts';
import { createAudioProcessor } from '../../src/processors/audio/audio-processor.ts';
import type { Processor } from '../../src/processors/processor.ts';
import { Deadline } from '../../src/processors/shared/deadline.ts';
import { CODEC_SETTINGS } from '../../src/processors/video/encoders.ts';
import { searchCrf } from '../../src/processors/video/quality-search.ts';
import { createVideoProcessor } from '../../src/processors/video/video-processor.ts';
import { integratedLoudness } from '../../test/support/media.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';

const corpus = resolve(
  process.env.PRESSO_BENCH_CORPUS ?? '.corpus/bench',
  'usr/share/forensics-samples/original-files',
);
const VIDEOS = ['movie1/VID_20191220_170832.mp4', 'movie2/movie-hello.mp4'];
const AUDIO = 'audio1/debian.wav';
const TICKS = 100; // USER_HZ

async function cpuSeconds(): Promise<number> {
  const fields = (await readFile('/proc/self/stat', 'utf8')).split(') ')[1]!.split(' ');
  // utime, stime, cutime, cstime are fields 14–17 of stat; here indexed from field 3.
  const [u, s, cu, cs] = [11, 12, 13, 14].map((i) => Number(fields[i]));
  return (u! + s! + cu! + cs!) / TICKS;
}

async function measured<T>(work: () => Promise<T>): Promise<{ value: T; cpu: number }> {
  const before = await cpuSeconds();
  const value = await work();
  return { value, cpu: (await cpuSeconds()) - before };
}

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

async function runPresso(processor: Processor, path: string, params: Record<string, unknown>, work: string) {
  const detected = await detectFile(path);
  if (!detected) throw new Error(`not detected: ${path}`);
  const workDir = await mkdtemp(join(work, 'job-'));
  const size = (await stat(path)).size;
  const { value, cpu } = await measured(() =>
    processor.process({
      input: { ...detected, path, name: basename(path), size },
      params,
      workDir,
      signal: new AbortController().signal,
      wantMetadata: false,
    }),
  );
  return { path: value.path, bytes: (await stat(value.path)).size, cpu };
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
  const video = createVideoProcessor();
  const audio = createAudioProcessor();
  const rows: Record<string, unknown>[] = [];
  try {
    for (const clip of VIDEOS) {
      const source = join(corpus, clip);
      const seconds = durationOf(source);
      const presso = await runPresso(video, source, { compression: 'high' }, work);
      const db = ssimDb(presso.path, source);
      // The CRF Presso chose: the search is deterministic, so running it again gives the same answer.
      const searchDir = await mkdtemp(join(work, 'search-'));
      const run = {
        deadline: new Deadline(3_600_000, 'the video'),
        signal: new AbortController().signal,
        workDir: searchDir,
      };
      const { crf } = await searchCrf(
        {
          path: source,
          format: 'mp4',
          start: 0,
          duration: seconds,
          filters: 'setsar=1,format=yuv420p',
          ...frameSize(source),
          codec: 'h264',
          level: 'high',
        },
        run,
      );
      const direct = await measured(async () =>
        ff([
          '-i',
          source,
          '-map',
          '0:V:0',
          '-map',
          '0:a:0?',
          '-vf',
          'setsar=1,format=yuv420p',
          ...CODEC_SETTINGS.h264.args(crf),
          '-c:a',
          'aac',
          '-b:a',
          '128k',
          '-movflags',
          '+faststart',
          join(work, 'direct.mp4'),
        ]),
      );
      const peer = peerAt(source, db, work);
      const peer23 = x264(source, 23, join(work, 'peer-default.mp4'));
      const webm = await runPresso(video, source, { compression: 'high', format: 'webm' }, work);
      const webmDb = ssimDb(webm.path, source);
      const webmPeer = peerAt(source, webmDb, work);
      rows.push({
        clip: `forensics-samples-files: ${clip}`,
        seconds: r2(seconds),
        inputBytes: (await stat(source)).size,
        pressoBytes: presso.bytes,
        pressoCrf: crf,
        pressoSsimDb: r2(db),
        pressoCpu: r2(presso.cpu),
        directCpu: r2(direct.cpu),
        speedRatio: r2(direct.cpu / presso.cpu),
        x264Crf23Bytes: peer23,
        peerCrf: peer.crf,
        peerBytes: peer.bytes,
        bytesRatio: r2(presso.bytes / peer.bytes),
        webmBytes: webm.bytes,
        webmSsimDb: r2(webmDb),
        webmPeerBytes: webmPeer.bytes,
        webmRatio: r2(webm.bytes / webmPeer.bytes),
        realtimeX: r2(seconds / (presso.cpu / availableParallelism())),
        webmRealtimeX: r2(seconds / (webm.cpu / availableParallelism())),
      });
    }
    const wav = join(corpus, AUDIO);
    const audioRows: Record<string, unknown>[] = [];
    const defaults: Record<string, string[]> = {
      mp3: ['-c:a', 'libmp3lame'],
      m4a: ['-c:a', 'aac'],
      opus: ['-c:a', 'libopus'],
      ogg: ['-c:a', 'libvorbis'],
    };
    for (const [format, args] of Object.entries(defaults)) {
      const presso = await runPresso(audio, wav, { format }, work);
      const peerPath = join(work, `peer.${format}`);
      ff(['-i', wav, ...args, peerPath]);
      const peerBytes = (await stat(peerPath)).size;
      audioRows.push({
        format,
        pressoBytes: presso.bytes,
        ffmpegDefaultBytes: peerBytes,
        bytesRatio: r2(presso.bytes / peerBytes),
        durationDelta: r2(durationOf(presso.path) - durationOf(wav)),
        loudnessDeltaLu: r2(integratedLoudness(presso.path) - integratedLoudness(wav)),
      });
    }
    console.table(rows);
    console.table(audioRows);
    const table = mediaReport(rows, audioRows);
    console.log(table);
    if (writeReadmeSection(resolve('README.md'), 'media', table)) console.log('README table written');
    await mkdir('bench/results', { recursive: true });
    const file = `bench/results/media-${new Date().toISOString().slice(0, 10)}.json`;
    await writeFile(
      file,
      `${JSON.stringify({ cores: availableParallelism(), video: rows, audio: audioRows }, null, 2)}\n`,
    );
    console.log(`written ${file}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The README table: the targets, each with the median over the clips and met or missed. */
function mediaReport(video: Record<string, unknown>[], audio: Record<string, unknown>[]): string {
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
      `${video.length} clips (forensics-samples-files). CPU time, medians over the clips.`,
    '',
    '| target | measured | |',
    '|---|---|---|',
    row('speed ≥ 0.95 × ffmpeg run directly with Presso’s arguments', 'speedRatio', (v) => v >= 0.95),
    row('`high` MP4 bytes ≤ 0.85 × libx264 (CRF searched to equal SSIM)', 'bytesRatio', (v) => v <= 0.85),
    row('`high` WebM bytes ≤ 0.6 × that H.264 peer', 'webmRatio', (v) => v <= 0.6),
    row('encode speed, × realtime (H.264, CPU time over the cores)', 'realtimeX', () => true).replace(
      '| met |',
      '| (reported) |',
    ),
    '',
    '| audio `high` | bytes ÷ ffmpeg default | duration change (s) | loudness change (LU) |',
    '|---|---|---|---|',
    ...audio.map(
      (r) =>
        `| ${r.format} | ${Number(r.bytesRatio).toFixed(2)} | ${r.durationDelta} | ${r.loudnessDeltaLu} |`,
    ),
  ].join('\n');
}

await main();
