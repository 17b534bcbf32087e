/**
 * GET {base}/<expiry>/<job id>/<name>: temporary outputs. No API key: the job id is an unguessable
 * UUIDv4 and the link stops working at expiry (410). Serves ETag (the SHA-1), Range and a
 * Content-Disposition with the file name.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import { GoneError, NotFoundError, RangeNotSatisfiableError } from '../../errors/catalog.ts';
import type { ByteRange, FileStore } from '../../files/file-store.ts';
import { linkName } from '../../jobs/download-link.ts';
import type { JobStore } from '../../jobs/job-store.ts';
import { ErrorSchema } from '../schemas.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * `bytes=FROM-TO` (each side optional, spaces allowed, a `,` and anything after it ignored), read by one
 * forward scan: the pattern `/^bytes=\s*(\d*)\s*-\s*(\d*)\s*(?:,.*)?$/` it replaces backtracked cubically on
 * a header of tabs (16 KB held the event loop for minutes).
 */
function firstByteRange(text: string): { from: string; to: string } | undefined {
  if (!text.startsWith('bytes=')) return undefined;
  const isSpace = (at: number) => at < text.length && text[at]!.trim() === '';
  const isDigit = (at: number) => at < text.length && text.charCodeAt(at) >= 48 && text.charCodeAt(at) <= 57;
  let at = 'bytes='.length;
  const run = (test: (at: number) => boolean) => {
    const start = at;
    while (test(at)) at++;
    return text.slice(start, at);
  };
  run(isSpace);
  const from = run(isDigit);
  run(isSpace);
  if (text[at] !== '-') return undefined;
  at++;
  run(isSpace);
  const to = run(isDigit);
  run(isSpace);
  return at === text.length || text[at] === ',' ? { from, to } : undefined;
}

/** One `bytes=` range (the first, when several are asked: a full-body answer would also be valid). */
export function parseRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = firstByteRange(header.trim());
  if (!match) return undefined;
  const { from, to } = match;
  if (from === '' && to === '') return undefined;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export async function downloadsRoute(app: FastifyInstance, options: { store: JobStore; files: FileStore }) {
  app.get(
    '/:expiry/:jobId/:name',
    {
      schema: {
        operationId: 'downloadOutput',
        tags: ['Downloads'],
        summary: 'Download a temporary output (no API key; expires after 2 hours)',
        response: {
          200: {
            description: 'The output file',
            content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } },
          },
          206: {
            description: 'The requested range of the output file (Content-Range)',
            content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } },
          },
          304: { description: 'Not modified: If-None-Match matched the ETag (the SHA-1)', type: 'null' },
          404: ErrorSchema,
          410: ErrorSchema,
          416: ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const { expiry, jobId, name } = request.params as { expiry: string; jobId: string; name: string };
      if (!/^\d{1,12}$/.test(expiry) || !UUID.test(jobId)) throw new NotFoundError();
      const job = await options.store.get(jobId);
      const output = job?.output;
      if (job?.status !== 'completed' || !output) throw new NotFoundError();
      // Fastify has decoded the segment; links made before names were shortened carry the whole name.
      const named =
        name === output.descriptor.name || name === decodeURIComponent(linkName(output.descriptor.name));
      if (!named || Math.floor(output.expiresAt / 1000) !== Number(expiry)) {
        throw new NotFoundError();
      }
      const now = Date.now();
      if (now >= output.expiresAt) throw new GoneError('This download link has expired.');
      const stored = await options.files.stat(output.key);
      if (!stored) throw new GoneError('This download link has expired.');

      const etag = `"${output.descriptor.sha1}"`;
      reply.headers({
        'content-type': output.descriptor.mime,
        etag,
        'accept-ranges': 'bytes',
        'content-disposition': contentDisposition(output.descriptor.name),
        'cache-control': `private, max-age=${Math.max(0, Math.floor((output.expiresAt - now) / 1000))}`,
        expires: new Date(output.expiresAt).toUTCString(),
      });
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch?.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
        return reply.code(304).send();
      }
      const ifRange = request.headers['if-range'];
      const range = ifRange && ifRange !== etag ? undefined : parseRange(request.headers.range, stored.size);
      if (range === 'unsatisfiable') {
        throw new RangeNotSatisfiableError(stored.size);
      }
      if (range) {
        reply.code(206);
        reply.header('content-range', `bytes ${range.start}-${range.end}/${stored.size}`);
        reply.header('content-length', range.end - range.start + 1);
      } else {
        reply.header('content-length', stored.size);
      }
      // Fastify's HEAD handling rewrites Content-Length to 0 for an empty payload but keeps it for a
      // stream (whose body it drops), so HEAD answers with an empty stream rather than nothing.
      if (request.method === 'HEAD') return reply.send(Readable.from([]));
      return reply.send(await options.files.read(output.key, range));
    },
  );
}
