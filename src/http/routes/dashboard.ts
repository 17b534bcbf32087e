/**
 * The dashboard's built files (dist/dashboard, made by scripts/setup.sh with Vite) under `/dashboard/`:
 * index.html revalidated on every load (`no-cache`), the hashed files under assets/ cached for a year
 * (their names change with their content). Every answer carries the strict Content-Security-Policy, so
 * nothing inline and nothing from elsewhere runs. The files are read once when the app is built and kept
 * in memory (the whole build is a few hundred kilobytes), so a request never touches the disk and a path can
 * only name a file that was there. A text file's gzip and brotli forms are made by the first request that
 * accepts them and kept: brotli at quality 11 over the build costs about 0.1 CPU-s, which every start of
 * the server (and of every test app) paid before, though most servers never serve the dashboard.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError, UnavailableError } from '../../errors/catalog.ts';
import { DASHBOARD_CSP, REPORTING_ENDPOINTS } from '../csp-reports.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Worth compressing: text. */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);

const IMMUTABLE = 'public, max-age=31536000, immutable';

interface StaticFile {
  type: string;
  etag: string;
  cacheControl: string;
  raw: Buffer;
  /** Text worth compressing: its gzip and brotli forms are made when first asked for. */
  compressible: boolean;
  gzip?: Buffer;
  br?: Buffer;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : [],
  );
}

/** The build's files by URL path below /dashboard/ (`index.html`, `assets/index-abc123.js`). */
export function loadDashboardFiles(dir: string): Map<string, StaticFile> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const files = new Map<string, StaticFile>();
  for (const path of filesUnder(dir)) {
    const name = relative(dir, path).split('\\').join('/');
    const ext = extname(name).toLowerCase();
    const raw = readFileSync(path);
    const file: StaticFile = {
      type: TYPES[ext] ?? 'application/octet-stream',
      etag: `"${createHash('sha1').update(raw).digest('base64url').slice(0, 20)}"`,
      cacheControl: name.startsWith('assets/') ? IMMUTABLE : 'no-cache',
      raw,
      compressible: COMPRESSIBLE.has(ext) && raw.length > 512,
    };
    files.set(name, file);
  }
  return files;
}

/** br, else gzip, else none, by what the client accepts (a plain token check: no q-value parsing needed). */
function pickEncoding(request: FastifyRequest, file: StaticFile): 'br' | 'gzip' | undefined {
  if (!file.compressible) return undefined;
  const accepted = String(request.headers['accept-encoding'] ?? '')
    .split(',')
    .map((token) => token.split(';')[0]!.trim().toLowerCase());
  if (accepted.includes('br')) return 'br';
  if (accepted.includes('gzip')) return 'gzip';
  return undefined;
}

/** The file's bytes in `encoding`, compressed once, by the first request that asked for that form. */
function encoded(file: StaticFile, encoding: 'br' | 'gzip' | undefined): Buffer {
  if (encoding === 'br')
    file.br ??= brotliCompressSync(file.raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  else if (encoding === 'gzip') file.gzip ??= gzipSync(file.raw, { level: 9 });
  return encoding === undefined ? file.raw : file[encoding]!;
}

function send(request: FastifyRequest, reply: FastifyReply, file: StaticFile) {
  reply.headers({
    'content-type': file.type,
    'cache-control': file.cacheControl,
    etag: file.etag,
    vary: 'accept-encoding',
    'content-security-policy': DASHBOARD_CSP,
    'reporting-endpoints': REPORTING_ENDPOINTS,
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'x-frame-options': 'DENY',
  });
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const encoding = pickEncoding(request, file);
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(encoded(file, encoding));
}

export interface DashboardRouteOptions {
  /** The built dashboard (dist/dashboard). */
  dir: string;
}

export async function dashboardRoute(app: FastifyInstance, options: DashboardRouteOptions) {
  const files = loadDashboardFiles(options.dir);
  const lookup = (name: string): StaticFile => {
    if (!files) {
      throw new UnavailableError(
        'The dashboard is not built on this server: run scripts/setup.sh (it builds dist/dashboard).',
        60,
      );
    }
    const file = files.get(name);
    if (!file) throw new NotFoundError('No such dashboard file.');
    return file;
  };
  const hidden = { schema: { hide: true } };

  app.get('/dashboard', hidden, async (_request, reply) => reply.redirect('/dashboard/', 301));
  app.get('/dashboard/', hidden, async (request, reply) => send(request, reply, lookup('index.html')));
  app.get('/dashboard/*', hidden, async (request, reply) => {
    const name = (request.params as { '*': string })['*'];
    // index.html has one address, `/dashboard/`; a second one would be cached apart.
    if (name === 'index.html') return reply.redirect('/dashboard/', 301);
    return send(request, reply, lookup(name));
  });
}
