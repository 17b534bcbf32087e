/**
 * Video and audio benchmark, one command: `npm run bench:media` (scripts/bench.sh media: set-up, corpus, this).
 * Real clips from Debian packages (scripts/corpus/bench-images.txt): a 1080p phone video and a 720p clip
 * (forensics-samples-files), a screen recording (gnome-user-docs), an animated trailer, a surveillance camera
 * and a hand-held camera (opencv-doc), plus the 720p clip looped to about a minute. In the same run, per clip:
 * - Presso `high` MP4 (H.264) through the HTTPS API (a `presso serve` child, api-service.ts) against ffmpeg
 *   called directly with Presso's final arguments (the CRF it chose): CPU ratio, Presso ÷ direct (targets:
 *   ≤ 1.3 on clips of 30 s or more, ≤ 2 on shorter ones).
 * - Presso's bytes against libx264 `-preset medium` searched to equal quality (peer.ts), on SSIM and on
 *   SSIMULACRA 2 of sampled frames (target ≤ 0.90 on both); Presso `high` WebM against the same peer at the
 *   WebM's SSIM (target ≤ 0.6).
 * - Peak RSS of the server and its ffmpeg children; encode speed as × realtime from CPU time.
 * - Audio: Presso `high` per format versus ffmpeg's defaults for that format: bytes, duration and loudness.
 * CPU time from cgroups (bench/shared/cpu-meter.ts), the same way on both sides: the server's own, with
 * every tool it runs in its sandbox (which its rusage misses), and one per direct ffmpeg run.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CODEC_SETTINGS } from '../../src/processors/video/encoders.ts';
import { integratedLoudness } from '../../test/support/media.ts';
import { CpuMeter } from '../shared/cpu-meter.ts';
import { writeReadmeSection } from '../shared/readme-section.ts';
import { type ApiRun, type MediaService, startMediaService } from './api-service.ts';
import { CORPUS, VIDEOS } from './clips.ts';
import { durationOf, ff, frameSize, Peer, sampledSsimulacra2, ssimDb } from './peer.ts';

/** The 720p clip played this many times over (`-stream_loop`, no re-encode): about a minute of footage. */
const LONG_LOOPS = 7;
/** Clips this long or longer are held to the long-clip CPU target. */
const LONG_SECONDS = 30;
const AUDIO = 'forensics-samples/original-files/audio1/debian.wav';
const meter = CpuMeter.open('media');

const r2 = (n: number) => Math.round(n * 100) / 100;

/** The CRF Presso chose, from the settings x264 writes into the stream (`crf=24.0`). */
function chosenCrf(output: string): number {
  const text = execFileSync('strings', [output], { maxBuffer: 256 * 1024 ** 2 }).toString();
  const crf = Number(/crf=([\d.]+)/.exec(text)?.[1]);
  if (!Number.isFinite(crf)) throw new Error(`no x264 settings in ${output}`);
  return crf;
}

function audioCodec(path: string): string {
  return execFileSync('ffprobe', [
    ...['-v', 'error', '-select_streams', 'a:0', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0'],
    path,
  ])
    .toString()
    .trim();
}

/**
 * ffmpeg run directly with the arguments of Presso's `high` MP4 encode at the CRF it chose (read from its
 * output), audio copied where Presso copies it (AAC) and encoded as it does otherwise. CPU of that one run.
 */
async function directCpu(source: string, crf: number, work: string): Promise<number> {
  const audio = audioCodec(source);
  const audioArgs =
    audio === '' ? ['-an'] : audio === 'aac' ? ['-c:a', 'copy'] : ['-c:a', 'aac', '-b:a', '128k'];
  const { seconds } = await meter.measure(() =>
    ff([
      ...[
        '-i',
        source,
        '-map',
        '0:V:0',
        '-map',
        '0:a:0?',
        '-vf',
        'setsar=1,format=yuv420p',
        '-fps_mode',
        'vfr',
      ],
      ...CODEC_SETTINGS.h264.args(crf),
      ...audioArgs,
      ...['-movflags', '+faststart', join(work, 'direct.mp4')],
    ]),
  );
  return seconds;
}

/** Presso `high` MP4 of one clip and the same encode run directly: the CPU ratio. */
async function speedRow(service: MediaService, source: string, label: string, work: string) {
  const seconds = durationOf(source);
  const high = await service.run(
    source,
    { video: { compression: 'high', format: 'mp4' } },
    join(work, 'high.mp4'),
  );
  const crf = chosenCrf(high.path);
  const direct = await directCpu(source, crf, work);
  return {
    row: {
      clip: label,
      seconds: r2(seconds),
      frame: `${frameSize(source).width}×${frameSize(source).height}`,
      pressoCrf: crf,
      pressoCpu: r2(high.cpu),
      pressoWall: r2(high.wallSeconds),
      directCpu: r2(direct),
      cpuRatio: r2(high.cpu / direct),
      realtimeX: r2(seconds / (high.cpu / availableParallelism())),
      peakRssMb: Math.round(high.peakRssMb),
    },
    high,
  };
}

async function clipRow(service: MediaService, source: string, label: string, work: string) {
  const { row, high } = await speedRow(service, source, label, work);
  // `--speed`: the CPU rows only (no peer searches), for a quick before/after of the search's cost.
  if (process.argv.includes('--speed')) return row;
  const db = ssimDb(high.path, source);
  const s2 = await sampledSsimulacra2(high.path, source, work);
  const peer = new Peer(source, work);
  const bySsim = await peer.at('db', db, row.pressoCrf);
  const byS2 = await peer.at('ssimulacra2', s2, row.pressoCrf);
  return {
    ...row,
    inputBytes: (await stat(source)).size,
    pressoBytes: high.bytes,
    pressoSsimDb: r2(db),
    pressoS2: r2(s2),
    peerCrfSsim: bySsim.crf,
    peerBytesSsim: bySsim.bytes,
    bytesRatio: r2(high.bytes / bySsim.bytes),
    peerCrfS2: byS2.crf,
    peerBytesS2: byS2.bytes,
    bytesRatioS2: r2(high.bytes / byS2.bytes),
    ...(process.argv.includes('--webm') ? await webmColumns(service, source, peer, row.seconds, work) : {}),
  };
}

/** `--webm`: Presso `high` WebM (AV1) against the H.264 peer at the WebM's SSIM. */
async function webmColumns(service: MediaService, source: string, peer: Peer, seconds: number, work: string) {
  const webm: ApiRun = await service.run(
    source,
    { video: { compression: 'high', format: 'webm' } },
    join(work, 'high.webm'),
  );
  const webmDb = ssimDb(webm.path, source);
  const webmPeer = await peer.at('db', webmDb, 30);
  return {
    webmBytes: webm.bytes,
    webmSsimDb: r2(webmDb),
    webmRatio: r2(webm.bytes / webmPeer.bytes),
    webmRealtimeX: r2(seconds / (webm.cpu / availableParallelism())),
    webmPeakRssMb: Math.round(webm.peakRssMb),
  };
}

/** The clip as a file ffmpeg reads: `.gz` ones unpacked into the work directory. */
function unpacked(file: string, work: string): string {
  const path = join(CORPUS, file);
  if (!file.endsWith('.gz')) return path;
  const out = join(work, file.split('/').pop()?.replace(/\.gz$/, '') ?? 'clip');
  execFileSync('sh', ['-c', 'gzip -dc "$1" > "$2"', 'gunzip', path, out]);
  return out;
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'presso-bench-media-'));
  const service = await startMediaService(work, meter);
  const rows: Record<string, unknown>[] = [];
  try {
    for (const { file, kind } of VIDEOS) {
      const clipWork = await mkdtemp(join(work, 'clip-'));
      const label = `${file.split('/').pop()?.replace(/\.gz$/, '')} (${kind})`;
      rows.push(await clipRow(service, unpacked(file, clipWork), label, clipWork));
      await rm(clipWork, { recursive: true, force: true });
      console.log(JSON.stringify(rows.at(-1)));
    }
    const long = join(work, 'long.mp4');
    ff(['-stream_loop', String(LONG_LOOPS - 1), '-i', join(CORPUS, VIDEOS[1]!.file), '-c', 'copy', long]);
    const loop = (await speedRow(service, long, `movie-hello.mp4 looped ${LONG_LOOPS}× (camera)`, work)).row;
    console.log(JSON.stringify(loop));
    const audioRows = await audioTable(service, work);
    console.table(rows);
    console.table([loop]);
    console.table(audioRows);
    const table = mediaReport(rows, loop, audioRows);
    console.log(table);
    const partial = process.argv.includes('--speed');
    if (!partial && writeReadmeSection(resolve('README.md'), 'media', table))
      console.log('README table written');
    await mkdir('bench/results', { recursive: true });
    const out = `bench/results/media-${new Date().toISOString().slice(0, 10)}.json`;
    await writeFile(
      out,
      `${JSON.stringify({ cores: availableParallelism(), load: loadAverage(), video: rows, long: loop, audio: audioRows }, null, 2)}\n`,
    );
    console.log(`written ${out}`);
  } finally {
    await service.stop();
    await rm(work, { recursive: true, force: true });
  }
}

async function audioTable(service: MediaService, work: string): Promise<Record<string, unknown>[]> {
  const wav = join(CORPUS, AUDIO);
  const rows: Record<string, unknown>[] = [];
  const defaults: Record<string, string[]> = {
    mp3: ['-c:a', 'libmp3lame'],
    m4a: ['-c:a', 'aac'],
    opus: ['-c:a', 'libopus'],
    ogg: ['-c:a', 'libvorbis'],
  };
  for (const [format, args] of Object.entries(defaults)) {
    const result = await service.run(wav, { audio: { format } }, join(work, `presso.${format}`));
    const peerPath = join(work, `peer.${format}`);
    ff(['-i', wav, ...args, peerPath]);
    const peerBytes = (await stat(peerPath)).size;
    rows.push({
      format,
      pressoBytes: result.bytes,
      ffmpegDefaultBytes: peerBytes,
      bytesRatio: r2(result.bytes / peerBytes),
      durationDelta: r2(durationOf(result.path) - durationOf(wav)),
      loudnessDeltaLu: r2(integratedLoudness(result.path) - integratedLoudness(wav)),
    });
  }
  return rows;
}

/** The host's 1, 5 and 15 minute load averages: CPU times inflate on a busy host, so each run says its load. */
function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The README table: the targets, each with the median over the clips and met or missed. */
function mediaReport(
  video: Record<string, unknown>[],
  loop: Record<string, unknown>,
  audio: Record<string, unknown>[],
): string {
  const speed = [...video, loop].map((r) => ({ seconds: Number(r.seconds), ratio: Number(r.cpuRatio) }));
  const longOnes = speed.filter((r) => r.seconds >= LONG_SECONDS).map((r) => r.ratio);
  const shortOnes = speed.filter((r) => r.seconds < LONG_SECONDS).map((r) => r.ratio);
  const row = (target: string, values: number[], goal: (v: number) => boolean, unit = '') => {
    // `--speed` and a run without `--webm` measure no bytes: said so, not a median of nothing.
    if (values.every((x) => Number.isNaN(x))) return `| ${target} | not measured in this run | |`;
    const v = median(values);
    const each = values.map((x) => x.toFixed(2)).join(', ');
    return `| ${target} | ${v.toFixed(2)}${unit} (${each}) | ${goal(v) ? 'met' : '**missed**'} |`;
  };
  const of = (key: string) => video.map((r) => Number(r[key]));
  return [
    `Run: \`npm run bench:media\`, ${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} vCPU, load average ${loadAverage()}, ` +
      `${video.length} clips (forensics-samples-files, gnome-user-docs, opencv-doc) and one looped to ${loop.seconds} s. ` +
      'CPU time from cgroups (the server with every tool it ran, ffmpeg direct alike); medians over the clips, each clip in brackets.',
    '',
    '| target | measured: median (each clip) | |',
    '|---|---|---|',
    row(
      `CPU ÷ ffmpeg direct at Presso’s final settings ≤ 1.3, clips ≥ ${LONG_SECONDS} s`,
      longOnes,
      (v) => v <= 1.3,
      '×',
    ),
    row(`CPU ÷ ffmpeg direct ≤ 2, clips < ${LONG_SECONDS} s`, shortOnes, (v) => v <= 2, '×'),
    row('`high` MP4 bytes ÷ libx264 medium searched to equal SSIM ≤ 0.90', of('bytesRatio'), (v) => v <= 0.9),
    row(
      '`high` MP4 bytes ÷ libx264 medium searched to equal SSIMULACRA 2 (4 sampled frames) ≤ 0.90',
      of('bytesRatioS2'),
      (v) => v <= 0.9,
    ),
    row(
      '`high` WebM (AV1) bytes ÷ that H.264 peer at the WebM’s SSIM ≤ 0.6',
      of('webmRatio'),
      (v) => v <= 0.6,
    ),
    '',
    '| clip | frame, s | CRF | CPU s (direct) | CPU ÷ direct | wall s | × realtime | peak RSS MB | SSIM dB / SSIMULACRA 2 |',
    '|---|---|---|---|---|---|---|---|---|',
    ...[...video, loop].map(
      (r) =>
        `| ${r.clip} | ${r.frame}, ${r.seconds} | ${r.pressoCrf} | ${r.pressoCpu} (${r.directCpu}) | ${r.cpuRatio} | ${r.pressoWall} | ${r.realtimeX} | ${r.peakRssMb} | ${r.pressoSsimDb ?? '–'} / ${r.pressoS2 ?? '–'} |`,
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

try {
  await main();
} finally {
  await meter.close();
}
