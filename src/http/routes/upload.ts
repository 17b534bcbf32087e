/**
 * POST /1.0/upload: multipart with a `file` part and an optional `data` part (JSON parameters). The
 * file streams to the request's own upload folder (upload-folders.ts) while its SHA-1 and size are
 * computed; it is never held whole in memory.
 */
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import {
  InvalidJsonError,
  PayloadTooLargeError,
  TooManyUploadsError,
  UnsupportedContentTypeError,
  ValidationError,
} from '../../errors/catalog.ts';
import type { ReceivedFile } from '../../jobs/job.ts';
import type { JobService } from '../../jobs/job-service.ts';
import type { RequestParser } from '../../jobs/request-params.ts';
import { safeFileName } from '../../media/formats.ts';
import { HashingCounter } from '../../media/hash.ts';
import { toMultipartError } from '../multipart-errors.ts';
import { requireAccount } from '../request-context.ts';
import { drainRequest } from '../request-drain.ts';
import { AcknowledgementSchema, commonErrors, ErrorSchema, SyncResultSchema } from '../schemas.ts';
import type { UploadFolders } from '../upload-folders.ts';
import type { UploadSlots } from '../upload-slots.ts';
import { clientGone, replyWithJob } from './submit-reply.ts';

export interface UploadRouteOptions {
  jobs: JobService;
  parser: RequestParser;
  maxInputBytes: number;
  slots: UploadSlots;
  uploads: UploadFolders;
}

/** The `data` part holds parameters, never content: 1 MiB is far above any valid parameter object. */
const MAX_DATA_BYTES = 1024 * 1024;
const MAX_PARTS = 12;

export async function uploadRoute(app: FastifyInstance, options: UploadRouteOptions) {
  const { jobs, parser, maxInputBytes, slots, uploads } = options;
  // Scoped to this route: only the upload endpoint parses multipart bodies.
  await app.register(multipart, {
    limits: { fileSize: maxInputBytes, files: 3, fields: 10, fieldSize: MAX_DATA_BYTES, parts: MAX_PARTS },
    // `data` always arrives as a stream read here with its own cap: as a plain field sent with
    // `Content-Type: application/json`, the plugin parses it itself and reports a value cut at the size
    // limit as invalid JSON, so an oversized `data` could not be told from a malformed one.
    isPartAFile: (fieldName, _contentType, fileName) => fileName !== undefined || fieldName === 'data',
  });

  app.post(
    '/1.0/upload',
    {
      config: { auth: true },
      schema: {
        operationId: 'uploadFile',
        tags: ['Jobs'],
        summary: 'Process an uploaded file',
        description:
          'multipart/form-data with a `file` part and an optional `data` part holding the JSON parameters ' +
          '(the same object as the fetch body without url/headers). Answers 200 with the result, or 202 when ' +
          'the job runs asynchronously (input over 32 MB, a webhook, "async": true, or the synchronous time-out).',
        consumes: ['multipart/form-data'],
        response: {
          200: SyncResultSchema,
          202: AcknowledgementSchema,
          400: ErrorSchema,
          408: ErrorSchema,
          413: ErrorSchema,
          415: ErrorSchema,
          422: ErrorSchema,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request.account);
      if (!request.isMultipart()) {
        throw new UnsupportedContentTypeError('multipart/form-data');
      }
      const release = slots.acquire(request.apiKeyId ?? account.id);
      if (!release) {
        drainRequest(request.raw);
        throw new TooManyUploadsError(slots.max);
      }
      reply.raw.once('close', release);
      const jobId = request.id;
      // The one owner of what this request writes: removed below, however the request ends.
      const folder = await uploads.open(jobId);
      let received: (ReceivedFile & { path: string }) | undefined;
      let data: string | undefined;
      // Failures while the parts are read are the body's fault (see multipart-errors.ts); later ones are not.
      let reading = true;
      // A repeated part is reported once the body has been read to its end: throwing while a part is
      // unread would stall the multipart parser and leave the keep-alive connection unusable.
      let repeated: 'file' | 'data' | undefined;
      try {
        for await (const part of request.parts()) {
          if (part.type === 'file' && part.fieldname === 'data') {
            if (data !== undefined) repeated ??= 'data';
            data = await readDataPart(part.file);
          } else if (part.type === 'file') {
            if (part.fieldname !== 'file' || received) {
              if (part.fieldname === 'file') repeated ??= 'file';
              part.file.resume();
              continue;
            }
            const counter = new HashingCounter();
            // At the limit the parser would go on reading (and discarding) the rest of the part before
            // the answer could be sent; failing the stream here answers at once and the drain takes over.
            part.file.once('limit', () => part.file.destroy(new PayloadTooLargeError(maxInputBytes)));
            const target = folder.createFile('upload');
            await pipeline(part.file, counter, target.stream);
            if (part.file.truncated) throw new PayloadTooLargeError(maxInputBytes);
            received = { name: safeFileName(part.filename), path: target.path, ...counter.digest() };
          }
          // Other fields are ignored, as the interface defines only `file` and `data`.
        }
        reading = false;
        release();
        if (repeated) throw ValidationError.field(repeated, 'must be sent only once');
        const parsed = parser.parseUploadData(parseData(data));
        if (!received) throw ValidationError.field('file', 'is required');
        const { path, ...file } = received;
        // The job service moves the file into the file store: from then on the job owns it.
        const job = await jobs.submitUpload(
          { jobId, accountId: account.id, received: file, path, request: parsed },
          clientGone(reply),
        );
        return replyWithJob(reply, job);
      } catch (error) {
        // Answered already (the body timed out) and the connection is closing: nobody is left to tell.
        if (reply.sent) return reply;
        // Refused before the body was read to its end (e.g. the file was too large and more parts
        // follow): the rest is read and discarded, so the client can read the answer.
        drainRequest(request.raw);
        throw reading ? toMultipartError(error, { maxInputBytes, parts: MAX_PARTS }) : error;
      } finally {
        await folder.remove();
      }
    },
  );
}

/** The `data` part's text; refused past MAX_DATA_BYTES without holding more than that in memory. */
async function readDataPart(stream: AsyncIterable<Buffer> & { resume(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > MAX_DATA_BYTES) throw new PayloadTooLargeError(MAX_DATA_BYTES, 'The data field');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseData(data: string | undefined): unknown {
  if (data === undefined || data.trim() === '') return {};
  try {
    return JSON.parse(data);
  } catch {
    throw new InvalidJsonError('data');
  }
}
