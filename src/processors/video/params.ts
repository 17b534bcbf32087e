/**
 * The `video` parameter namespace: its JSON Schema (part of the public API) and the resolved form the
 * processor works with. Cross-field rules (container/codec pairs, what `lossless` allows) are in
 * params-check.ts.
 */
import { type Static, Type } from '#typebox';
import { resolvedTrimSchema, type Trim, trimSchema } from '../ffmpeg/trim-schema.ts';

export const VIDEO_COMPRESSION_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type VideoCompression = (typeof VIDEO_COMPRESSION_LEVELS)[number];
export const VIDEO_OUTPUT_FORMATS = ['mp4', 'webm', 'mov', 'mkv', 'gif'] as const;
export type VideoFormat = (typeof VIDEO_OUTPUT_FORMATS)[number];
export const VIDEO_CODECS = ['h264', 'h265', 'vp9', 'av1'] as const;
export type VideoCodec = (typeof VIDEO_CODECS)[number];

/** Which codecs each container carries here (what browsers and players expect of it). */
export const CODECS_BY_FORMAT: Readonly<Record<VideoFormat, readonly VideoCodec[]>> = {
  mp4: ['h264', 'h265', 'av1'],
  mov: ['h264', 'h265'],
  webm: ['vp9', 'av1'],
  mkv: ['h264', 'h265', 'vp9', 'av1'],
  gif: [],
};

export const MAX_VIDEO_DIMENSION = 8192;
const dimension = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 2, maximum: MAX_VIDEO_DIMENSION, description }));

const resizeSchema = Type.Object(
  {
    width: dimension('Target width in pixels (made even).'),
    height: dimension('Target height in pixels (made even).'),
    mode: Type.Optional(
      Type.Enum(['auto', 'fit'], {
        default: 'auto',
        description:
          '`auto` keeps the aspect ratio and fits inside the box; `fit` covers the box and crops the centre.',
      }),
    ),
    upscale: Type.Optional(Type.Boolean({ default: true, description: '`false` never enlarges the video.' })),
  },
  { additionalProperties: false },
);

export const videoParamsSchema = Type.Object(
  {
    compression: Type.Optional(
      Type.Enum(VIDEO_COMPRESSION_LEVELS, {
        default: 'high',
        description:
          'Perceptual target of the encode: `medium` keeps more detail, `ultra` makes the smallest files; ' +
          'the quantiser is searched per video. `lossless` never re-encodes: a remux with `+faststart` ' +
          'that drops subtitle, data and attachment streams.',
      }),
    ),
    format: Type.Optional(
      Type.Enum(VIDEO_OUTPUT_FORMATS, {
        description:
          'Output container; default: the input container when it is mp4, mov, webm or mkv, else mp4. ' +
          '`gif` is an animated GIF without audio.',
      }),
    ),
    codec: Type.Optional(
      Type.Enum(VIDEO_CODECS, {
        description:
          'Video codec; default h264 (High, yuv420p) in mp4, mov and mkv, av1 in webm. Pairs: mp4 h264/h265/av1, ' +
          'mov h264/h265, webm vp9/av1, mkv any; not with gif.',
      }),
    ),
    resize: Type.Optional(resizeSchema),
    fps: Type.Optional(
      Type.Number({ minimum: 1, maximum: 240, description: 'Output frame rate (constant); default: kept.' }),
    ),
    audio: Type.Optional(
      Type.Union(
        [
          Type.Enum(['keep', 'remove']),
          Type.Integer({ minimum: 16, maximum: 512, description: 'Audio bitrate in kbit/s.' }),
        ],
        {
          default: 'keep',
          description:
            '`keep` the first audio track (copied when the container allows, else AAC 128k / Opus 96k), ' +
            '`remove` it, or re-encode it at this many kbit/s.',
        },
      ),
    ),
    trim: Type.Optional(trimSchema),
    rotate: Type.Optional(
      Type.Enum([90, 180, 270], {
        description: 'Clockwise rotation in degrees, on top of the rotation the file asks players to apply.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Parameters for video files (extension of this server).' },
);

export type VideoParams = Static<typeof videoParamsSchema>;

/** `resize` once its defaults are applied: `mode` and `upscale` always set. */
const resolvedResizeSchema = Type.Object(
  { ...resizeSchema.properties, ...Type.Required(Type.Pick(resizeSchema, ['mode', 'upscale'])).properties },
  { additionalProperties: false },
);

export type VideoResize = Static<typeof resolvedResizeSchema>;

export interface ResolvedVideoParams {
  compression: VideoCompression;
  /** Explicitly asked for; undefined = the default container for the input. */
  format: VideoFormat | undefined;
  codec: VideoCodec | undefined;
  resize: VideoResize | undefined;
  fps: number | undefined;
  audio: 'keep' | 'remove' | number;
  trim: Trim | undefined;
  rotate: 0 | 90 | 180 | 270;
}

/** The schema with every field that has a default required, in `resize` and `trim` too: what the processor receives. */
export const resolvedVideoParamsSchema = Type.Object(
  {
    ...videoParamsSchema.properties,
    ...Type.Required(Type.Pick(videoParamsSchema, ['compression', 'audio'])).properties,
    resize: Type.Optional(resolvedResizeSchema),
    trim: Type.Optional(resolvedTrimSchema),
  },
  { additionalProperties: false },
);

/**
 * The processor's form of params with the schema's defaults applied. `rotate` has no default (the API refuses
 * 0): its absence is no turn.
 */
export function resolveVideoParams(p: Static<typeof resolvedVideoParamsSchema>): ResolvedVideoParams {
  return {
    compression: p.compression,
    format: p.format,
    codec: p.codec,
    resize: p.resize,
    fps: p.fps,
    audio: p.audio,
    trim: p.trim,
    rotate: p.rotate ?? 0,
  };
}

/** The request changes the picture or the timeline (so the never-larger rule does not apply). */
export function changesContent(p: ResolvedVideoParams): boolean {
  return (
    p.resize !== undefined ||
    p.fps !== undefined ||
    p.trim !== undefined ||
    p.rotate !== 0 ||
    p.audio === 'remove' ||
    typeof p.audio === 'number'
  );
}
