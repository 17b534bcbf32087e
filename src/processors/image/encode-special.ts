/**
 * The outputs sharp does not write alone: JPEG XL through cjxl (tuned or lossless), lossless JPEG (the
 * compressed pixels kept byte for byte, or recompressed to JXL), ICO from our writer, and the sanitised
 * SVG as it is.
 */
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { withinBudget } from '../shared/within-budget.ts';
import { iconSizesFor, writeIcon } from './codecs/ico.ts';
import { encodeJxl, recompressJpegToJxl } from './codecs/jxl.ts';
import { stripJpegMetadata, trimJpegTrailer } from './jpeg-segments.ts';
import { encodeTunedJxl, JXL_DISTANCE } from './jxl-tuning.ts';
import { budgetRace, type Candidate, type OutputContext, pipelineFor, toolRun } from './output-context.ts';

/** The sanitised SVG (source.ts) is the SVG output. */
export async function writeSvgOutput(ctx: OutputContext, path: string): Promise<Candidate> {
  await writeFile(path, ctx.source.svg ?? '');
  return { path, format: 'svg', size: (await stat(path)).size };
}

export async function encodeJxlOutput(ctx: OutputContext, path: string): Promise<Candidate> {
  const png = join(ctx.request.workDir, 'jxl-input.png');
  await withinBudget(pipelineFor(ctx, 'jxl').png({ compressionLevel: 1 }).toFile(png), budgetRace(ctx));
  const level = ctx.params.compression;
  const run = toolRun(ctx);
  if (level === 'lossless') {
    await encodeJxl(png, path, 0, run);
  } else {
    const job = { png, output: path, workDir: ctx.request.workDir, run };
    await encodeTunedJxl(pipelineFor(ctx, 'jxl'), level, job).catch(async (error: unknown) => {
      // Aborts and the deadline end the job; any other search failure falls back to the tuned distance.
      if (ctx.request.signal.aborted || ctx.deadline.isExceeded()) throw error;
      await encodeJxl(png, path, JXL_DISTANCE[level], run);
    });
  }
  await rm(png, { force: true });
  return { path, format: 'jxl', size: (await stat(path)).size };
}

/**
 * Lossless JPEG: drop the metadata segments and keep the compressed pixels byte for byte (JPEG), or
 * recompress those same coefficients to JXL. Only when no pixel change is needed.
 */
export async function losslessJpeg(
  ctx: OutputContext,
  format: 'jpeg' | 'jxl',
  path: string,
): Promise<Candidate | undefined> {
  if (ctx.params.metadata === 'copyright') return undefined;
  const bytes = await readFile(ctx.request.input.path);
  // Bytes after the end-of-image marker (a phone's depth map, an appended ZIP) are never copied on.
  const kept = ctx.params.metadata === 'strip' ? stripJpegMetadata(bytes) : trimJpegTrailer(bytes);
  if (kept === undefined) return undefined;
  const jpeg = format === 'jpeg' ? path : join(ctx.request.workDir, 'lossless-input.jpeg');
  await writeFile(jpeg, kept);
  if (format === 'jxl') {
    await recompressJpegToJxl(jpeg, path, toolRun(ctx));
    await rm(jpeg, { force: true });
  }
  ctx.request.signal.throwIfAborted();
  return { path, format, size: (await stat(path)).size };
}

/** An icon of square PNG entries at the standard sizes up to the image's size (at most 256). */
export async function encodeIconOutput(ctx: OutputContext, path: string): Promise<Candidate> {
  // No downscale here: sharp keeps one resize per pipeline and the request's own comes first.
  const { data, info } = await withinBudget(
    pipelineFor(ctx, 'ico').ensureAlpha().raw().toBuffer({ resolveWithObject: true }),
    budgetRace(ctx),
  );
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
  const entries = [];
  for (const size of iconSizesFor(info.width, info.height)) {
    const png = await sharp(data, raw)
      .resize(size, size, { fit: 'contain', background: '#00000000' })
      .png({ compressionLevel: 9, adaptiveFiltering: true })
      .toBuffer();
    entries.push({ size, png });
  }
  const icon = writeIcon(entries);
  await writeFile(path, icon);
  return { path, format: 'ico', size: icon.length };
}
