/**
 * The pictures inside an office document, recompressed by the image processor at the document's level,
 * each keeping its format unless `document.images.format` asks for JPEG or PNG (the part is then renamed
 * and every reference follows, part-references.ts). A picture is replaced only when the image processor's
 * output is smaller; a picture with transparency is never made JPEG (its transparent areas would turn
 * white over the page's colour).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { PressoError } from '../../errors/catalog.ts';
import { detectFile } from '../../media/detect.ts';
import type { Processor } from '../processor.ts';
import type { ZipEntry } from './zip.ts';

/** Where OOXML (word/xl/ppt media) and ODF (Pictures) keep embedded pictures. */
const MEDIA_PART = /^(word\/media|xl\/media|ppt\/media|Pictures|media)\/[^/]+\.(jpe?g|png)$/i;

export interface MediaJob {
  images: Processor;
  level: string;
  /** `keep` each picture's format, or convert every picture to this one. */
  format: 'keep' | 'jpeg' | 'png';
  workDir: string;
  signal: AbortSignal;
}

/**
 * Updates `entries` in place; returns the bytes the pictures lost in all and the parts to rename (old →
 * new name) where a picture changed format.
 */
export async function recompressMedia(
  entries: ZipEntry[],
  job: MediaJob,
): Promise<{ saved: number; renames: Map<string, string> }> {
  let saved = 0;
  const renames = new Map<string, string>();
  for (const [index, entry] of entries.entries()) {
    if (!MEDIA_PART.test(entry.name)) continue;
    job.signal.throwIfAborted();
    const dir = join(job.workDir, `media-${index}`);
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'input');
    await writeFile(path, entry.data);
    const detected = await detectFile(path);
    if (detected === undefined || detected.kind !== 'image') continue;
    const convert =
      job.format !== 'keep' && job.format !== detected.format && !(await hasAlpha(path, job.format));
    try {
      const result = await job.images.process({
        input: { ...detected, path, name: entry.name, size: entry.data.length },
        params: { compression: job.level, ...(convert ? { format: job.format } : {}) },
        workDir: dir,
        signal: job.signal,
        wantMetadata: false,
      });
      if (result.format !== (convert ? job.format : detected.format)) continue;
      const data = await readFile(result.path);
      if (data.length < entry.data.length) {
        saved += entry.data.length - data.length;
        entry.data = data;
        if (convert) renames.set(entry.name, entry.name.replace(/\.[^./]+$/, `.${job.format}`));
      }
    } catch (error) {
      // A picture the image processor refuses (damaged, unusual) stays as it is; aborts end the job.
      if (job.signal.aborted || !(error instanceof PressoError) || error.statusCode !== 422) throw error;
    }
  }
  return { saved, renames };
}

/** JPEG has no transparency: a picture that uses it stays in its format. */
async function hasAlpha(path: string, target: 'jpeg' | 'png'): Promise<boolean> {
  if (target !== 'jpeg') return false;
  return !(await sharp(path).stats()).isOpaque;
}
