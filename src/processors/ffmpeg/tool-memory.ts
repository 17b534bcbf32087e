/**
 * The memory limit (RLIMIT_DATA, through the tool runner) of one ffmpeg or ffprobe run, derived from the
 * declared limits instead of one figure for every run: the decoders may hold frames up to the frame limit
 * (decode-bounds.ts), and an encoder's memory grows with the size of the frames it writes. An honest file
 * within the limits fits; a decoder or filter that overran them (one that ignored `-max_pixels`, a sample
 * table or index built for a lie) fails its allocation instead of taking the host's memory. Lowering
 * PRESSO_VIDEO_MAX_FRAME_PIXELS lowers every video run's limit.
 *
 * Figures measured with Debian's ffmpeg 5.1 (peak VmData, which is what RLIMIT_DATA counts, 2 threads),
 * between 720p and 2160p, 50 frames, then given about a quarter more: see docs/video-audio.md.
 */
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { type DecodeBounds, decodePixelBound } from './decode-bounds.ts';

const MB = 1024 ** 2;

/** ffmpeg with its libraries, the demuxer and the audio codecs: 40–70 MB measured. */
const BASE_BYTES = 128 * MB;
/**
 * Decoders per pixel of the largest frame they may produce: reference frames and frame threads. dav1d at
 * 2160p measured 26 bytes a pixel, H.264 10, HEVC 17; doubled for 10-bit and 4:4:4 sources.
 */
const DECODE_BYTES_PER_PIXEL = 64;

/** What an encoder (with the filters that feed it) adds, for frames of one size. */
export interface EncoderMemory {
  baseBytes: number;
  bytesPerPixel: number;
}

/** FFV1, the quality search's lossless reference: 159 B/px measured (its packet buffer is sized for the worst frame). */
export const FFV1_MEMORY: EncoderMemory = { baseBytes: 128 * MB, bytesPerPixel: 200 };

/** Memory for a run decoding within `bounds` and, when it encodes, writing frames of `pixels` with `encoder`. */
export function ffmpegMemoryBytes(
  bounds: DecodeBounds,
  encoder?: { memory: EncoderMemory; pixels: number },
): number {
  const decode = BASE_BYTES + DECODE_BYTES_PER_PIXEL * decodePixelBound(bounds.maxFramePixels);
  if (encoder === undefined) return decode;
  return decode + encoder.memory.baseBytes + encoder.memory.bytesPerPixel * encoder.pixels;
}

/** An allocation refused by the memory limit, as libavutil (ENOMEM) and the x264/x265 encoders log it. */
const OUT_OF_MEMORY = /Cannot allocate memory|malloc of size \d{1,20} failed/;

/** The 422 for a run whose log shows an allocation failed; undefined when none did. */
export function memoryRefusal(log: string, bounds: DecodeBounds): UnprocessableInputError | undefined {
  if (!OUT_OF_MEMORY.test(log)) return undefined;
  return new UnprocessableInputError(
    `Processing the ${bounds.subject} needed more memory than its limits allow (the memory limit follows the frame size limit of ${bounds.maxFramePixels} pixels).`,
  );
}
