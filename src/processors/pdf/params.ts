/**
 * The `pdf` parameter namespace: its JSON Schema (part of the public API, defaults included) and the typed form
 * the processor works with once the module's entry applied them (module.ts `typedProcessor`).
 */
import { Type } from '#typebox';
import type { ParamsSpec } from '../module.ts';
import { checkPdfParams } from './params-check.ts';

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

/** The schema with every field that has a default required: what the processor receives once they are applied. */
const resolvedPdfParamsSchema = Type.Object(
  {
    ...pdfParamsSchema.properties,
    ...Type.Required(Type.Pick(pdfParamsSchema, ['compression', 'linearize', 'grayscale', 'format']))
      .properties,
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

/** The namespace as the module's typed entry applies it (module.ts `typedProcessor`). */
export const pdfParams: ParamsSpec<typeof resolvedPdfParamsSchema, PdfParams> = {
  schema: pdfParamsSchema,
  resolved: resolvedPdfParamsSchema,
  check: checkPdfParams,
  derive: ({ compression, linearize, grayscale, password, format }) => ({
    compression,
    linearize,
    grayscale,
    password,
    pdfa: format === 'pdfa',
  }),
};
