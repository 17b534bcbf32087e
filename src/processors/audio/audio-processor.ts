/**
 * The audio processor: probe (demuxer forced, `file` protocol only), limits, then one ffmpeg run that
 * re-encodes the first audio track at the level's bitrate per channel, converts, trims, mixes down or
 * resamples, or (lossless) writes FLAC/WAV or remuxes a lossy track untouched. No gain is applied, so
 * loudness is kept.
 */
import { join } from 'node:path';
import { UnprocessableInputError, ValidationError } from '../../errors/catalog.ts';
import type { MediaRun } from '../ffmpeg/decode-bounds.ts';
import { safeInputArgs, seekArgs } from '../ffmpeg/demuxers.ts';
import { describeMedia } from '../ffmpeg/describe-media.ts';
import { declaredAudioMinutes } from '../ffmpeg/media-budget.ts';
import { checkMediaLimits } from '../ffmpeg/media-limits.ts';
import { mainAudio, probeMedia } from '../ffmpeg/probe.ts';
import { runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import { typedProcessor } from '../module.ts';
import type { Processor, ProcessRequest, ProcessResult } from '../processor.ts';
import { Deadline } from '../shared/deadline.ts';
import { withOverrides } from '../shared/limits.ts';
import { toolScope } from '../shared/run-tool.ts';
import { earnedTimeMs } from '../shared/time-budget.ts';
import { audioArgs, planAudioOutput } from './audio-args.ts';
import { AUDIO_TIME_EARNED, type AudioLimits, DEFAULT_AUDIO_LIMITS } from './config.ts';
import { AUDIO_FORMATS } from './encoders.ts';
import { compensatingGain, loudnessOutputArgs, measureLoudness, readLoudness } from './loudness.ts';
import { AUDIO_OUTPUT_FORMATS, audioParams, checkAudioParams, type ResolvedAudioParams } from './params.ts';

export const AUDIO_INPUT_FORMATS = [
  'mp3',
  'aac',
  'm4a',
  'ogg',
  'opus',
  'flac',
  'wav',
  'aiff',
  'wma',
  'weba',
  'mka',
] as const;

export type AudioProcessorOptions = Partial<AudioLimits>;

export function createAudioProcessor(options: AudioProcessorOptions = {}): Processor {
  const limits = withOverrides(DEFAULT_AUDIO_LIMITS, options);
  return typedProcessor(audioParams, {
    name: 'audio',
    kind: 'audio',
    inputFormats: AUDIO_INPUT_FORMATS,
    outputFormats: AUDIO_OUTPUT_FORMATS,
    process: (request) => processAudio(request, limits),
  });
}

async function processAudio(
  request: ProcessRequest<ResolvedAudioParams>,
  limits: AudioLimits,
): Promise<ProcessResult> {
  request.signal.throwIfAborted();
  const { params } = request;
  const { input } = request;
  // What the file earns by its size (shared/time-budget.ts), then by the minutes it declares too.
  const deadline = new Deadline(earnedTimeMs(limits, AUDIO_TIME_EARNED, { bytes: input.size }), 'the audio');
  const bounds = {
    subject: 'audio',
    maxFramePixels: limits.maxFramePixels,
    maxDurationSeconds: limits.maxDurationSeconds,
  };
  const run: MediaRun = { deadline, signal: request.signal, bounds, ...toolScope(request) };

  const probe = await probeMedia(input.path, input.format, run);
  const audio = mainAudio(probe);
  if (audio === undefined)
    throw new UnprocessableInputError('The file has no audio stream that can be decoded.');
  checkMediaLimits(probe, limits, 'audio');
  deadline.limitTo(
    earnedTimeMs(limits, AUDIO_TIME_EARNED, { bytes: input.size, units: declaredAudioMinutes(probe) }),
  );
  const plan = planAudioOutput(params, input.format, audio);
  // The request's check sees only a format it names; an Opus input stays Opus by default.
  const rateError = checkAudioParams({ format: plan.format, sampleRate: params.sampleRate }, 'audio')[0];
  if (rateError !== undefined) throw ValidationError.field(rateError.field, rateError.message);

  const start = Math.min(params.trim?.start ?? 0, probe.durationSeconds);
  const available = Math.max(0, probe.durationSeconds - start);
  const duration =
    params.trim?.duration === undefined ? available : Math.min(params.trim.duration, available);
  if (params.trim !== undefined && !(duration > 0)) {
    throw ValidationError.field('audio.trim', 'the trim starts after the end of the audio');
  }
  const output = join(request.workDir, `output.${plan.format}`);
  const progress = request.onProgress;
  const seek = seekArgs(input.format, start);
  // The seek (for a demuxer that seeks badly) and the length are output options: each output repeats them.
  const cut = [...seek.after, ...(params.trim?.duration === undefined ? [] : ['-t', duration.toFixed(3)])];
  const inputArgs = [...seek.before, ...safeInputArgs(input.format, input.path, bounds), ...cut];
  const lossy = !plan.copy && AUDIO_FORMATS[plan.format].perChannel !== undefined;
  // The first lossy encode measures the input's loudness as it goes: a second output of the same decode.
  const encode = (gainDb: number, measureInput = false) =>
    runFfmpeg(
      [
        ...inputArgs,
        ...audioArgs(plan, params, probe),
        // Every lossy encode through the same filter graph (a 0 dB volume included): without one, ffmpeg mixes
        // channels down in integers and scales the mix against clipping; with one it mixes in float and does
        // not, so a correction measured on the first encode would land on another baseline (3 dB too loud).
        ...(lossy ? ['-af', `volume=${gainDb.toFixed(2)}dB`] : []),
        '-sn',
        '-dn',
        '-fflags',
        '+bitexact',
        '-f',
        AUDIO_FORMATS[plan.format].muxer,
        output,
        ...(measureInput ? [...cut, ...loudnessOutputArgs(run, 'input')] : []),
      ],
      run,
      {
        limits: { fileBytes: limits.maxOutputBytes },
        expectedSeconds: duration,
        ...(progress === undefined ? {} : { onProgress: (f: number) => progress(Math.floor(f * 99)) }),
      },
    );
  const written = await encode(0, lossy);
  // ffmpeg exits 0 when it could read no packet at all: an empty file is not an answer.
  if (!(written.seconds > 0)) throw new UnprocessableInputError('The audio holds no sound that can be read.');
  // A lossy encode that turned the track down (or up) is encoded again with the gain that undoes it.
  if (lossy) {
    const before = await readLoudness(run, 'input');
    const after = await measureLoudness(safeInputArgs(plan.format, output, bounds), run, 'output');
    const gain = compensatingGain(before, after);
    if (gain !== 0) await encode(gain);
  }
  const transformed =
    plan.format !== input.format ||
    params.trim !== undefined ||
    params.channels !== undefined ||
    params.sampleRate !== undefined;
  return {
    path: output,
    format: plan.format,
    transformed,
    ...(request.wantMetadata ? { metadata: describeMedia(probe) } : {}),
  };
}
