/**
 * File-kind detection from content only (magic bytes), never from the name or the declared MIME type.
 * file-type recognises binary containers; text formats it cannot see (SVG) are sniffed here.
 */
import { open } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import { legacyOfficeFormat } from './cfb.ts';
import { type FileKind, formatInfo } from './formats.ts';
import { isSiteZip } from './zip-site.ts';

export interface DetectedFile {
  kind: FileKind;
  format: string;
  mime: string;
}

/**
 * file-type extension → our format name. Extensions missing here (exe, psd, xcf, rar, ...) are formats no
 * processor handles: they stay unknown. Compound files (`cfb`) are told apart by cfb.ts.
 */
const FORMAT_BY_EXTENSION: Readonly<Record<string, string>> = {
  jpg: 'jpeg',
  png: 'png',
  apng: 'png',
  gif: 'gif',
  webp: 'webp',
  avif: 'avif',
  heic: 'heic', // file-type reports HEIF stills (image/heif) under `heic` too
  jxl: 'jxl',
  tif: 'tiff',
  bmp: 'bmp',
  ico: 'ico',
  cur: 'ico',
  mp4: 'mp4',
  m4v: 'mp4',
  mov: 'mov',
  webm: 'webm',
  mkv: 'mkv',
  avi: 'avi',
  mpg: 'mpeg',
  ogv: 'ogv',
  flv: 'flv',
  '3gp': '3gp',
  mts: 'mpegts',
  mp3: 'mp3',
  wav: 'wav',
  ogg: 'ogg',
  oga: 'ogg',
  opus: 'opus',
  flac: 'flac',
  m4a: 'm4a',
  aac: 'aac',
  aif: 'aiff',
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  pptx: 'pptx',
  odt: 'odt',
  ods: 'ods',
  odp: 'odp',
  rtf: 'rtf',
  zip: 'zip',
  tar: 'tar',
  gz: 'gz',
  'tar.gz': 'gz',
  bz2: 'bz2',
  xz: 'xz',
  zst: 'zst',
  '7z': '7z',
};

/** SVG files put at most a BOM, an XML declaration, comments and a doctype before the root element. */
const SVG_SNIFF_BYTES = 4096;

export async function detectFile(path: string): Promise<DetectedFile | undefined> {
  const found = await fileTypeFromFile(path);
  // DOC, XLS and PPT are OLE2 compound files: the flavour is a stream name inside.
  if (found?.ext === 'cfb') {
    const legacy = await legacyOfficeFormat(path);
    return legacy === undefined ? undefined : describe(legacy);
  }
  if (found !== undefined && found.ext !== 'xml') {
    // An Ogg container with a video stream is reported as `ogv` / `video/ogg`; everything else Ogg is audio.
    const name =
      found.mime.startsWith('video/') && found.ext === 'ogg' ? 'ogv' : formatOf(found.ext, found.mime);
    if (name === 'zip' && (await isSiteZip(path))) return describe('bundle');
    return name === undefined ? undefined : describe(name);
  }
  // file-type returns nothing (or `xml` when a declaration is present) for SVG.
  return (await looksLikeSvg(path)) ? describe('svg') : undefined;
}

/** ASF is WMV or WMA: file-type tells them apart by the stream types in the header (its MIME type). */
function formatOf(ext: string, mime: string): string | undefined {
  if (ext === 'asf') return mime.startsWith('audio/') ? 'wma' : 'wmv';
  return Object.hasOwn(FORMAT_BY_EXTENSION, ext) ? FORMAT_BY_EXTENSION[ext] : undefined;
}

function describe(format: string): DetectedFile | undefined {
  const info = formatInfo(format);
  return info === undefined ? undefined : { kind: info.kind, format, mime: info.mime };
}

async function looksLikeSvg(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SVG_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SVG_SNIFF_BYTES, 0);
    return isSvgText(buffer.subarray(0, bytesRead).toString('utf8'));
  } finally {
    await handle.close();
  }
}

/**
 * A doctype with an optional internal subset, as `/^<!DOCTYPE\s[^[>]*(\[[\s\S]*?\])?\s*>/i` read it (that
 * pattern backtracked quadratically on a run of spaces): its length at the start of `text`, else 0.
 */
export function doctypeLength(text: string): number {
  const letters = '<!doctype';
  for (let i = 2; i < letters.length; i++) {
    if ((text.charCodeAt(i) | 0x20) !== letters.charCodeAt(i)) return 0;
  }
  if (!text.startsWith('<!') || text.length <= 9 || text[9]!.trim() !== '') return 0;
  let stop = 10;
  while (stop < text.length && text[stop] !== '[' && text[stop] !== '>') stop++;
  if (text[stop] === '>') return stop + 1;
  if (text[stop] !== '[') return 0;
  // The subset ends at the first `]` followed by spaces and `>`.
  for (let close = text.indexOf(']', stop + 1); close !== -1; close = text.indexOf(']', close + 1)) {
    let end = close + 1;
    while (end < text.length && text[end]!.trim() === '') end++;
    if (text[end] === '>') return end + 1;
  }
  return 0;
}

/** Prolog items allowed before the root element, each the length it takes at the start of the text. */
const PROLOG_ITEMS: ((text: string) => number)[] = [
  (text) => /^\s+/.exec(text)?.[0].length ?? 0, // whitespace
  (text) => /^<\?xml[\s\S]*?\?>/.exec(text)?.[0].length ?? 0, // XML declaration and processing instructions (stylesheets)
  (text) => /^<\?[\s\S]*?\?>/.exec(text)?.[0].length ?? 0,
  (text) => /^<!--[\s\S]*?-->/.exec(text)?.[0].length ?? 0, // comments (editors put generator banners here)
  doctypeLength,
];

/** True when `text` (the file's first bytes) is an XML document whose root element is `<svg>`. */
export function isSvgText(text: string): boolean {
  let rest = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (let consumed = true; consumed; ) {
    consumed = false;
    for (const item of PROLOG_ITEMS) {
      const length = item(rest);
      if (length > 0) {
        rest = rest.slice(length);
        consumed = true;
      }
    }
  }
  return /^<svg[\s>/]/.test(rest);
}
