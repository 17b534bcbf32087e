/**
 * The pictures inside an office document, recompressed by the image processor at the document's level,
 * each keeping its format (a `.png` part stays PNG, so relationships and manifests need no change). A
 * picture is replaced only when the image processor's output is smaller.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PressoError } from '../../errors/catalog.ts';
import { detectFile } from '../../media/detect.ts';
import type { Processor } from '../processor.ts';
import type { ZipEntry } from './zip.ts';

/** Where OOXML (word/xl/ppt media) and ODF (Pictures) keep embedded pictures. */
const MEDIA_PART = /^(word\/media|xl\/media|ppt\/media|Pictures|media)\/[^/]+\.(jpe?g|png)$/i;

export interface MediaJob {
  images: Processor;
  level: string;
  workDir: string;
  signal: AbortSignal;
}

/** Returns how many bytes the pictures lost in all; `entries` are updated in place. */
export async function recompressMedia(entries: ZipEntry[], job: MediaJob): Promise<number> {
  let saved = 0;
  for (const [index, entry] of entries.entries()) {
    if (!MEDIA_PART.test(entry.name)) continue;
    job.signal.throwIfAborted();
    const dir = join(job.workDir, `media-${index}`);
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'input');
    await writeFile(path, entry.data);
    const detected = await detectFile(path);
    if (detected === undefined || detected.kind !== 'image') continue;
    try {
      const result = await job.images.process({
        input: { ...detected, path, name: entry.name, size: entry.data.length },
        params: { compression: job.level },
        workDir: dir,
        signal: job.signal,
        wantMetadata: false,
      });
      if (result.format !== detected.format) continue;
      const data = await readFile(result.path);
      if (data.length < entry.data.length) {
        saved += entry.data.length - data.length;
        entry.data = data;
      }
    } catch (error) {
      // A picture the image processor refuses (damaged, unusual) stays as it is; aborts end the job.
      if (job.signal.aborted || !(error instanceof PressoError) || error.statusCode !== 422) throw error;
    }
  }
  return saved;
}
