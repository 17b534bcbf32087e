/** The audio processor against the Processor contract, with one generated tone per declared input format. */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after } from 'node:test';
import { detectFile } from '../../../src/media/detect.ts';
import { audioModule } from '../../../src/processors/audio/index.ts';
import { createVideoProcessor } from '../../../src/processors/video/video-processor.ts';
import { processorContract } from '../../contracts/processor.contract.ts';
import { audioStream, formatFiles, makeTone, makeTones, probe } from '../../support/media.ts';

const dir = await mkdtemp(join(tmpdir(), 'presso-audio-contract-'));
after(() => rm(dir, { recursive: true, force: true }));

const tone = (name: string, encode: string[], seconds: number, sampleRate?: number) =>
  makeTone(join(dir, name), encode, seconds, sampleRate);
// Every format's one-second tone from one ffmpeg run (one start instead of eleven).
const TONES = {
  mp3: ['tone.mp3', ['-c:a', 'libmp3lame', '-b:a', '192k']],
  aac: ['tone.aac', ['-c:a', 'aac', '-f', 'adts']],
  m4a: ['tone.m4a', ['-c:a', 'aac']],
  ogg: ['tone.ogg', ['-c:a', 'libvorbis']],
  opus: ['tone.opus', ['-c:a', 'libopus']],
  flac: ['tone.flac', ['-c:a', 'flac']],
  wav: ['tone.wav', ['-c:a', 'pcm_s16le']],
  aiff: ['tone.aiff', ['-c:a', 'pcm_s16be']],
  wma: ['tone.wma', ['-c:a', 'wmav2']],
  weba: ['tone.webm', ['-c:a', 'libopus']],
  mka: ['tone.mkv', ['-c:a', 'flac']],
} as const satisfies Record<string, readonly [string, readonly string[]]>;
const { paths: byFormat, outputs } = formatFiles(dir, TONES);
makeTones(outputs, 1);
const mp3 = byFormat.mp3;
const bytes = await readFile(mp3);
const cut = join(dir, 'cut.mp3');
await writeFile(cut, bytes.subarray(0, 300));
const junk = join(dir, 'junk.wav');
await writeFile(
  junk,
  Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(400, 0xff)]),
);

processorContract(
  audioModule,
  {
    byFormat,
    refined: {
      formats: ['weba', 'mka'],
      async refine(path) {
        const sniffed = await detectFile(path);
        assert.ok(sniffed !== undefined && sniffed.kind === 'video', `${path} is sniffed as video`);
        const video = createVideoProcessor();
        const input = { ...sniffed, path, name: basename(path), size: (await stat(path)).size };
        return video.refineInput!(input, { workDir: dir, signal: new AbortController().signal });
      },
    },
    corrupt: [cut, junk],
    // A 10 minute tone to Opus: long enough that every abort lands mid-run (the encode takes seconds at any
    // input rate: Opus resamples to 48 kHz). At 8 kHz it is written in a quarter of 44.1 kHz's CPU.
    slow: { path: tone('long.flac', ['-c:a', 'flac'], 600, 8000), params: { format: 'opus' } },
    async verifyOutput(result) {
      const audio = audioStream(probe(result.path));
      assert.ok(audio !== undefined && (audio.channels ?? 0) > 0);
    },
  },
  { PRESSO_AUDIO_TIME_BUDGET: '30m', PRESSO_AUDIO_TIME_FLOOR: '30m' },
);
