/** The `archive` parameter namespace: its JSON Schema (part of the public API, defaults included) and typed form. */
import { Type } from '#typebox';
import {
  ARCHIVE_FORMATS,
  ARCHIVE_LEVELS,
  type ArchiveFormatName,
  type ArchiveLevel,
} from '../archive-tools/formats.ts';
import type { ParamsSpec } from '../module.ts';

export const archiveParamsSchema = Type.Object(
  {
    compression: Type.Optional(
      Type.Enum(ARCHIVE_LEVELS, {
        default: 'high',
        description:
          'How hard the archive is re-packed: every level keeps every member byte for byte (medium: gzip -9, ' +
          'xz -9, zstd -19, 7-Zip deflate; high: zopfli deflate up to 32 MiB, xz -9e, zstd --ultra -22; ultra: ' +
          'more zopfli iterations). With `deep`, also the level each member is processed at.',
      }),
    ),
    format: Type.Optional(
      Type.Enum(ARCHIVE_FORMATS, {
        description:
          'Convert to another archive format. A single-stream format (gz, bz2, xz, zst) can only hold one file: ' +
          'it is accepted for single-stream inputs only.',
      }),
    ),
    deep: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Pass each member through the processor of its own kind (images, PDFs, office documents, audio, ' +
          'video) at `compression`, keeping names, folders, times and permissions; members no processor ' +
          'improves stay byte-identical. Archives inside are opened up to the server’s nesting limit.',
      }),
    ),
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        // The tools read it as one line of their standard input, never from their command line.
        pattern: '^[^\\u0000\\r\\n]*$',
        description:
          'Opens encrypted ZIP or 7z members; a ZIP or 7z output is encrypted again with it (AES-256; a 7z ' +
          'also hides its names). One line: no line break or NUL. A wrong password is a 422 on this field.',
        // A secret: sealed while the job runs, never stored in its parameters (jobs/job-secrets.ts).
        writeOnly: true,
      }),
    ),
  },
  { additionalProperties: false },
);

/** The schema with every field that has a default required: what the processor receives once they are applied. */
const resolvedArchiveParamsSchema = Type.Object(
  {
    ...archiveParamsSchema.properties,
    ...Type.Required(Type.Pick(archiveParamsSchema, ['compression', 'deep'])).properties,
  },
  { additionalProperties: false },
);

export interface ArchiveParams {
  compression: ArchiveLevel;
  format: ArchiveFormatName | undefined;
  deep: boolean;
  password: string | undefined;
}

/** The namespace as the module's typed entry applies it (module.ts `typedProcessor`). */
export const archiveParams: ParamsSpec<typeof resolvedArchiveParamsSchema, ArchiveParams> = {
  schema: archiveParamsSchema,
  resolved: resolvedArchiveParamsSchema,
  derive: ({ compression, format, deep, password }) => ({ compression, format, deep, password }),
};
