/**
 * Rules across fields of the `image` namespace that the schema cannot say, one entry per problem with
 * the exact field path. The params may be schema-invalid (the request parser runs this even then to
 * report every mistake at once), so every value is type-checked before use.
 */
import type { FieldError } from '../../errors/catalog.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

export function checkImageParams(params: Record<string, unknown>, namespace: string): FieldError[] {
  const errors: FieldError[] = [];
  const resize = params.resize;
  if (isObject(resize)) {
    const { width, height, mode, gravity, background } = resize;
    const field = `${namespace}.resize`;
    if (mode === undefined || mode === 'auto') {
      if (width === undefined && height === undefined) {
        errors.push({ field, message: 'resize mode auto needs at least one of width or height' });
      }
    } else if (
      (mode === 'fit' || mode === 'exact' || mode === 'pad') &&
      (width === undefined || height === undefined)
    ) {
      errors.push({ field, message: `resize mode ${mode} needs both width and height` });
    }
    if (gravity !== undefined && mode !== 'fit') {
      errors.push({ field: `${field}.gravity`, message: 'gravity applies only to resize mode fit' });
    }
    if (background !== undefined && mode !== 'pad') {
      errors.push({ field: `${field}.background`, message: 'background applies only to resize mode pad' });
    }
  }
  const geometry = ['crop', 'rotate', 'flip', 'flop', 'resize'].filter(
    (key) => params[key] !== undefined && params[key] !== false,
  );
  if (params.format === 'svg' && geometry.length > 0) {
    errors.push({
      field: `${namespace}.format`,
      message: `svg output keeps the vector as it is; ${geometry.join(', ')} need a raster format`,
    });
  }
  return errors;
}
