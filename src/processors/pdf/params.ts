/**
 * The `pdf` parameter namespace: its JSON Schema (part of the public API) and the resolved form the
 * processor works with (defaults applied).
 */
import { Type } from 'typebox';

export const PDF_COMPRESSION_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type PdfCompression = (typeof PDF_COMPRESSION_LEVELS)[number];

export const pdfParamsSchema = Type.Object(
  {
    compression: Type.Optional(
      Type.Enum(PDF_COMPRESSION_LEVELS, {
        default: 'high',
        description:
          'Lossy levels recompress and downsample images to a perceptual target on the rendered pages ' +
          '(`medium` keeps most detail, `ultra` makes the smallest files); `lossless` changes no pixel ' +
          '(structure optimisation only). Text always stays text.',
      }),
    ),
    linearize: Type.Optional(
      Type.Boolean({ default: true, description: 'Linearise the output for fast web view.' }),
    ),
    grayscale: Type.Optional(
      Type.Boolean({ default: false, description: 'Convert every page to shades of grey.' }),
    ),
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: 'Password of an encrypted input; the output is written without encryption.',
        // A secret: sealed while the job runs, never stored in its parameters (jobs/job-secrets.ts).
        writeOnly: true,
      }),
    ),
    format: Type.Optional(
      Type.Enum(['pdf', 'pdfa'], {
        default: 'pdf',
        description: '`pdfa` writes PDF/A-2b (archival: fonts embedded, an sRGB output intent).',
      }),
    ),
  },
  { additionalProperties: false },
);

export interface PdfParams {
  compression: PdfCompression;
  linearize: boolean;
  grayscale: boolean;
  password: string | undefined;
  pdfa: boolean;
}

export function resolvePdfParams(params: Record<string, unknown>): PdfParams {
  return {
    compression: (params.compression as PdfCompression | undefined) ?? 'high',
    linearize: (params.linearize as boolean | undefined) ?? true,
    grayscale: (params.grayscale as boolean | undefined) ?? false,
    password: params.password as string | undefined,
    pdfa: params.format === 'pdfa',
  };
}
