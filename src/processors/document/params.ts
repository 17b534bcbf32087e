/** The `document` parameter namespace: its JSON Schema (part of the public API) and resolved form. */
import { Type } from 'typebox';

export const DOCUMENT_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type DocumentLevel = (typeof DOCUMENT_LEVELS)[number];
export const DOCUMENT_OUTPUT_FORMATS = ['pdf', 'docx', 'xlsx', 'pptx'] as const;
export type DocumentOutputFormat = (typeof DOCUMENT_OUTPUT_FORMATS)[number];
export const DOCUMENT_IMAGE_FORMATS = ['keep', 'jpeg', 'png'] as const;
export type DocumentImageFormat = (typeof DOCUMENT_IMAGE_FORMATS)[number];

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
    images: Type.Optional(
      Type.Object(
        {
          format: Type.Optional(
            Type.Enum(DOCUMENT_IMAGE_FORMATS, {
              default: 'keep',
              description:
                "`keep` each picture's format, or convert the pictures to `jpeg` or `png` (formats every office " +
                'suite displays); a converted picture is kept only when smaller, and pictures with ' +
                'transparency never become JPEG. References inside the document follow the renamed parts.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
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
  imageFormat: DocumentImageFormat;
  format: DocumentOutputFormat | undefined;
}

export function resolveDocumentParams(params: Record<string, unknown>): DocumentParams {
  return {
    compression: (params.compression as DocumentLevel | undefined) ?? 'high',
    imageFormat: (params.images as { format?: DocumentImageFormat } | undefined)?.format ?? 'keep',
    format: params.format as DocumentOutputFormat | undefined,
  };
}
