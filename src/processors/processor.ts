/**
 * A processor turns one input file of its kind into one output file. Processors know nothing of
 * HTTP, accounts, queues or stores: they get local paths, their own validated parameters and an
 * abort signal, so each can be tested and reused alone.
 */
import type { TSchema } from '#typebox';
import type { FieldError } from '../errors/catalog.ts';
import type { FileKind } from '../media/formats.ts';

export interface DetectedInput {
  path: string;
  name: string;
  kind: FileKind;
  format: string;
  mime: string;
  size: number;
}

export interface ProcessRequest<P = Record<string, unknown>> {
  input: DetectedInput;
  /**
   * The processor's own namespace of the request (`image` for the image processor), already schema-valid; a
   * kind's own code receives it typed, its defaults applied (module.ts `typedProcessor`).
   */
  params: P;
  /** A private directory for this job's intermediate files; removed when the job ends. */
  workDir: string;
  /**
   * The job's folder, which holds `workDir`: the only folder external tools may read and write (besides
   * the input, read-only). Default: `workDir` (a processor used alone).
   */
  jobDir?: string;
  signal: AbortSignal;
  /** The request asked for `"metadata": true`. */
  wantMetadata: boolean;
  /**
   * Optional progress channel for long work (video, audio): called with 0–100 as the work advances.
   * Processors that finish quickly never call it; callers must not rely on a final 100.
   */
  onProgress?: (percent: number) => void;
}

export interface ProcessResult {
  path: string;
  format: string;
  /**
   * True when the output differs from the input in format or geometry because the request asked so;
   * the runner then skips the "never larger than the input" rule.
   */
  transformed: boolean;
  metadata?: Record<string, unknown>;
}

export interface Processor {
  readonly name: string;
  readonly kind: FileKind;
  readonly inputFormats: readonly string[];
  readonly outputFormats: readonly string[];
  /** JSON Schema of the processor's parameter namespace; it is part of the API and the OpenAPI document. */
  readonly paramsSchema: TSchema;
  /** Cross-field rules the schema cannot say; returns one entry per problem, fields prefixed by `namespace`. */
  checkParams?(params: Record<string, unknown>, namespace: string): FieldError[];
  /**
   * Looks inside an input the magic bytes gave to this processor and answers what it really is: an MP4 or
   * WebM with no video stream is audio (a podcast's .m4a written with the `isom` brand is sniffed as video
   * MP4). Returns the input unchanged when it is this processor's; the caller then looks the kind up again.
   */
  refineInput?(
    input: DetectedInput,
    context: { workDir: string; jobDir?: string; signal: AbortSignal },
  ): Promise<DetectedInput>;
  process(request: ProcessRequest): Promise<ProcessResult>;
}
