/**
 * One pass over the files of an unpacked site: images through the image processor (in their format, or
 * converted to WebP/AVIF with their references rewritten), then pages, style sheets, scripts and JSON
 * minified. A file is replaced only by a smaller one; a file a minifier cannot parse stays as it is.
 */
import { copyFile, lstat, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { formatInfo } from '../../media/formats.ts';
import type { Processor } from '../processor.ts';
import type { BundleParams } from './params.ts';
import { rewriteCss, rewriteHtml, wrapInPicture } from './references.ts';

const IMAGES: Record<string, string> = {
  png: 'png',
  jpg: 'jpeg',
  jpeg: 'jpeg',
  gif: 'gif',
  webp: 'webp',
  svg: 'svg',
  avif: 'avif',
};
const CONVERTIBLE = new Set(['png', 'jpeg']);

export interface SiteReport {
  images: number;
  converted: number;
  minified: number;
  savedBytes: number;
}

export interface SiteContext {
  /** The site's root folder on disk. */
  root: string;
  /** Site paths (relative to the root, `/`-separated) of the regular files. */
  files: string[];
  params: BundleParams;
  images: Processor;
  signal: AbortSignal;
  workDir: string;
  maxTextBytes: number;
}

const extension = (path: string) => posix.extname(path).slice(1).toLowerCase();

export async function optimiseSite(ctx: SiteContext): Promise<SiteReport> {
  const report: SiteReport = { images: 0, converted: 0, minified: 0, savedBytes: 0 };
  const renames = new Map<string, string>();
  const existing = new Set(ctx.files);
  const encode = imageEncoder(ctx);
  for (const path of ctx.files) {
    const format = IMAGES[extension(path)];
    if (format === undefined) continue;
    ctx.signal.throwIfAborted();
    const full = join(ctx.root, path);
    const before = (await stat(full)).size;
    const target =
      ctx.params.imageFormat !== 'keep' && CONVERTIBLE.has(format) ? ctx.params.imageFormat : format;
    const renamed =
      target === format ? path : `${path.slice(0, -extension(path).length)}${formatInfo(target)!.extension}`;
    // Converted only when nothing of the new name is there already (a file, a folder, a link, which would be
    // written through); otherwise optimised in its format.
    const converting = renamed !== path && !existing.has(renamed) && !(await taken(join(ctx.root, renamed)));
    // With <picture> the original stays as the fallback, optimised in its own format.
    const own = !converting || ctx.params.picture ? await encode(full, format, format) : undefined;
    if (own !== undefined && own.size < before) {
      await copyFile(own.path, full);
      report.savedBytes += before - own.size;
    }
    report.images++;
    if (!converting) continue;
    const converted = await encode(full, format, target);
    if (converted === undefined || (!ctx.params.picture && converted.size >= before)) continue;
    await copyFile(converted.path, join(ctx.root, renamed));
    renames.set(path, renamed);
    report.converted++;
    if (ctx.params.picture) report.savedBytes -= converted.size;
    else {
      await rm(full);
      report.savedBytes += before - converted.size;
    }
  }
  const mime = formatInfo(ctx.params.imageFormat === 'keep' ? 'webp' : ctx.params.imageFormat)!.mime;
  for (const path of ctx.files) {
    ctx.signal.throwIfAborted();
    if (await minifyFile(ctx, path, renames, mime)) report.minified++;
  }
  return report;
}

const taken = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

/** One image through the image processor into `target`; undefined when it cannot be read or did not change. */
function imageEncoder(ctx: SiteContext) {
  let index = 0;
  return async (full: string, format: string, target: string) => {
    const workDir = join(ctx.workDir, `image-${index++}`);
    await mkdir(workDir);
    const params: Record<string, unknown> = { compression: ctx.params.compression };
    if (target !== format) params.format = target;
    try {
      const size = (await stat(full)).size;
      const input = {
        path: full,
        name: posix.basename(full),
        kind: 'image' as const,
        format,
        mime: formatInfo(format)!.mime,
        size,
      };
      const result = await ctx.images.process({
        input,
        params,
        workDir,
        signal: ctx.signal,
        wantMetadata: false,
      });
      if (result.path === full || result.format !== target) return undefined;
      return { path: result.path, size: (await stat(result.path)).size };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      return undefined; // an image the processor cannot read stays as it is
    }
  };
}

async function minifyFile(
  ctx: SiteContext,
  path: string,
  renames: Map<string, string>,
  mime: string,
): Promise<boolean> {
  const ext = extension(path);
  if (!['html', 'htm', 'css', 'js', 'mjs', 'json'].includes(ext)) return false;
  const full = join(ctx.root, path);
  const before = await stat(full);
  if (before.size > ctx.maxTextBytes) return false;
  const text = await readFile(full, 'utf8');
  // The minifiers (html-minifier-terser with clean-css and terser, lightningcss, esbuild: ~250 modules)
  // are loaded by the first bundle job, not by every server that never runs one.
  const { minifyCss, minifyHtml, minifyJs, minifyJson } = await import('./minify.ts');
  let next: string;
  try {
    if (ext === 'html' || ext === 'htm') {
      const linked = ctx.params.picture
        ? wrapInPicture(text, path, renames, mime)
        : rewriteHtml(text, path, renames);
      next = await minifyHtml(linked);
    } else if (ext === 'css') {
      next = minifyCss(ctx.params.picture ? text : rewriteCss(text, path, renames), path);
    } else if (ext === 'json') {
      next = minifyJson(text);
    } else {
      next = await minifyJs(text);
    }
  } catch {
    return false;
  }
  const changedLinks = renames.size > 0 && !ctx.params.picture;
  if (Buffer.byteLength(next) >= before.size && !changedLinks) return false;
  await writeFile(full, next);
  return true;
}
