/** The `document` parameter namespace: its JSON Schema (part of the public API) and resolved form. */
import { Type } from 'typebox';
import type { ParamsSpec } from '../module.ts';

export const DOCUMENT_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type DocumentLevel = (typeof DOCUMENT_LEVELS)[number];
export const DOCUMENT_OUTPUT_FORMATS = ['pdf', 'docx', 'xlsx', 'pptx'] as const;
export type DocumentOutputFormat = (typeof DOCUMENT_OUTPUT_FORMATS)[number];
/** Only formats both Microsoft Office and LibreOffice display inside a document (not WebP or AVIF). */
export const DOCUMENT_IMAGE_FORMATS = ['keep', 'jpeg', 'png'] as const;
export type DocumentImageFormat = (typeof DOCUMENT_IMAGE_FORMATS)[number];

export const documentParamsSchema = Type.Object(
  {
    compression: Type.Optional(
      Type.Enum(DOCUMENT_LEVELS, {
        default: 'high',
        description:
          'Level the embedded pictures are recompressed at by the image processor (each keeps its format unless ' +
          '`images.format` says otherwise); ' +
          'the container is re-packed with a stronger deflate. `lossless` changes no pixel. Below `lossless` ' +
          'the thumbnail (a preview file managers show, not content) is dropped.',
      }),
    ),
    images: Type.Optional(
      Type.Object(
        {
          format: Type.Optional(
            Type.Enum(DOCUMENT_IMAGE_FORMATS, {
              default: 'keep',
              description:
                'Convert the embedded JPEG and PNG pictures to `jpeg` or `png` (renaming each part and updating ' +
                'every reference to it); a converted picture is kept only when smaller. A picture with ' +
                'transparency is never made JPEG, and at `lossless` nothing is made JPEG. `keep` recompresses ' +
                'each picture in its own format.',
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
  format: DocumentOutputFormat | undefined;
  imageFormat: DocumentImageFormat;
}

/** The schema with every top-level field that has a default required: what the processor receives. */
const resolvedDocumentParamsSchema = Type.Object(
  {
    ...documentParamsSchema.properties,
    ...Type.Required(Type.Pick(documentParamsSchema, ['compression'])).properties,
  },
  { additionalProperties: false },
);

/**
 * The namespace as the module's typed entry applies it (module.ts `typedProcessor`). A field inside the
 * optional `images` object has its default only when the object is given, so it is read here.
 */
export const documentParams: ParamsSpec<typeof resolvedDocumentParamsSchema, DocumentParams> = {
  schema: documentParamsSchema,
  resolved: resolvedDocumentParamsSchema,
  derive: ({ compression, format, images }) => ({
    compression,
    format,
    imageFormat: images?.format ?? 'keep',
  }),
};
