/**
 * Rules across fields of the `video` namespace that the schema cannot say, one entry per problem with
 * the exact field path. The params may be schema-invalid (the request parser runs this even then), so
 * every value is type-checked before use.
 */
import type { FieldError } from '../../errors/catalog.ts';
import type { ParamsSpec } from '../module.ts';
import {
  CODECS_BY_FORMAT,
  type ResolvedVideoParams,
  resolvedVideoParamsSchema,
  resolveVideoParams,
  type VideoFormat,
  videoParamsSchema,
} from './params.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const isVideoFormat = (v: string): v is VideoFormat => Object.hasOwn(CODECS_BY_FORMAT, v);

/** Parameters that need decoded frames, which `lossless` (a remux) never has. */
const NEEDS_ENCODE = ['codec', 'resize', 'fps', 'rotate', 'trim'] as const;

export function checkVideoParams(params: Record<string, unknown>, namespace: string): FieldError[] {
  const errors: FieldError[] = [];
  const { format, codec, resize, compression, audio } = params;
  if (typeof format === 'string' && typeof codec === 'string' && isVideoFormat(format)) {
    const allowed: readonly string[] = CODECS_BY_FORMAT[format];
    if (!allowed.includes(codec)) {
      errors.push({
        field: `${namespace}.codec`,
        message:
          allowed.length === 0
            ? `${format} output has no codec choice`
            : `${format} carries ${allowed.join(', ')}, not ${codec}`,
      });
    }
  }
  if (isObject(resize)) {
    const { width, height, mode } = resize;
    const field = `${namespace}.resize`;
    if ((mode === undefined || mode === 'auto') && width === undefined && height === undefined) {
      errors.push({ field, message: 'resize mode auto needs at least one of width or height' });
    }
    if (mode === 'fit' && (width === undefined || height === undefined)) {
      errors.push({ field, message: 'resize mode fit needs both width and height' });
    }
  }
  if (compression === 'lossless') {
    for (const key of NEEDS_ENCODE) {
      if (params[key] !== undefined) {
        errors.push({
          field: `${namespace}.${key}`,
          message: `${key} needs a re-encode; lossless only remuxes (use medium, high or ultra)`,
        });
      }
    }
    if (typeof audio === 'number') {
      errors.push({
        field: `${namespace}.audio`,
        message: 'an audio bitrate needs a re-encode; not lossless',
      });
    }
    if (format === 'gif') {
      errors.push({ field: `${namespace}.format`, message: 'gif output is always re-encoded; not lossless' });
    }
  }
  if (format === 'gif' && audio !== undefined && audio !== 'remove') {
    errors.push({ field: `${namespace}.audio`, message: 'gif output has no audio' });
  }
  return errors;
}

/**
 * The namespace as the module's typed entry applies it (module.ts `typedProcessor`): defaults applied (inside
 * `resize` and `trim` too), checked once, then resolved.
 */
export const videoParams: ParamsSpec<typeof resolvedVideoParamsSchema, ResolvedVideoParams> = {
  schema: videoParamsSchema,
  resolved: resolvedVideoParamsSchema,
  check: checkVideoParams,
  derive: resolveVideoParams,
};
