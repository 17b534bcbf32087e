/**
 * The `image` parameter namespace: its JSON Schema (part of the public API), the cross-field rules the
 * schema cannot express, and the resolved form the processor works with (defaults applied).
 */
import { type Static, Type } from 'typebox';
import type { FieldError } from '../../errors/catalog.ts';

export const COMPRESSION_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type CompressionLevel = (typeof COMPRESSION_LEVELS)[number];

/** Formats the processor writes from pixels. */
export const RASTER_OUTPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'gif', 'tiff'] as const;
export type RasterFormat = (typeof RASTER_OUTPUT_FORMATS)[number];

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

const MAX_DIMENSION = 16384;

const dimension = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DIMENSION, description }));

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
      Type.Enum([...RASTER_OUTPUT_FORMATS, 'auto'], {
        description:
          'Output format; default is the input format. `auto` keeps the smallest of WebP, AVIF and the input format.',
      }),
    ),
    resize: Type.Optional(
      Type.Object(
        {
          width: dimension('Target width in pixels.'),
          height: dimension('Target height in pixels.'),
          mode: Type.Optional(
            Type.Enum(['auto', 'fit'], {
              default: 'auto',
              description:
                '`auto` keeps the aspect ratio and fits inside the box; `fit` covers the box and crops around `gravity`.',
            }),
          ),
          gravity: Type.Optional(
            Type.Enum(GRAVITIES, {
              default: 'center',
              description:
                'Which part of the image `fit` keeps; `attention` and `entropy` pick it from content.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'Parameters for image files.' },
);

export type ImageParams = Static<typeof imageParamsSchema>;

export type ResizeRequest =
  | { mode: 'auto'; width: number | undefined; height: number | undefined }
  | { mode: 'fit'; width: number; height: number; gravity: Gravity };

export interface ResolvedImageParams {
  compression: CompressionLevel;
  /** undefined: keep the input format. */
  format: RasterFormat | 'auto' | undefined;
  resize: ResizeRequest | undefined;
}

/**
 * Rules across fields. The params may be schema-invalid (the request parser runs this rule even then
 * to report every mistake at once), so every value is type-checked before use.
 */
export function checkImageParams(params: Record<string, unknown>, namespace: string): FieldError[] {
  const resize = params.resize;
  if (resize === null || typeof resize !== 'object' || Array.isArray(resize)) return [];
  const { width, height, mode } = resize as Record<string, unknown>;
  const field = `${namespace}.resize`;
  if (mode === undefined || mode === 'auto') {
    if (width === undefined && height === undefined) {
      return [{ field, message: 'resize mode auto needs at least one of width or height' }];
    }
  } else if (mode === 'fit' && (width === undefined || height === undefined)) {
    return [{ field, message: 'resize mode fit needs both width and height' }];
  }
  return [];
}

/** Applies defaults to schema-valid params that passed `checkImageParams`. */
export function resolveImageParams(params: Record<string, unknown>): ResolvedImageParams {
  const p = params as ImageParams;
  return {
    compression: p.compression ?? 'high',
    format: p.format,
    resize: resolveResize(p.resize),
  };
}

function resolveResize(resize: ImageParams['resize']): ResizeRequest | undefined {
  if (resize === undefined) return undefined;
  if (resize.mode === 'fit') {
    if (resize.width === undefined || resize.height === undefined) {
      throw new Error('resize mode fit without both dimensions must be rejected by checkImageParams');
    }
    return { mode: 'fit', width: resize.width, height: resize.height, gravity: resize.gravity ?? 'center' };
  }
  return { mode: 'auto', width: resize.width, height: resize.height };
}
