/**
 * What one ffmpeg or ffprobe run may decode, whatever the file's header says. The probe checks the limits
 * against the header and the first frames, and the rest of a file need not agree: an AVI that switches
 * from 64×48 to 16000×16000 frames was decoded (3.7 GB), a Matroska that claims 1 s and holds 5 h was
 * remuxed whole. So every input of every run is opened with
 * - `-max_pixels`: each decoder refuses a frame over the frame limit, on every size change and every
 *   buffer it asks for (libavcodec's ff_set_dimensions and ff_get_buffer; dav1d has its own check);
 * - `-t`: no run reads more than the duration limit (and 10 s) of an input, so a lying header cannot
 *   make a run longer than the limit allows;
 * - `-threads 2`: a decoder's frame threads hold frames each, so a fixed count keeps memory independent of
 *   the host's cores and within what tool-memory.ts grants.
 * ffmpeg skips a frame its decoder refused and exits 0; its log says so, and the output's end time (from
 * `-progress`) tells whether the input ran past the limit. Either is a 422 that names the limit.
 */
import { UnprocessableInputError } from '../../errors/catalog.ts';
import type { ToolRun } from '../shared/run-tool.ts';

export interface DecodeBounds {
  /** What the messages call the file: "video", "audio". */
  subject: string;
  /** Largest picture any decoder may produce, in pixels. */
  maxFramePixels: number;
  /** Longest input accepted, in seconds. */
  maxDurationSeconds: number;
}

/** Decoder threads: fixed, like the encoders' (run-ffmpeg.ts), so memory does not depend on the host. */
export const DECODER_THREADS = 2;

/**
 * libavcodec checks a frame's buffer with its width rounded up to the stride alignment (64 pixels with
 * AVX-512), so a frame of exactly the limit failed when its width was not a multiple of 64 (1366×768 is
 * checked as 1408×768): 64 pixels a line for frames of up to 16384 lines are allowed on top of the limit
 * (a megapixel, 1.5 MB of 8-bit 4:2:0).
 */
const STRIDE_SLACK_PIXELS = 64 * 16_384;

export function decodePixelBound(maxFramePixels: number): number {
  return Math.floor(maxFramePixels) + STRIDE_SLACK_PIXELS;
}

/**
 * An input is read to this much past the limit, so that the output shows it went past: the end time ffmpeg
 * reports is the last packet's decoding time, which trails the picture by the encoder's reordering delay
 * (two frames, 0.4 s at 5 frames a second) and by a frame's interval.
 */
const READ_PAST_LIMIT_SECONDS = 10;
/** Output end times within this of the limit are the limit itself (audio frame padding, time base rounding). */
const END_TOLERANCE_SECONDS = 0.5;

/** Decoder options for one input, before its `-i`, in ffmpeg and ffprobe alike. */
export function decoderArgs(bounds: DecodeBounds): string[] {
  return [
    '-threads',
    String(DECODER_THREADS),
    '-max_pixels',
    String(decodePixelBound(bounds.maxFramePixels)),
  ];
}

/** ffmpeg's input `-t`: how much of an input one run reads at most (ffprobe has no such option). */
export function readLimitArgs(bounds: DecodeBounds): string[] {
  return ['-t', (bounds.maxDurationSeconds + READ_PAST_LIMIT_SECONDS).toFixed(3)];
}

/**
 * A decoder refusing a frame over `-max_pixels`: libavutil's check (every libavcodec decoder) or dav1d's own
 * (`frame_size_limit`, which ffmpeg sets from it for AV1).
 */
const OVER_MAX_PIXELS =
  /(?:Picture|Frame) size (\d{1,10})x(\d{1,10}) exceeds (?:specified max pixel count|limit)/;

/** The 422 for a run whose log shows a decoder refused a frame over the limit; undefined when none did. */
export function frameLimitRefusal(log: string, bounds: DecodeBounds): UnprocessableInputError | undefined {
  const match = OVER_MAX_PIXELS.exec(log);
  if (match === null) return undefined;
  return new UnprocessableInputError(
    `The ${bounds.subject} holds frames of ${match[1]}×${match[2]}, past the frame size limit of ${bounds.maxFramePixels} pixels (whatever its header says).`,
  );
}

/** The 422 for a run whose output ran past the duration limit; undefined when it did not. */
export function durationRefusal(
  outputSeconds: number,
  bounds: DecodeBounds,
): UnprocessableInputError | undefined {
  if (!(outputSeconds > bounds.maxDurationSeconds + END_TOLERANCE_SECONDS)) return undefined;
  return new UnprocessableInputError(
    `The ${bounds.subject} runs past the duration limit of ${bounds.maxDurationSeconds} s (whatever its header says).`,
  );
}

/** A tool run for one media job: the job's deadline, signal and folder, and the bounds of what it decodes. */
export interface MediaRun extends ToolRun {
  bounds: DecodeBounds;
}
