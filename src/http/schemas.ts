/** Response schemas shared by the routes; they feed the generated OpenAPI document. */
import { Type } from 'typebox';
import { FILE_KINDS } from '../media/formats.ts';

export const FileDescriptorSchema = Type.Object(
  {
    name: Type.String(),
    type: Type.Union(FILE_KINDS.map((k) => Type.Literal(k))),
    format: Type.String({ examples: ['jpeg'] }),
    mime: Type.String({ examples: ['image/jpeg'] }),
    size: Type.Integer({ description: 'Bytes.' }),
    sha1: Type.String({ pattern: '^[0-9a-f]{40}$' }),
  },
  { title: 'FileDescriptor' },
);

const Metadata = Type.Optional(
  Type.Object({}, { additionalProperties: true, description: 'With "metadata": true.' }),
);

export const SyncResultSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String({
    description: 'Temporary download URL (2 hours) or the object URL in an external store.',
  }),
  input: FileDescriptorSchema,
  output: FileDescriptorSchema,
  metadata: Metadata,
});

export const AcknowledgementSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: Type.Union([Type.Literal('enqueued'), Type.Literal('processing')]),
});

export const JobStatusSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: Type.Union(['enqueued', 'processing', 'completed', 'failed'].map((s) => Type.Literal(s))),
  success: Type.Optional(Type.Literal(false)),
  message: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  input: Type.Optional(FileDescriptorSchema),
  output: Type.Optional(FileDescriptorSchema),
  metadata: Metadata,
});

export const ErrorSchema = Type.Object(
  {
    success: Type.Literal(false),
    status: Type.Integer(),
    id: Type.String({ description: 'Request id; quote it to support.' }),
    message: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { title: 'Error' },
);

/** Error responses every authenticated route may give. */
export const commonErrors = {
  401: ErrorSchema,
  403: ErrorSchema,
  429: ErrorSchema,
  500: ErrorSchema,
  // Out of disk or database space (INSUFFICIENT_STORAGE): any route that records something can meet it.
  507: ErrorSchema,
};
