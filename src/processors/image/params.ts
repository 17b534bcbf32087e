/**
 * The `image` parameter namespace: its JSON Schema (part of the public API) and the resolved form the
 * processor works with (defaults applied). Cross-field rules are in params-check.ts.
 */
import { type Static, Type } from '#typebox';
import type { ParamsSpec } from '../module.ts';
import { checkImageParams } from './params-check.ts';

export const COMPRESSION_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type CompressionLevel = (typeof COMPRESSION_LEVELS)[number];

/** Formats the processor writes from pixels with sharp. */
export const RASTER_OUTPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff'] as const;
export type RasterFormat = (typeof RASTER_OUTPUT_FORMATS)[number];

/** Formats written by other means: cjxl, our ICO writer, the SVG sanitiser (SVG input only). */
export const EXTRA_OUTPUT_FORMATS = ['jxl', 'ico', 'svg'] as const;
export type OutputFormat = RasterFormat | (typeof EXTRA_OUTPUT_FORMATS)[number];

export const GRAVITIES = [
  'center',
  'north',
  'northeast',
  'east',
  'southeast',
  'south',
  'southwest',
  'west',
  'northwest',
  'attention',
  'entropy',
] as const;
export type Gravity = (typeof GRAVITIES)[number];

export const RESIZE_MODES = ['auto', 'fit', 'exact', 'pad'] as const;
export const METADATA_MODES = ['strip', 'keep', 'copyright'] as const;
export type MetadataMode = (typeof METADATA_MODES)[number];

export const MAX_DIMENSION = 16384;
/** CSS hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa. */
export const HEX_COLOUR = '^#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$';

const dimension = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DIMENSION, description }));

const offset = (description: string) => Type.Integer({ minimum: 0, maximum: 1_000_000, description });
const length = (description: string) => Type.Integer({ minimum: 1, maximum: 1_000_000, description });

const resizeSchema = Type.Object(
  {
    width: dimension('Target width in pixels.'),
    height: dimension('Target height in pixels.'),
    mode: Type.Optional(
      Type.Enum(RESIZE_MODES, {
        default: 'auto',
        description:
          '`auto` keeps the aspect ratio and fits inside the box; `fit` covers the box and crops around ' +
          '`gravity`; `exact` stretches to the box; `pad` fits inside and fills the rest with `background`.',
      }),
    ),
    gravity: Type.Optional(
      Type.Enum(GRAVITIES, {
        default: 'center',
        description: 'Which part of the image `fit` keeps; `attention` and `entropy` pick it from content.',
      }),
    ),
    background: Type.Optional(
      Type.String({
        pattern: HEX_COLOUR,
        description:
          'Fill colour of `pad` as CSS hex (`#ffffff`, `#00000000`); default transparent when the output ' +
          'format has alpha, else white.',
      }),
    ),
    upscale: Type.Optional(Type.Boolean({ default: true, description: '`false` never enlarges the image.' })),
  },
  { additionalProperties: false },
);

export const imageParamsSchema = Type.Object(
  {
    compression: Type.Optional(
      Type.Enum(COMPRESSION_LEVELS, {
        default: 'high',
        description:
          '`medium` keeps more detail, `ultra` makes the smallest files, `lossless` never loses pixel data.',
      }),
    ),
    format: Type.Optional(
      Type.Enum([...RASTER_OUTPUT_FORMATS, ...EXTRA_OUTPUT_FORMATS, 'auto'], {
        description:
          'Output format; default is the input format. `auto` keeps the smallest of WebP, AVIF and the input ' +
          'format. `jxl` is JPEG XL (lossless JPEG recompression for JPEG input at `lossless`), `ico` an icon ' +
          'with the standard sizes up to 256, `svg` only from SVG input.',
      }),
    ),
    resize: Type.Optional(resizeSchema),
    crop: Type.Optional(
      Type.Object(
        {
          x: offset('Left edge in pixels of the oriented image.'),
          y: offset('Top edge in pixels of the oriented image.'),
          width: length('Width of the region.'),
          height: length('Height of the region.'),
        },
        {
          additionalProperties: false,
          description: 'Region to keep, applied after orientation and before rotate, flip and resize.',
        },
      ),
    ),
    rotate: Type.Optional(
      Type.Enum([90, 180, 270], { description: 'Clockwise rotation in degrees, after the crop.' }),
    ),
    flip: Type.Optional(Type.Boolean({ default: false, description: 'Mirror top to bottom.' })),
    flop: Type.Optional(Type.Boolean({ default: false, description: 'Mirror left to right.' })),
    metadata: Type.Optional(
      Type.Enum(METADATA_MODES, {
        default: 'strip',
        description:
          '`strip` removes EXIF/XMP/IPTC and converts colour to sRGB; `keep` keeps them and the ICC profile; ' +
          '`copyright` keeps only copyright and creator. Orientation is always applied to the pixels.',
      }),
    ),
    page: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10_000,
        description:
          'Page of a multi-page TIFF or entry of an ICO to use (0-based); default first page / largest icon.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Parameters for image files.' },
);

export type ImageParams = Static<typeof imageParamsSchema>;

export type ResizeRequest =
  | { mode: 'auto'; width: number | undefined; height: number | undefined; upscale: boolean }
  | { mode: 'fit'; width: number; height: number; gravity: Gravity; upscale: boolean }
  | { mode: 'exact'; width: number; height: number; upscale: boolean }
  | { mode: 'pad'; width: number; height: number; background: string | undefined; upscale: boolean };

export interface CropRequest {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GeometryRequest {
  crop: CropRequest | undefined;
  rotate: 0 | 90 | 180 | 270;
  flip: boolean;
  flop: boolean;
  resize: ResizeRequest | undefined;
}

export interface ResolvedImageParams extends GeometryRequest {
  compression: CompressionLevel;
  /** undefined: keep the input format. */
  format: OutputFormat | 'auto' | undefined;
  metadata: MetadataMode;
  page: number | undefined;
}

/** `resize` once its defaults are applied: `mode`, `gravity` and `upscale` always set. */
const resolvedResizeSchema = Type.Object(
  {
    ...resizeSchema.properties,
    ...Type.Required(Type.Pick(resizeSchema, ['mode', 'gravity', 'upscale'])).properties,
  },
  { additionalProperties: false },
);

/** The schema with every field that has a default required, in `resize` too: what the processor receives. */
const resolvedImageParamsSchema = Type.Object(
  {
    ...imageParamsSchema.properties,
    ...Type.Required(Type.Pick(imageParamsSchema, ['compression', 'flip', 'flop', 'metadata'])).properties,
    resize: Type.Optional(resolvedResizeSchema),
  },
  { additionalProperties: false },
);

type DefaultedImageParams = Static<typeof resolvedImageParamsSchema>;

/**
 * The processor's form of params with the schema's defaults applied that passed `checkImageParams`. `rotate`
 * has no default (the API refuses 0): its absence is no turn.
 */
export function resolveImageParams(p: DefaultedImageParams): ResolvedImageParams {
  return {
    compression: p.compression,
    format: p.format,
    resize: resolveResize(p.resize),
    crop: p.crop,
    rotate: p.rotate ?? 0,
    flip: p.flip,
    flop: p.flop,
    metadata: p.metadata,
    page: p.page,
  };
}

function resolveResize(resize: DefaultedImageParams['resize']): ResizeRequest | undefined {
  if (resize === undefined) return undefined;
  const { mode, upscale } = resize;
  if (mode === 'auto') return { mode, width: resize.width, height: resize.height, upscale };
  const { width, height } = resize;
  if (width === undefined || height === undefined) {
    throw new Error(`resize mode ${mode} without both dimensions must be rejected by checkImageParams`);
  }
  if (mode === 'fit') return { mode, width, height, gravity: resize.gravity, upscale };
  if (mode === 'pad') return { mode, width, height, background: resize.background, upscale };
  return { mode, width, height, upscale };
}

/**
 * The namespace as the module's typed entry applies it (module.ts `typedProcessor`): defaults applied (inside
 * `resize` too), checked once, then resolved.
 */
export const imageParams: ParamsSpec<typeof resolvedImageParamsSchema, ResolvedImageParams> = {
  schema: imageParamsSchema,
  resolved: resolvedImageParamsSchema,
  check: checkImageParams,
  derive: resolveImageParams,
};
