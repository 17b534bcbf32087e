/**
 * Rules across fields of the `pdf` namespace that the schema cannot say. The params may be
 * schema-invalid (the request parser runs this even then), so every value is checked before use.
 */
import type { FieldError } from '../../errors/catalog.ts';

export function checkPdfParams(params: Record<string, unknown>, namespace: string): FieldError[] {
  if (params.compression === 'lossless' && params.grayscale === true) {
    return [
      {
        field: `${namespace}.grayscale`,
        message: 'grayscale changes pixels: it needs a lossy compression level, not lossless',
      },
    ];
  }
  return [];
}
