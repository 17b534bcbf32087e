/**
 * Decoding, geometry, colour and output metadata: builds the sharp pipeline every output format is
 * encoded from. Each call decodes anew, so several output formats can be tried from the same input.
 */
import exifReader from 'exif-reader';
import sharp, { type Sharp } from 'sharp';
import type { Deadline } from '../shared/deadline.ts';
import { roundedTo8Bits } from '../shared/metric/pixels.ts';
import type { ImageLimits } from './config.ts';
import { applyGeometry } from './geometry.ts';
import { elementText, withoutTrailingNuls } from './metadata-text.ts';
import type { CompressionLevel, GeometryRequest, MetadataMode } from './params.ts';
import { type ImageSource, safetyOptions } from './source.ts';

export interface PipelineOptions {
  limits: ImageLimits;
  deadline: Deadline;
  /** Decode all frames (only when the output format can hold them). */
  animated: boolean;
  geometry: GeometryRequest;
  level: CompressionLevel;
  metadata: MetadataMode;
  /** The output format keeps alpha. */
  alphaOutput: boolean;
  /** The output format can store 16 bits per channel (PNG, TIFF, the PNG that feeds cjxl). */
  deepOutput: boolean;
}

export function buildPipeline(source: ImageSource, options: PipelineOptions): Sharp {
  const animated = options.animated && source.animated;
  let pipeline = sharp(source.path, { ...safetyOptions(options.limits), ...source.open, animated });
  // The whole job shares one budget; libvips stops a pipeline that runs past it.
  pipeline = pipeline.timeout({ seconds: options.deadline.remainingSeconds() });
  pipeline = applyGeometry(pipeline, source, options.geometry, {
    animated,
    alphaOutput: options.alphaOutput,
  });
  pipeline = applyColour(pipeline, source, options);
  return applyMetadata(pipeline, source, options.metadata);
}

function applyColour(pipeline: Sharp, source: ImageSource, options: PipelineOptions): Sharp {
  const { meta } = source;
  const grey = meta.space === 'b-w' || meta.space === 'grey16';
  // 16 bits survive only where nothing is lost anyway: lossless output in a format that stores them.
  const deep =
    options.level === 'lossless' &&
    options.deepOutput &&
    (meta.depth === 'ushort' || meta.space === 'rgb16' || meta.space === 'grey16');
  if (options.metadata === 'keep' && meta.icc !== undefined && meta.space !== 'cmyk') {
    // Kept profile: the pixels stay in its colour space and the profile goes with them.
    return deep ? pipeline.toColourspace(grey ? 'grey16' : 'rgb16') : pipeline;
  }
  // Output is sRGB: embedded profiles and CMYK are converted so the file shows the same colours without
  // them. Greyscale stays single-channel (smaller).
  if (deep) return pipeline.toColourspace(grey ? 'grey16' : 'rgb16');
  if (grey) return meta.space === 'grey16' ? roundedTo8Bits(pipeline, meta).toColourspace('b-w') : pipeline;
  return roundedTo8Bits(pipeline, meta).toColourspace('srgb');
}

function applyMetadata(pipeline: Sharp, source: ImageSource, mode: MetadataMode): Sharp {
  if (mode === 'strip') return pipeline;
  const { meta } = source;
  if (mode === 'keep') {
    // CMYK profiles cannot describe the sRGB pixels written: keep the rest and tag the pixels sRGB.
    if (meta.space === 'cmyk') return pipeline.keepExif().keepXmp().withIccProfile('srgb');
    // sharp resets the EXIF Orientation to 1 when the pixels are oriented.
    return pipeline.keepMetadata();
  }
  const owner = copyrightOf(meta.exif, meta.xmp);
  if (owner.copyright !== undefined || owner.artist !== undefined) {
    const ifd0: Record<string, string> = {};
    if (owner.copyright !== undefined) ifd0.Copyright = owner.copyright;
    if (owner.artist !== undefined) ifd0.Artist = owner.artist;
    pipeline = pipeline.withExif({ IFD0: ifd0 }).withXmp(copyrightXmp(owner));
  }
  return pipeline;
}

export interface Ownership {
  copyright: string | undefined;
  artist: string | undefined;
}

/** Copyright and creator from EXIF (IFD0 Copyright/Artist), else from XMP (dc:rights/dc:creator). */
export function copyrightOf(exif: Buffer | undefined, xmp: Buffer | undefined): Ownership {
  let copyright: string | undefined;
  let artist: string | undefined;
  if (exif !== undefined && exif.length > 0) {
    try {
      const image = exifReader(exif).Image ?? {};
      copyright = cleanText(image.Copyright);
      artist = cleanText(image.Artist);
    } catch {
      // Broken EXIF: nothing to keep from it.
    }
  }
  const text = xmp?.toString('utf8') ?? '';
  copyright ??= cleanText(firstLi(text, 'dc:rights'));
  artist ??= cleanText(firstLi(text, 'dc:creator'));
  return { copyright, artist };
}

function cleanText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = withoutTrailingNuls(value).trim();
  return text === '' ? undefined : text;
}

function firstLi(xmp: string, element: string): string | undefined {
  const block = elementText(xmp, element);
  const li = block === undefined ? undefined : elementText(block, 'rdf:li');
  return li === undefined ? undefined : decodeXml(li);
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decodeXml = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => XML_ENTITIES[e] ?? '');
const encodeXml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => `&${Object.entries(XML_ENTITIES).find(([, v]) => v === c)?.[0]};`);

function copyrightXmp({ copyright, artist }: Ownership): string {
  const rights =
    copyright === undefined
      ? ''
      : `<dc:rights><rdf:Alt><rdf:li xml:lang="x-default">${encodeXml(copyright)}</rdf:li></rdf:Alt></dc:rights>`;
  const creator =
    artist === undefined
      ? ''
      : `<dc:creator><rdf:Seq><rdf:li>${encodeXml(artist)}</rdf:li></rdf:Seq></dc:creator>`;
  return (
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    `<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">${rights}${creator}` +
    '</rdf:Description></rdf:RDF></x:xmpmeta>'
  );
}
