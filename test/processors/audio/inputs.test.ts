/**
 * Audio inputs that real files bring: surround and stereo mixed down (loudness kept on the same footing
 * as the first encode), tags long enough to fill ffprobe's description, 24-bit samples written out
 * losslessly, and Ogg Opus whose tags live on the stream. Every assertion decodes the output.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { createAudioProcessor } from '../../../src/processors/audio/audio-processor.ts';
import { audioStream, ffmpeg, integratedLoudness, once, probe, runProcessor } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';

const scratch = useScratch('presso-audio-inputs-');
const processor = createAudioProcessor();

/** The inputs' names and how each is written (after `-map`); the sources are those of `inputs`. */
const INPUTS = {
  // Three seconds of speech-like tones (two frequencies, changing level) on the layout's channels.
  '5.1.wav': ['[5.1]', '-c:a', 'pcm_s16le'],
  'stereo.wav': ['[stereo]', '-c:a', 'pcm_s16le'],
  'deep.flac': ['[deep]', '-c:a', 'flac', '-sample_fmt', 's32'],
  // A plain 440 Hz tone, 48 kHz mono, two seconds or one.
  'long-tag.mp3': [
    '2:a',
    '-metadata',
    `comment=${'lyrics '.repeat(3000)}`,
    '-c:a',
    'libmp3lame',
    '-b:a',
    '192k',
  ],
  'titled.opus': ['2:a', '-metadata', 'title=Presso tone', '-c:a', 'libopus'],
  'speech.opus': ['2:a', '-t', '1', '-c:a', 'libopus'],
  'mono.wav': ['2:a', '-t', '1', '-c:a', 'pcm_s16le'],
  'lo.mp3': ['2:a', '-t', '1', '-ac', '2', '-c:a', 'libmp3lame'],
} as const;

/** `layout`'s channels, each the mixed tone `[mix<n>]`, as `[label]`. */
function onChannels(n: number, layout: string, label: string, channels: number): string {
  const labels = Array.from({ length: channels }, (_, i) => `[${label}${i}]`).join('');
  return `[mix${n}]asplit=${channels}${labels};${labels}join=inputs=${channels}:channel_layout=${layout}[${label}]`;
}

/**
 * Every input of the file by one ffmpeg run (one start instead of eight): the two sources generated once, the
 * mixed tone split to the 5.1, the stereo and the 24-bit stereo file.
 */
const inputs = once(() => {
  ffmpeg([
    ...['-f', 'lavfi', '-i', 'sine=frequency=330:duration=3:sample_rate=48000'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=1200:duration=3:sample_rate=48000'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2:sample_rate=48000'],
    '-filter_complex',
    [
      "[0][1]amix=inputs=2,volume='0.5+0.4*sin(2*PI*t)':eval=frame,asplit=3[mix0][mix1][mix2]",
      onChannels(0, '5.1', '5.1', 6),
      onChannels(1, 'stereo', 'stereo', 2),
      onChannels(2, 'stereo', 'deep', 2),
    ].join(';'),
    ...Object.entries(INPUTS).flatMap(([name, [map, ...encode]]) => [
      '-map',
      map,
      ...encode,
      join(scratch(), name),
    ]),
  ]);
  return (name: keyof typeof INPUTS) => join(scratch(), name);
});

describe('audio inputs', () => {
  for (const [name, layout, params] of [
    ['5.1 mixed down to stereo MP3', '5.1', { format: 'mp3' }],
    ['5.1 mixed down to stereo Opus', '5.1', { format: 'opus' }],
    ['stereo made mono in MP3', 'stereo', { format: 'mp3', channels: 1 }],
  ] as const) {
    it(`${name}: the loudness of the input is kept`, async () => {
      const input = inputs()(`${layout}.wav`);
      const result = await runProcessor(processor, input, { ...params });
      const drift = integratedLoudness(result.path) - integratedLoudness(input);
      assert.ok(Math.abs(drift) <= 1, `loudness changed by ${drift.toFixed(2)} LU`);
    });
  }

  it('an MP3 with a 20 KB comment tag is described and encoded', async () => {
    const input = inputs()('long-tag.mp3');
    const result = await runProcessor(processor, input, { compression: 'high' });
    assert.equal(audioStream(probe(result.path))?.codec_name, 'mp3');
  });

  it('24-bit FLAC written losslessly as WAV keeps 24 bits', async () => {
    const input = inputs()('deep.flac');
    const result = await runProcessor(processor, input, { compression: 'lossless', format: 'wav' });
    assert.equal(audioStream(probe(result.path))?.codec_name, 'pcm_s24le');
  });

  it('the title of an Ogg Opus file (a stream tag) is kept in an MP3', async () => {
    const input = inputs()('titled.opus');
    const result = await runProcessor(processor, input, { format: 'mp3' });
    assert.equal(probe(result.path).format.tags?.title, 'Presso tone');
  });

  it('an Opus input kept Opus: a sample rate Opus cannot take is a 422 on audio.sampleRate', async () => {
    const input = inputs()('speech.opus');
    await assert.rejects(
      runProcessor(processor, input, { sampleRate: 44100 }),
      (error: unknown) => error instanceof PressoError && error.errors?.[0]?.field === 'audio.sampleRate',
    );
  });

  it('an Opus bitrate past what libopus takes per channel is clamped, not refused', async () => {
    const input = inputs()('mono.wav');
    const result = await runProcessor(processor, input, { format: 'opus', bitrate: 512 });
    const stream = audioStream(probe(result.path));
    assert.deepEqual([stream?.codec_name, stream?.channels], ['opus', 1]);
  });

  it('lossless with new channels and rate on a lossy track writes them (FLAC), instead of a copy that ignores them', async () => {
    const input = inputs()('lo.mp3');
    const result = await runProcessor(processor, input, {
      compression: 'lossless',
      channels: 1,
      sampleRate: 22050,
    });
    const stream = audioStream(probe(result.path));
    assert.deepEqual([stream?.codec_name, stream?.channels, stream?.sample_rate], ['flac', 1, '22050']);
  });
});
