/** The `document` parameter namespace: its JSON Schema (part of the public API) and resolved form. */
import { Type } from 'typebox';

export const DOCUMENT_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type DocumentLevel = (typeof DOCUMENT_LEVELS)[number];
export const DOCUMENT_OUTPUT_FORMATS = ['pdf', 'docx', 'xlsx', 'pptx'] as const;
export type DocumentOutputFormat = (typeof DOCUMENT_OUTPUT_FORMATS)[number];

export const documentParamsSchema = Type.Object(
  {
    compression: Type.Optional(
      Type.Enum(DOCUMENT_LEVELS, {
        default: 'high',
        description:
          'Level the embedded pictures are recompressed at by the image processor (each keeps its format); ' +
          'the container is re-packed with a stronger deflate. `lossless` changes no pixel.',
      }),
    ),
    format: Type.Optional(
      Type.Enum(DOCUMENT_OUTPUT_FORMATS, {
        description:
          'Convert with LibreOffice: `pdf` from any office format; `docx` from text documents (DOC, RTF, ODT), ' +
          '`xlsx` from spreadsheets (XLS, ODS), `pptx` from presentations (PPT, ODP).',
      }),
    ),
  },
  { additionalProperties: false },
);

export interface DocumentParams {
  compression: DocumentLevel;
  format: DocumentOutputFormat | undefined;
}

export function resolveDocumentParams(params: Record<string, unknown>): DocumentParams {
  return {
    compression: (params.compression as DocumentLevel | undefined) ?? 'high',
    format: params.format as DocumentOutputFormat | undefined,
  };
}
