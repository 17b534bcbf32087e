/**
 * The image processor's limits, declared once: the typed value (`ImageLimits`), its defaults and the
 * `PRESSO_IMAGE_*` / `PRESSO_SVG_*` variables that set them.
 */
import { bytes, duration, int, type Loaded, section } from '../../config/env.ts';
import { ConfigError } from '../../errors/catalog.ts';
import { type EarnedTime, timeFloor } from '../shared/time-budget.ts';
import { largestImageShare } from './limits.ts';

/**
 * What an image earns on top of its floor (shared/time-budget.ts): 60 s per MiB, or 10 s per megapixel
 * decoded (summed over an animation's frames), whichever is less. A 12 MP photo of a few MiB earns the
 * whole budget; a 48 KB PNG that decodes to 49 MP earns 3 s.
 */
export const IMAGE_TIME_EARNED: EarnedTime = { msPerMiB: 60_000, msPerUnit: 10_000 };

export const imageConfig = section(
  {
    /** Decoded pixels of one job's input, summed over the frames of an animation. */
    maxPixels: int('PRESSO_IMAGE_MAX_PIXELS', {
      default: 50_000_000,
      min: 1,
      doc: 'Largest image accepted, in pixels summed over the frames of an animation',
    }),
    maxFrames: int('PRESSO_IMAGE_MAX_FRAMES', {
      default: 1000,
      min: 1,
      doc: 'Most frames accepted in an animated image',
    }),
    /** Wall time one image may take in all (sharp pipelines and external tools together): a safety stop only. */
    timeBudgetMs: duration('PRESSO_IMAGE_TIME_BUDGET', {
      default: 120_000,
      doc: 'Most time one image may take to process before it is refused; what it gets is earned from PRESSO_IMAGE_TIME_FLOOR up',
    }),
    timeFloorMs: timeFloor('IMAGE', 'image', 20_000, 'each MiB and each decoded megapixel it declares'),
    svgMaxBytes: bytes('PRESSO_SVG_MAX_BYTES', { default: 10 * 1024 * 1024, doc: 'Largest SVG accepted' }),
    svgMaxDepth: int('PRESSO_SVG_MAX_DEPTH', {
      default: 256,
      min: 1,
      max: 100_000,
      doc: 'Deepest element nesting accepted in an SVG',
    }),
    // Icons, logos and charts have far fewer. svgo's multipass took 6 s for 10,000 and 100 s for 49,000
    // (one busy core); the time budget kills the child process of anything slower.
    svgMaxElements: int('PRESSO_SVG_MAX_ELEMENTS', {
      default: 50_000,
      min: 1,
      doc: 'Most elements accepted in an SVG',
    }),
    /**
     * Bytes of decoded image data and metric scratch that all image jobs of this process may hold at once
     * (see `jobShare`); at least the decoded copies of the largest accepted image (`largestImageShare`).
     */
    memoryInFlight: bytes('PRESSO_IMAGE_MEMORY_IN_FLIGHT', {
      default: 400_000_000,
      doc:
        'Image memory all image jobs of a process may hold at once: decoded pixels × channels × bytes per ' +
        'sample × 2 working copies, plus 30 bytes per pixel the quality check scores (at most 2.4 MP) ' +
        'for lossy outputs; larger jobs take turns. Must hold PRESSO_IMAGE_MAX_PIXELS as 8-bit RGBA ' +
        '(8 bytes per pixel)',
    }),
    /**
     * An output whose encoder (and whole-output score) would hold more than this, estimated from its pixels
     * (encoder-memory.ts), is encoded and scored in a child process (encode-process.ts), so the service
     * stays under its 512 MB target whatever the image: 512 MB less the ~190 MB the server holds while a
     * large image's search runs.
     */
    encodeInProcessBytes: bytes('PRESSO_IMAGE_ENCODE_IN_PROCESS', {
      default: 320_000_000,
      doc:
        'Encoder working set above which a JPEG, WebP, AVIF, GIF or TIFF output is encoded (and its quality ' +
        'checked) in a sandboxed child process instead of the service process, estimated from its pixels ' +
        'and format; 0 sends all of them there',
    }),
    /** Node starts under about 0.8 GiB of RLIMIT_DATA; an AVIF of 50 MP takes ~1 GB more (libheif/aom). */
    encodeChildMemory: bytes('PRESSO_IMAGE_ENCODE_CHILD_MEMORY', {
      default: 3 * 1024 ** 3,
      doc: 'Memory limit (RLIMIT_DATA) of that child process; an encode that needs more fails with a 422',
    }),
  },
  (v) => {
    if (v.memoryInFlight < largestImageShare(v)) {
      throw new ConfigError(
        `PRESSO_IMAGE_MEMORY_IN_FLIGHT (${v.memoryInFlight} bytes) must hold the largest accepted ` +
          `image: PRESSO_IMAGE_MAX_PIXELS (${v.maxPixels}) × 8 bytes = ${largestImageShare(v)} bytes`,
      );
    }
    return v;
  },
);

export type ImageLimits = Loaded<typeof imageConfig>;

export const DEFAULT_IMAGE_LIMITS: ImageLimits = imageConfig.load({});
