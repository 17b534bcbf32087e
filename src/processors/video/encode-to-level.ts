/**
 * The final encode at a CRF checked at full size against the level's targets (the search only saw a
 * proxy): the same two measures as the search, on footage scored against the source (footage.ts).
 * - A short part (up to WHOLE_CHECK_SECONDS) is encoded, and the output itself is scored, every frame; while
 *   it misses, it is encoded again at a lower CRF sized by the miss. Scoring a few seconds of output costs
 *   less than encoding the segments at full size and scoring them, which a longer part needs.
 * - A longer one has its sampled segments encoded at full size at the CRF and scored (a few seconds of
 *   footage, whatever the length), lowered likewise while they miss; then the one full encode.
 * The proxy is calibrated to land on or above the targets, so a second try is the exception. The number of
 * tries is bounded (work, not time), and at the codec's lowest CRF the best quality it gives is the answer,
 * as in the search.
 */
import type { MediaRun } from '../ffmpeg/decode-bounds.ts';
import { type FfmpegOptions, runFfmpeg } from '../ffmpeg/run-ffmpeg.ts';
import { type EncodePlan, encodeVideo } from './encode.ts';
import { CODEC_SETTINGS } from './encoders.ts';
import { type Footage, footageGraph, footageInputs, scoreEncoded, withInputs } from './footage.ts';
import type { VideoCodec } from './params.ts';
import {
  type LossyLevel,
  missSteps,
  SEGMENTS,
  type SearchInput,
  SSIM_TARGET_DB,
  SSIMULACRA2_TARGET,
  segmentFootage,
} from './quality-search.ts';

/**
 * Parts up to this long are checked on the output itself: the segments (3 × 1 s) would be a third of the
 * footage or more, encoded once more at full size and decoded twice; the output's scoring decodes it and
 * the source once (docs/video-audio.md, Benchmark).
 */
export const WHOLE_CHECK_SECONDS = 9;

/** Tries after the first when the scores miss the level. */
export const MAX_RETRIES = 2;

export interface CheckedEncode {
  crf: number;
  /** Every try's CRF and full-size scores, in the order made. */
  tries: { crf: number; db: number; ssimulacra2: number }[];
}

export async function encodeToLevel(
  plan: EncodePlan & { codec: VideoCodec },
  search: SearchInput & { level: LossyLevel },
  run: MediaRun,
  options: Pick<FfmpegOptions, 'onProgress' | 'expectedSeconds' | 'limits'>,
): Promise<CheckedEncode> {
  const targets = { db: SSIM_TARGET_DB[search.level], ssimulacra2: SSIMULACRA2_TARGET[search.level] };
  const settings = CODEC_SETTINGS[plan.codec];
  const whole = search.duration <= WHOLE_CHECK_SECONDS;
  const segments: Footage = whole
    ? { ...segmentFootage(search), windows: [{ at: search.start, length: search.duration }] }
    : segmentFootage(search);
  // SSIMULACRA 2 samples: one per 3 s of a short part (its middle frame for 3 s or less), else each
  // segment's middle frame.
  const samples = whole ? Math.min(SEGMENTS, Math.ceil(search.duration / 3)) : segments.windows.length;
  const size = { width: search.width, height: search.height, samples };
  const tries: CheckedEncode['tries'] = [];
  let crf = plan.crf;
  for (;;) {
    let scores: { db: number; ssimulacra2: number };
    if (whole) {
      // Progress is the first encode's: a second one is not a step back the user should see.
      const { onProgress: _, ...quiet } = options;
      const report = await encodeVideo({ ...plan, crf }, run, tries.length === 0 ? options : quiet);
      const output = { path: plan.output, format: plan.format };
      scores = await scoreEncoded(output, segments, { ...size, frames: report.frames }, run);
    } else {
      const encoded = `segments-${tries.length}.mkv`;
      const report = await runFfmpeg(
        [
          ...footageInputs(segments, run.bounds),
          ...['-filter_complex', footageGraph(segments, 0, 'segments'), '-map', '[segments]'],
          ...settings.args(crf),
          ...['-an', '-sn', '-dn', '-f', 'matroska', encoded],
        ],
        run,
        {
          encoder: {
            memory: withInputs(settings.memory, segments.windows.length),
            pixels: search.width * search.height,
          },
        },
      );
      scores = await scoreEncoded(
        { path: encoded, format: 'mkv' },
        segments,
        { ...size, frames: report.frames },
        run,
      );
    }
    tries.push({ crf, ...scores });
    const miss = missSteps(scores, targets);
    if (miss <= 0 || tries.length > MAX_RETRIES || crf <= settings.range[0]) break;
    crf = Math.max(settings.range[0], crf - Math.max(1, Math.ceil(miss)));
  }
  if (!whole) await encodeVideo({ ...plan, crf }, run, options);
  return { crf, tries };
}
