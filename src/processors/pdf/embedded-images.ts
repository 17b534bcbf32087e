/**
 * Embedded images recompressed in place: each large 8-bit image (Flate-compressed pixels or a JPEG) is
 * decoded by qpdf, re-encoded as JPEG, and written back into its own object, so every other object (text,
 * fonts, vector art) stays byte for byte what it was and renders identically. Grey and RGB images go
 * through the image processor at the PDF's level (its perceptual search picks each JPEG's quality);
 * CMYK images, which the image processor does not take, are written as CMYK JPEG at the level's fixed
 * quality. The caller scores the rendered pages before keeping the result (engines.ts).
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { PressoError } from '../../errors/catalog.ts';
import { detectFile } from '../../media/detect.ts';
import type { Processor } from '../processor.ts';
import { type PdfToolRun, pdfTool, pdfToolOutput } from '../shared/pdf-tools.ts';
import { cmykTiff } from './cmyk-tiff.ts';
import {
  objectId,
  objectNumber,
  type PdfDict,
  type PdfObjects,
  type PdfObjectUpdate,
  type PdfValue,
} from './pdf-objects.ts';
import type { LossyPdfLevel } from './targets.ts';

/** Images below this size (bytes in the file) are not worth a decode and a search. */
const MIN_BYTES = 16 * 1024;
/** A replacement must save at least this share of the image's bytes to be kept. */
const MIN_SAVING = 0.1;
/** Work budget per PDF, counted in images and pixels (never seconds): the same PDF, the same bytes. */
export const IMAGE_BUDGET = { images: 64, pixels: 200_000_000 } as const;
/** JPEG quality for CMYK images per level (no perceptual search for CMYK; the page score still checks). */
const CMYK_QUALITY: Record<LossyPdfLevel, number> = { medium: 90, high: 80, ultra: 70 };
/**
 * Highest resolution an image keeps where the page draws it, per level (pixels per inch at its largest
 * placement): print quality at `medium`, twice a screen's at `high`, Ghostscript's `/ebook` at `ultra`.
 * Pixels beyond it are never seen at any zoom a reader uses; an image drawn at 790 ppi (a 768×576 photo
 * in a 1-inch box) is most of some PDFs' bytes.
 */
export const MAX_PPI: Record<LossyPdfLevel, number> = { medium: 300, high: 200, ultra: 150 };
/** Bytes an extracted image may exceed its expected size by (a stray end-of-line, padding). */
const EXTRACT_SLACK = 64 * 1024;
/** Downsampling below this factor of the side is not worth the lost detail. */
const MIN_DOWNSAMPLE = 0.8;

export interface ImageJob {
  images: Processor;
  level: LossyPdfLevel;
  run: PdfToolRun;
}

interface Candidate {
  key: string;
  dict: PdfDict;
  width: number;
  height: number;
  /** Size written: the image's own, or smaller where it is drawn at more than the level's MAX_PPI. */
  target: { width: number; height: number };
  components: 1 | 3 | 4;
  jpeg: boolean;
  bytes: number;
}

/**
 * The stream updates that replace each worthwhile image (images that do not shrink are left alone), and
 * the pages that draw a replaced image: the ones to score.
 */
export async function imageUpdates(
  input: string,
  pdf: PdfObjects,
  job: ImageJob,
): Promise<{ updates: Map<string, PdfObjectUpdate>; pages: number[] }> {
  const updates = new Map<string, PdfObjectUpdate>();
  const dir = join(job.run.workDir, 'images');
  await mkdir(dir, { recursive: true });
  let pixels = 0;
  const placed = await placements(input, job.run);
  const candidates = imageCandidates(pdf, placed.ppi, MAX_PPI[job.level]).sort((a, b) => b.bytes - a.bytes);
  const pages = new Set<number>();
  for (const image of candidates.slice(0, IMAGE_BUDGET.images)) {
    if (pixels + image.width * image.height > IMAGE_BUDGET.pixels) continue;
    pixels += image.width * image.height;
    job.run.signal.throwIfAborted();
    const number = objectNumber(image.key);
    const source = join(dir, `${number}.${image.jpeg ? 'jpg' : 'raw'}`);
    const mode = image.jpeg ? '--raw-stream-data' : '--filtered-stream-data';
    const extracted = async () => {
      // With its generation: `--show-object=12` alone means generation 0 and prints null for `12 1 R`.
      // Capped at what the image should weigh: a small Flate stream that inflates past its declared size (a
      // bomb) fails here instead of filling the disk.
      const expected = image.jpeg ? image.bytes : image.width * image.height * image.components;
      const args = [`--show-object=${objectId(image.key)}`, mode, input];
      await pdfTool('qpdf', args, job.run, { stdoutFile: source, fileBytes: expected + EXTRACT_SLACK });
      return encode(image, source, join(dir, String(number)), job);
    };
    const encoded = await extracted().catch((error: unknown) => {
      // One image that cannot be read, decoded or encoded (a predictor qpdf cannot undo) stays as it is;
      // the job's end (abort, time) stops all.
      if (job.run.signal.aborted || job.run.deadline.isExceeded()) throw error;
      return undefined;
    });
    if (encoded === undefined || (await stat(encoded)).size > image.bytes * (1 - MIN_SAVING)) continue;
    const { '/DecodeParms': _, '/Length': __, ...rest } = image.dict;
    const dict: PdfDict = { ...rest, '/Filter': '/DCTDecode', '/BitsPerComponent': 8 };
    dict['/Width'] = image.target.width;
    dict['/Height'] = image.target.height;
    // libvips writes CMYK JPEGs the Adobe way, inverted, and inverts them back on reading; PDF readers take
    // DCT samples as stored. Pixels from Flate are true CMYK, so their inverted JPEG needs /Decode to flip
    // it back (as Ghostscript writes Photoshop JPEGs). A CMYK JPEG source comes out of libvips already
    // inverted relative to what the page showed, so written back it reads as before without one (measured:
    // with /Decode its page scored -10.7, without it above the target).
    if (image.components === 4 && !image.jpeg) dict['/Decode'] = [1, 0, 1, 0, 1, 0, 1, 0];
    updates.set(image.key, { stream: { dict, datafile: encoded } });
    for (const page of placed.pages.get(number) ?? []) pages.add(page);
  }
  return { updates, pages: [...pages].sort((a, b) => a - b) };
}

interface Placements {
  /** Per image object number: its lowest drawn resolution (largest placement), ppi. */
  ppi: Map<number, number>;
  /** Per image object number: the pages (1-based) that draw it. */
  pages: Map<number, Set<number>>;
}

/**
 * Each image object's highest drawn resolution (its smallest placement), from `pdfimages -list`: the
 * object number and x/y ppi of every time a page draws it.
 */
async function placements(input: string, run: PdfToolRun): Promise<Placements> {
  const listing = await pdfToolOutput('pdfimages', ['-list', input], run);
  const ppi = new Map<number, number>();
  const pages = new Map<number, Set<number>>();
  for (const line of listing.split('\n').slice(2)) {
    const columns = line.trim().split(/\s+/);
    const [page, object, x, y] = [0, 10, 12, 13].map((i) => Number(columns[i]));
    if (page === undefined || object === undefined || x === undefined || y === undefined) continue;
    if (!Number.isInteger(object) || !(x > 0) || !(y > 0)) continue;
    // The largest placement (lowest ppi) decides: downsampling must hold there too.
    ppi.set(object, Math.min(ppi.get(object) ?? Number.POSITIVE_INFINITY, Math.min(x, y)));
    pages.set(object, (pages.get(object) ?? new Set<number>()).add(page));
  }
  return { ppi, pages };
}

function imageCandidates(pdf: PdfObjects, ppi: Map<number, number>, maxPpi: number): Candidate[] {
  const found: Candidate[] = [];
  for (const [key, object] of Object.entries(pdf.objects)) {
    const dict = object.stream?.dict;
    if (dict === undefined || dict['/Subtype'] !== '/Image' || dict['/ImageMask'] === true) continue;
    // Colour-key masks (/Mask arrays, also by reference) and /Decode arrays need exact sample values: lossy
    // would break them. A stencil mask (a stream) is its own image and leaves these samples free.
    if (
      dict['/BitsPerComponent'] !== 8 ||
      dict['/Decode'] !== undefined ||
      !maskAllowsLossy(dict['/Mask'], pdf)
    )
      continue;
    const filter = single(dict['/Filter']);
    if (filter !== '/FlateDecode' && filter !== '/DCTDecode') continue;
    const components = componentsOf(dict['/ColorSpace'], pdf);
    const [width, height, bytes] = [dict['/Width'], dict['/Height'], dict['/Length']];
    if (components === undefined || typeof width !== 'number' || typeof height !== 'number') continue;
    if (typeof bytes !== 'number' || bytes < MIN_BYTES) continue;
    // An image no page draws (pdfimages lists none) is not touched: its size there is unknown.
    const drawn = ppi.get(objectNumber(key));
    if (drawn === undefined) continue;
    const scale = maxPpi / drawn < MIN_DOWNSAMPLE ? maxPpi / drawn : 1;
    const target = {
      width: Math.max(1, Math.round(width * scale)),
      height: Math.max(1, Math.round(height * scale)),
    };
    found.push({ key, dict, width, height, target, components, jpeg: filter === '/DCTDecode', bytes });
  }
  return found;
}

function maskAllowsLossy(mask: PdfValue | undefined, pdf: PdfObjects): boolean {
  if (mask === undefined) return true;
  if (typeof mask !== 'string' || !mask.endsWith(' R')) return false;
  return pdf.objects[`obj:${mask}`]?.stream !== undefined;
}

function single(filter: PdfValue | undefined): PdfValue | undefined {
  return Array.isArray(filter) ? (filter.length === 1 ? filter[0] : undefined) : filter;
}

/** Samples per pixel of a device or ICC-based colour space; undefined for anything else (indexed, Lab…). */
function componentsOf(space: PdfValue | undefined, pdf: PdfObjects): 1 | 3 | 4 | undefined {
  if (space === '/DeviceGray') return 1;
  if (space === '/DeviceRGB') return 3;
  if (space === '/DeviceCMYK') return 4;
  const resolved =
    typeof space === 'string' && space.endsWith(' R') ? pdf.objects[`obj:${space}`]?.value : space;
  if (!Array.isArray(resolved) || resolved[0] !== '/ICCBased' || typeof resolved[1] !== 'string')
    return undefined;
  const n = pdf.objects[`obj:${resolved[1]}`]?.stream?.dict['/N'];
  return n === 1 || n === 3 || n === 4 ? n : undefined;
}

/** The image as a JPEG file, or undefined when it cannot be read (left as it is). */
async function encode(
  image: Candidate,
  source: string,
  base: string,
  job: ImageJob,
): Promise<string | undefined> {
  const { width, height, components, target } = image;
  if (!image.jpeg && (await stat(source)).size !== width * height * components) return undefined;
  const resized = target.width !== width || target.height !== height;
  // Lanczos over the whole image, like Ghostscript's bicubic downsampling: no aliasing in fine patterns.
  const resize = (pipeline: Sharp) =>
    resized ? pipeline.resize(target.width, target.height, { fit: 'fill', kernel: 'lanczos3' }) : pipeline;
  if (components === 4) {
    const output = `${base}-cmyk.jpg`;
    // Only Adobe-marked CMYK JPEGs: the convention the /Decode rule in imageUpdates was measured on.
    if (image.jpeg && !hasAdobeMarker(await readFile(source))) return undefined;
    const decoded = image.jpeg ? sharp(source) : sharp(cmykTiff(await readFile(source), width, height));
    await resize(decoded.pipelineColourspace('cmyk'))
      .toColourspace('cmyk')
      .jpeg({ quality: CMYK_QUALITY[job.level], mozjpeg: true })
      .toFile(output);
    return output;
  }
  // The samples as the PDF draws them, never the JPEG file itself: the image processor would apply its
  // EXIF orientation (the dictionary keeps /Width and /Height) and convert its embedded ICC profile to sRGB
  // (readers ignore a JPEG's own profile: the page's colour space rules).
  const path = `${base}.png`;
  const decoded = image.jpeg
    ? sharp(source, { ignoreIcc: true })
    : sharp(await readFile(source), { raw: { width, height, channels: components } });
  await resize(decoded).png({ compressionLevel: 1 }).toFile(path);
  const detected = await detectFile(path);
  if (detected === undefined || detected.kind !== 'image') return undefined;
  const workDir = `${base}-work`;
  await mkdir(workDir, { recursive: true });
  try {
    const result = await job.images.process({
      input: {
        ...detected,
        path,
        name: `${objectNumber(image.key)}.${detected.format}`,
        size: (await stat(path)).size,
      },
      params: { compression: job.level, format: 'jpeg' },
      workDir,
      signal: job.run.signal,
      wantMetadata: false,
    });
    if (result.format !== 'jpeg') return undefined;
    // The dictionary is rewritten with the target size and the image's colour space: a grey image must come
    // back as a one-channel JPEG, and no step may have turned or cropped it.
    const written = await sharp(result.path).metadata();
    const same =
      written.channels === components && written.width === target.width && written.height === target.height;
    return same ? result.path : undefined;
  } catch (error) {
    // An image the image processor refuses stays as it is; aborts and missing tools end the job.
    if (job.run.signal.aborted || !(error instanceof PressoError) || error.statusCode !== 422) throw error;
    return undefined;
  }
}

/** An APP14 "Adobe" segment among the JPEG's header segments (libjpeg's `saw_Adobe_marker`). */
function hasAdobeMarker(jpeg: Buffer): boolean {
  let at = 2;
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff) {
    const marker = jpeg[at + 1];
    if (marker === 0xda) return false; // start of scan: no more header segments
    const length = jpeg.readUInt16BE(at + 2);
    if (marker === 0xee && jpeg.toString('latin1', at + 4, at + 9) === 'Adobe') return true;
    at += 2 + length;
  }
  return false;
}
