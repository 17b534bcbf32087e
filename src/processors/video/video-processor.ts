/**
 * The video processor: probe (demuxer forced, `file` protocol only), limits, then either a remux
 * (`lossless`) or a re-encode at the level's perceptual target, the quantiser searched per video on
 * sampled segments. Encodes take turns through an admission budget so one 4K job cannot starve the
 * images; a job that outlives its time budget fails (422) and is never retried.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UnprocessableInputError, ValidationError } from '../../errors/catalog.ts';
import { formatInfo } from '../../media/formats.ts';
import type { MediaRun } from '../ffmpeg/decode-bounds.ts';
import { describeMedia } from '../ffmpeg/describe-media.ts';
import { declaredVideoMegapixels } from '../ffmpeg/media-budget.ts';
import { checkMediaLimits } from '../ffmpeg/media-limits.ts';
import { mainAudio, mainVideo } from '../ffmpeg/probe.ts';
import { ProbeMemo } from '../ffmpeg/probe-memo.ts';
import { typedProcessor } from '../module.ts';
import type { DetectedInput, Processor, ProcessRequest, ProcessResult } from '../processor.ts';
import { AdmissionBudget } from '../shared/admission-budget.ts';
import { Deadline } from '../shared/deadline.ts';
import { withOverrides } from '../shared/limits.ts';
import { toolScope } from '../shared/run-tool.ts';
import { earnedTimeMs } from '../shared/time-budget.ts';
import { DEFAULT_VIDEO_LIMITS, VIDEO_TIME_EARNED, type VideoLimits, videoDecodeBounds } from './config.ts';
import { type EncodePlan, encodeVideo, planAudio } from './encode.ts';
import { encodeToLevel } from './encode-to-level.ts';
import { CODEC_SETTINGS, CONTAINERS, defaultVideoFormat } from './encoders.ts';
import { planFrames } from './geometry.ts';
import { changesContent, type ResolvedVideoParams, VIDEO_OUTPUT_FORMATS } from './params.ts';
import { videoParams } from './params-check.ts';
import { NoVideoFramesError, searchCrf } from './quality-search.ts';
import { remuxFormat, remuxRefusal, remuxVideo } from './remux.ts';

export const VIDEO_INPUT_FORMATS = [
  'mp4',
  'mov',
  'webm',
  'mkv',
  'avi',
  'mpeg',
  'mpegts',
  'ogv',
  'flv',
  '3gp',
  'wmv',
] as const;

export type VideoProcessorOptions = Partial<VideoLimits>;

/** Share of the progress bar the quality search takes; the final encode fills the rest. */
const SEARCH_SHARE = 20;

export function createVideoProcessor(
  options: VideoProcessorOptions = {},
  budget?: AdmissionBudget,
): Processor {
  const limits = withOverrides(DEFAULT_VIDEO_LIMITS, options);
  const encodes = budget ?? new AdmissionBudget(limits.encodesInFlight);
  const probes = new ProbeMemo();
  return typedProcessor(videoParams, {
    name: 'video',
    kind: 'video',
    inputFormats: VIDEO_INPUT_FORMATS,
    outputFormats: VIDEO_OUTPUT_FORMATS,
    refineInput: (input, context) => audioOnly(input, context, limits, probes),
    process: (request) => processVideo(request, limits, encodes, probes),
  });
}

/** The audio format an audio-only file of each video container is (the same bytes, named for what they hold). */
const AUDIO_ONLY_FORMAT: Readonly<Record<string, string>> = {
  mp4: 'm4a',
  mov: 'm4a',
  '3gp': 'm4a',
  webm: 'weba',
  mkv: 'mka',
};

/**
 * A container the magic bytes call video is audio when ffprobe finds no moving picture in it but an audio
 * stream (cover art is not video): the `isom` brand that ffmpeg and many podcast tools write for an .m4a is
 * sniffed as MP4 video, as is Opus in WebM.
 */
async function audioOnly(
  input: DetectedInput,
  context: { workDir: string; jobDir?: string; signal: AbortSignal },
  limits: VideoLimits,
  probes: ProbeMemo,
): Promise<DetectedInput> {
  const audioFormat = AUDIO_ONLY_FORMAT[input.format];
  if (audioFormat === undefined) return input;
  const run: MediaRun = {
    deadline: new Deadline(limits.timeBudgetMs, 'the video'),
    bounds: videoDecodeBounds(limits),
    signal: context.signal,
    ...toolScope({ ...context, input }),
  };
  const probe = await probes.probe(input.path, input.format, run);
  if (mainVideo(probe) !== undefined || mainAudio(probe) === undefined) return input;
  const info = formatInfo(audioFormat);
  return info === undefined ? input : { ...input, kind: info.kind, format: audioFormat, mime: info.mime };
}

async function processVideo(
  request: ProcessRequest<ResolvedVideoParams>,
  limits: VideoLimits,
  encodes: AdmissionBudget,
  probes: ProbeMemo,
): Promise<ProcessResult> {
  request.signal.throwIfAborted();
  const { params } = request;
  const { input } = request;
  const toolLimits = { fileBytes: limits.maxOutputBytes };
  const bounds = videoDecodeBounds(limits);
  const probeRun: MediaRun = {
    deadline: new Deadline(limits.timeBudgetMs, 'the video'),
    signal: request.signal,
    ...toolScope(request),
    bounds,
  };
  const probe = await probes.take(input.path, input.format, probeRun);
  const video = mainVideo(probe);
  if (video === undefined || !(video.width && video.height)) {
    throw new UnprocessableInputError('The file has no video stream that can be decoded.');
  }
  checkMediaLimits(probe, limits, 'video');
  const metadata = request.wantMetadata ? describeMedia(probe) : undefined;
  const withMetadata = (result: ProcessResult): ProcessResult =>
    metadata === undefined ? result : { ...result, metadata };

  const release = await encodes.acquire(1, request.signal);
  // The time budget starts once the job's turn comes: waiting behind another encode is not its fault. It is
  // what the file earns by its size and the frames it declares (shared/time-budget.ts), not the whole budget.
  const earned = { bytes: input.size, units: declaredVideoMegapixels(probe) };
  const run: MediaRun = {
    deadline: new Deadline(earnedTimeMs(limits, VIDEO_TIME_EARNED, earned), 'the video'),
    signal: request.signal,
    ...toolScope(request),
    bounds,
  };
  try {
    if (params.compression === 'lossless') {
      const format = remuxFormat(input.format, params.format);
      const refusal = remuxRefusal(probe, format);
      if (refusal !== undefined) throw ValidationError.field('video.format', refusal);
      const output = join(request.workDir, `output.${format}`);
      await remuxVideo(input, format, output, run, toolLimits);
      return withMetadata({ path: output, format, transformed: format !== input.format });
    }

    const format = params.format ?? defaultVideoFormat(input.format);
    const codec = format === 'gif' ? undefined : (params.codec ?? CONTAINERS[format].defaultCodec);
    const start = Math.min(params.trim?.start ?? 0, probe.durationSeconds);
    const available = Math.max(0, probe.durationSeconds - start);
    const duration =
      params.trim?.duration === undefined ? available : Math.min(params.trim.duration, available);
    // The audio can outlast the picture: the search scores only the part that has frames.
    const videoEnd = Math.min(probe.durationSeconds, video.endSeconds ?? Number.POSITIVE_INFINITY);
    if (!(duration > 0 && videoEnd > start)) {
      throw ValidationError.field(
        'video.trim',
        `the trim starts after the video ends (at ${videoEnd.toFixed(2)} s)`,
      );
    }
    const frames = planFrames(video, params);
    checkOutputFrame(frames, limits.maxFramePixels);
    if (format === 'gif' && params.fps === undefined && (video.fps ?? 0) > 15) {
      frames.filters.push('fps=15'); // GIF frame delays are in 1/100 s; 15 fps keeps files sane
    }
    const progress = request.onProgress;
    let crf = 0;
    const searchInput = {
      ...{ path: input.path, format: input.format, start, duration: Math.min(duration, videoEnd - start) },
      ...{
        filters: [...frames.filters, 'format=yuv420p'].join(','),
        width: frames.width,
        height: frames.height,
      },
    };
    if (codec !== undefined) {
      const search = await searchCrf({ ...searchInput, codec, level: params.compression }, run).catch(
        (error: unknown) => {
          if (!(error instanceof NoVideoFramesError)) throw error;
          if (params.trim === undefined) throw new UnprocessableInputError('The video track holds no frame.');
          throw ValidationError.field('video.trim', 'the trimmed part holds no video frame');
        },
      );
      crf = search.crf;
    }
    progress?.(SEARCH_SHARE);
    const output = join(request.workDir, `output.${format}`);
    const trimmed = params.trim !== undefined;
    const plan: EncodePlan = {
      inputPath: input.path,
      inputFormat: input.format,
      start,
      duration: trimmed ? duration : undefined,
      filters: frames.filters,
      outputPixels: frames.width * frames.height,
      format,
      codec,
      crf,
      audio: planAudio(params.audio, format, mainAudio(probe), trimmed),
      output,
    };
    const encodeOptions = {
      limits: toolLimits,
      expectedSeconds: duration,
      ...(progress === undefined
        ? {}
        : { onProgress: (f: number) => progress(SEARCH_SHARE + Math.floor(f * (100 - SEARCH_SHARE - 1))) }),
    };
    if (codec === undefined) await encodeVideo(plan, run, encodeOptions);
    else
      await encodeToLevel(
        { ...plan, codec },
        { ...searchInput, codec, level: params.compression },
        run,
        encodeOptions,
      );
    const transformed = changesContent(params) || format !== input.format || frames.toneMapped;
    if (!transformed && codec !== undefined) {
      return withMetadata(await neverLarger(output, format, input, video.codec, codec, run, toolLimits));
    }
    return withMetadata({ path: output, format, transformed });
  } finally {
    release();
  }
}

/**
 * A well-compressed input can come out larger after a re-encode. Then, when the input already has the
 * asked codec, a remux (faststart, junk streams dropped) is the answer; the job's never-larger step
 * returns the input itself when even that is not smaller.
 */
async function neverLarger(
  encoded: string,
  format: (typeof VIDEO_OUTPUT_FORMATS)[number],
  input: { path: string; format: string; size: number },
  inputCodec: string,
  codec: keyof typeof CODEC_SETTINGS,
  run: MediaRun,
  toolLimits: { fileBytes: number },
): Promise<ProcessResult> {
  const size = (await stat(encoded)).size;
  if (size < input.size || inputCodec !== CODEC_SETTINGS[codec].probeName) {
    return { path: encoded, format, transformed: false };
  }
  const remuxed = join(run.workDir, `remux.${format}`);
  await remuxVideo(input, format, remuxed, run, toolLimits);
  return { path: remuxed, format, transformed: false };
}

/** Largest side any of the encoders takes (H.265 and AV1 stop at 16384). */
const MAX_OUTPUT_SIDE = 16_384;

/** An upscale past the frame limit is refused before any encoder tries to allocate it. */
function checkOutputFrame(frames: { width: number; height: number }, maxPixels: number): void {
  const { width, height } = frames;
  if (width * height <= maxPixels && Math.max(width, height) <= MAX_OUTPUT_SIDE) return;
  throw ValidationError.field(
    'video.resize',
    `the output frames would be ${width}×${height}; at most ${maxPixels} pixels and ${MAX_OUTPUT_SIDE} per side`,
  );
}
