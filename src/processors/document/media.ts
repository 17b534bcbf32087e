/**
 * The pictures inside an office document, recompressed by the image processor at the document's level.
 * Each keeps its format unless `images.format` asks for JPEG or PNG: a converted picture's part is renamed
 * (image1.png -> image1.jpeg) and every reference updated (part-references.ts). A picture is replaced only
 * when the image processor's output is smaller; a conversion that does not pay falls back to the
 * picture's own format.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import sharp from 'sharp';
import { PressoError } from '../../errors/catalog.ts';
import { type DetectedFile, detectFile } from '../../media/detect.ts';
import type { DetectedInput, Processor } from '../processor.ts';
import type { DocumentImageFormat } from './params.ts';
import type { PackageKind } from './part-references.ts';
import type { ZipEntry } from './zip.ts';

/** Where OOXML (word/xl/ppt media) and ODF (Pictures) keep embedded pictures. */
const MEDIA_PART = /^(word\/media|xl\/media|ppt\/media|Pictures|media)\/[^/]+\.(jpe?g|png)$/i;

/** Each suite's own spelling of a JPEG part: Word writes `.jpeg`, LibreOffice `.jpg`. */
const EXTENSION: Record<PackageKind, Record<'jpeg' | 'png', string>> = {
  ooxml: { jpeg: '.jpeg', png: '.png' },
  odf: { jpeg: '.jpg', png: '.png' },
};

export interface MediaJob {
  images: Processor;
  /** The operator's `PRESSO_IMAGE_MAX_PIXELS`: a picture is decoded for its alpha only under it. */
  maxPixels: number;
  level: string;
  imageFormat: DocumentImageFormat;
  /** undefined: a package whose references cannot be updated, so no part is renamed. */
  kind: PackageKind | undefined;
  workDir: string;
  signal: AbortSignal;
}

export interface MediaResult {
  /** Bytes the pictures lost in all. */
  saved: number;
  /** Old part name -> new part name, for each converted picture (the entries are already renamed). */
  renamed: Map<string, string>;
}

/** `entries` are updated in place. */
export async function recompressMedia(entries: ZipEntry[], job: MediaJob): Promise<MediaResult> {
  const result: MediaResult = { saved: 0, renamed: new Map() };
  // Lower-cased: OPC part names are case-insensitive, so image1.JPEG and image1.jpeg are one part to Word.
  const names = new Set(entries.map((e) => e.name.toLowerCase()));
  for (const [index, entry] of entries.entries()) {
    if (!MEDIA_PART.test(entry.name)) continue;
    job.signal.throwIfAborted();
    const dir = join(job.workDir, `media-${index}`);
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'input');
    await writeFile(path, entry.data);
    const detected = await detectFile(path);
    if (detected === undefined || detected.kind !== 'image') continue;
    // Office suites size a picture's frame from its stored pixels and (LibreOffice) ignore its EXIF
    // orientation, while the image processor turns the pixels upright: the picture would be drawn turned
    // and squeezed into its old frame. Such a picture is left as it is.
    if (await turnedByExif(entry.data)) continue;
    const input = { ...detected, path, name: entry.name, size: entry.data.length };
    const newName = await conversionName(entry, detected, job, names);
    if (newName !== undefined) {
      const target = newName.endsWith('.png') ? 'png' : 'jpeg';
      const converted = await encode(job, input, join(dir, 'convert'), target);
      if (converted !== undefined && converted.length < entry.data.length) {
        result.saved += entry.data.length - converted.length;
        result.renamed.set(entry.name, newName);
        names.add(newName.toLowerCase());
        entry.name = newName;
        entry.data = converted;
        continue;
      }
    }
    const own = await encode(job, input, join(dir, 'own'), detected.format);
    if (own !== undefined && own.length < entry.data.length) {
      result.saved += entry.data.length - own.length;
      entry.data = own;
    }
  }
  return result;
}

/**
 * The part's new name when `images.format` asks for a conversion this picture may take; undefined to keep
 * its format: no conversion asked or needed, a name already taken, or a conversion that would lose what
 * the level promises (transparency in a JPEG; any pixel at `lossless`).
 */
async function conversionName(
  entry: ZipEntry,
  detected: DetectedFile,
  job: MediaJob,
  names: ReadonlySet<string>,
): Promise<string | undefined> {
  const target = job.imageFormat;
  if (target === 'keep' || job.kind === undefined || target === detected.format) return undefined;
  if (detected.format !== 'jpeg' && detected.format !== 'png') return undefined;
  if (target === 'jpeg' && (job.level === 'lossless' || (await hasTransparency(entry.data, job.maxPixels))))
    return undefined;
  const name = entry.name.slice(0, -posix.extname(entry.name).length) + EXTENSION[job.kind][target];
  return names.has(name.toLowerCase()) ? undefined : name;
}

/**
 * Whether any pixel is less than opaque: JPEG would flatten it onto white. The header answers for a
 * picture without alpha; one with an alpha channel is decoded (within the image processor's pixel limit, as set,
 * refused above it, which counts as transparent so the picture keeps its format).
 */
async function hasTransparency(data: Buffer, maxPixels: number): Promise<boolean> {
  try {
    const image = sharp(data, { limitInputPixels: maxPixels });
    if (!(await image.metadata()).hasAlpha) return false;
    return !(await image.stats()).isOpaque;
  } catch {
    return true;
  }
}

async function turnedByExif(data: Buffer): Promise<boolean> {
  try {
    return ((await sharp(data).metadata()).orientation ?? 1) > 1;
  } catch {
    return false; // the image processor judges what sharp cannot read
  }
}

/** The picture through the image processor at the level, as `format`; undefined when it is refused. */
async function encode(
  job: MediaJob,
  input: DetectedInput,
  workDir: string,
  format: string,
): Promise<Buffer | undefined> {
  await mkdir(workDir, { recursive: true });
  const params: Record<string, unknown> = { compression: job.level };
  if (format !== input.format) params.format = format;
  try {
    const result = await job.images.process({
      input,
      params,
      workDir,
      signal: job.signal,
      wantMetadata: false,
    });
    return result.format === format ? await readFile(result.path) : undefined;
  } catch (error) {
    // A picture the image processor refuses (damaged, unusual) stays as it is; aborts end the job.
    if (job.signal.aborted || !(error instanceof PressoError) || error.statusCode !== 422) throw error;
    return undefined;
  }
}
