/**
 * The formats the service names in file descriptors: the kind (`type`), canonical extension and MIME
 * type of each. Processors declare which of these they read and write.
 */

export const FILE_KINDS = ['image', 'video', 'audio', 'pdf', 'document', 'archive', 'bundle'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export interface FormatInfo {
  kind: FileKind;
  mime: string;
  /** Canonical extension used for output names (`image.jpg` in gives `image.jpeg` out). */
  extension: string;
}

export const FORMATS: Record<string, FormatInfo> = {
  jpeg: { kind: 'image', mime: 'image/jpeg', extension: 'jpeg' },
  png: { kind: 'image', mime: 'image/png', extension: 'png' },
  webp: { kind: 'image', mime: 'image/webp', extension: 'webp' },
  avif: { kind: 'image', mime: 'image/avif', extension: 'avif' },
  heic: { kind: 'image', mime: 'image/heic', extension: 'heic' },
  gif: { kind: 'image', mime: 'image/gif', extension: 'gif' },
  tiff: { kind: 'image', mime: 'image/tiff', extension: 'tiff' },
  bmp: { kind: 'image', mime: 'image/bmp', extension: 'bmp' },
  ico: { kind: 'image', mime: 'image/x-icon', extension: 'ico' },
  svg: { kind: 'image', mime: 'image/svg+xml', extension: 'svg' },
  jxl: { kind: 'image', mime: 'image/jxl', extension: 'jxl' },
  mp4: { kind: 'video', mime: 'video/mp4', extension: 'mp4' },
  webm: { kind: 'video', mime: 'video/webm', extension: 'webm' },
  mov: { kind: 'video', mime: 'video/quicktime', extension: 'mov' },
  mkv: { kind: 'video', mime: 'video/x-matroska', extension: 'mkv' },
  avi: { kind: 'video', mime: 'video/x-msvideo', extension: 'avi' },
  mpeg: { kind: 'video', mime: 'video/mpeg', extension: 'mpeg' },
  ogv: { kind: 'video', mime: 'video/ogg', extension: 'ogv' },
  flv: { kind: 'video', mime: 'video/x-flv', extension: 'flv' },
  '3gp': { kind: 'video', mime: 'video/3gpp', extension: '3gp' },
  mpegts: { kind: 'video', mime: 'video/mp2t', extension: 'ts' },
  wmv: { kind: 'video', mime: 'video/x-ms-wmv', extension: 'wmv' },
  mp3: { kind: 'audio', mime: 'audio/mpeg', extension: 'mp3' },
  wav: { kind: 'audio', mime: 'audio/wav', extension: 'wav' },
  ogg: { kind: 'audio', mime: 'audio/ogg', extension: 'ogg' },
  opus: { kind: 'audio', mime: 'audio/opus', extension: 'opus' },
  flac: { kind: 'audio', mime: 'audio/flac', extension: 'flac' },
  m4a: { kind: 'audio', mime: 'audio/mp4', extension: 'm4a' },
  aac: { kind: 'audio', mime: 'audio/aac', extension: 'aac' },
  aiff: { kind: 'audio', mime: 'audio/aiff', extension: 'aiff' },
  wma: { kind: 'audio', mime: 'audio/x-ms-wma', extension: 'wma' },
  // Audio-only WebM and Matroska: the magic bytes say video; the video processor's look inside says audio.
  weba: { kind: 'audio', mime: 'audio/webm', extension: 'weba' },
  mka: { kind: 'audio', mime: 'audio/x-matroska', extension: 'mka' },
  pdf: { kind: 'pdf', mime: 'application/pdf', extension: 'pdf' },
  docx: {
    kind: 'document',
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extension: 'docx',
  },
  xlsx: {
    kind: 'document',
    mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extension: 'xlsx',
  },
  pptx: {
    kind: 'document',
    mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    extension: 'pptx',
  },
  odt: { kind: 'document', mime: 'application/vnd.oasis.opendocument.text', extension: 'odt' },
  ods: { kind: 'document', mime: 'application/vnd.oasis.opendocument.spreadsheet', extension: 'ods' },
  odp: { kind: 'document', mime: 'application/vnd.oasis.opendocument.presentation', extension: 'odp' },
  doc: { kind: 'document', mime: 'application/msword', extension: 'doc' },
  xls: { kind: 'document', mime: 'application/vnd.ms-excel', extension: 'xls' },
  ppt: { kind: 'document', mime: 'application/vnd.ms-powerpoint', extension: 'ppt' },
  rtf: { kind: 'document', mime: 'application/rtf', extension: 'rtf' },
  zip: { kind: 'archive', mime: 'application/zip', extension: 'zip' },
  tar: { kind: 'archive', mime: 'application/x-tar', extension: 'tar' },
  gz: { kind: 'archive', mime: 'application/gzip', extension: 'gz' },
  bz2: { kind: 'archive', mime: 'application/x-bzip2', extension: 'bz2' },
  xz: { kind: 'archive', mime: 'application/x-xz', extension: 'xz' },
  zst: { kind: 'archive', mime: 'application/zstd', extension: 'zst' },
  // A TAR inside a single-stream compressor: content detection reports the compressor (`gz`), the archive
  // processor looks inside and names the pair.
  'tar.gz': { kind: 'archive', mime: 'application/gzip', extension: 'tar.gz' },
  'tar.bz2': { kind: 'archive', mime: 'application/x-bzip2', extension: 'tar.bz2' },
  'tar.xz': { kind: 'archive', mime: 'application/x-xz', extension: 'tar.xz' },
  'tar.zst': { kind: 'archive', mime: 'application/zstd', extension: 'tar.zst' },
  '7z': { kind: 'archive', mime: 'application/x-7z-compressed', extension: '7z' },
  // A website: a ZIP whose root (or single top folder) holds index.html (detect.ts).
  bundle: { kind: 'bundle', mime: 'application/zip', extension: 'zip' },
};

/** Compound and short names of compressed TARs, removed whole when an output is named. */
const TAR_SUFFIXES = /\.(tar\.(gz|bz2|xz|zst)|tgz|tbz2?|txz|tzst)$/i;

export function formatInfo(format: string): FormatInfo | undefined {
  return Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
}

/** `photo.jpg` + `jpeg` → `photo.jpeg`. Names without an extension get one appended. */
export function outputName(inputName: string, format: string): string {
  const ext = formatInfo(format)?.extension ?? format;
  const tar = TAR_SUFFIXES.exec(inputName);
  if (tar !== null && tar.index > 0) return `${inputName.slice(0, tar.index)}.${ext}`;
  const dot = inputName.lastIndexOf('.');
  const base = dot > 0 ? inputName.slice(0, dot) : inputName;
  return `${base}.${ext}`;
}

/** File names come from clients: keep a safe base name for paths, URLs and headers. */
export function safeFileName(name: string | undefined, fallback = 'file'): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}._ -]+/gu, '_')
    .replace(/^[.\s]+/, '')
    .slice(0, 200)
    .trim();
  return cleaned === '' ? fallback : cleaned;
}
