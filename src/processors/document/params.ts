/** The `document` parameter namespace: its JSON Schema (part of the public API) and resolved form. */
import { Type } from '#typebox';
import type { ParamsSpec } from '../module.ts';

export const DOCUMENT_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type DocumentLevel = (typeof DOCUMENT_LEVELS)[number];
export const DOCUMENT_OUTPUT_FORMATS = ['pdf', 'docx', 'xlsx', 'pptx'] as const;
export type DocumentOutputFormat = (typeof DOCUMENT_OUTPUT_FORMATS)[number];
/** Only formats both Microsoft Office and LibreOffice display inside a document (not WebP or AVIF). */
export const DOCUMENT_IMAGE_FORMATS = ['keep', 'jpeg', 'png'] as const;
export type DocumentImageFormat = (typeof DOCUMENT_IMAGE_FORMATS)[number];

const imagesSchema = Type.Object(
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
  // Its default lets the defaults inside it apply when a request leaves it out.
  { additionalProperties: false, default: {} },
);

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
    images: Type.Optional(imagesSchema),
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

/** `images` once its defaults are applied. */
const resolvedImagesSchema = Type.Object(
  { ...imagesSchema.properties, ...Type.Required(Type.Pick(imagesSchema, ['format'])).properties },
  { additionalProperties: false },
);

/** The schema with every field that has a default required, in `images` too: what the processor receives. */
const resolvedDocumentParamsSchema = Type.Object(
  {
    ...documentParamsSchema.properties,
    ...Type.Required(Type.Pick(documentParamsSchema, ['compression'])).properties,
    images: resolvedImagesSchema,
  },
  { additionalProperties: false },
);

/** The namespace as the module's typed entry applies it (module.ts `typedProcessor`), `images` defaulted too. */
export const documentParams: ParamsSpec<typeof resolvedDocumentParamsSchema, DocumentParams> = {
  schema: documentParamsSchema,
  resolved: resolvedDocumentParamsSchema,
  derive: ({ compression, format, images }) => ({
    compression,
    format,
    imageFormat: images.format,
  }),
};
