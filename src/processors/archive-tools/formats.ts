/**
 * Archive formats as a container (ZIP, 7z, TAR, or a bare stream) and an optional single-stream compressor
 * (gzip, bzip2, xz, zstd), with the command that writes each compressor per level. Levels never lose a
 * byte of any member (a repack is lossless); they choose how hard the compressor works.
 */

/** Re-pack effort; with `deep`, also the level members are processed at. */
export const ARCHIVE_LEVELS = ['medium', 'high', 'ultra', 'lossless'] as const;
export type ArchiveLevel = (typeof ARCHIVE_LEVELS)[number];

export type Compressor = 'gz' | 'bz2' | 'xz' | 'zst';
export type Container = 'zip' | '7z' | 'tar' | 'stream';

export interface ArchiveFormat {
  container: Container;
  compressor: Compressor | undefined;
}

export const ARCHIVE_FORMATS = [
  'zip',
  '7z',
  'tar',
  'tar.gz',
  'tar.bz2',
  'tar.xz',
  'tar.zst',
  'gz',
  'bz2',
  'xz',
  'zst',
] as const;
export type ArchiveFormatName = (typeof ARCHIVE_FORMATS)[number];

const COMPRESSORS: readonly string[] = ['gz', 'bz2', 'xz', 'zst'];

export function parseFormat(name: string): ArchiveFormat {
  if (name === 'zip' || name === '7z' || name === 'tar') return { container: name, compressor: undefined };
  if (name.startsWith('tar.')) return { container: 'tar', compressor: name.slice(4) as Compressor };
  if (COMPRESSORS.includes(name)) return { container: 'stream', compressor: name as Compressor };
  throw new Error(`not an archive format: ${name}`);
}

export function formatName({ container, compressor }: ArchiveFormat): ArchiveFormatName {
  if (container === 'stream') return compressor as ArchiveFormatName;
  if (container === 'tar' && compressor !== undefined) return `tar.${compressor}` as ArchiveFormatName;
  return container as ArchiveFormatName;
}

/** The command that decompresses `compressor`'s stream to stdout. */
export function decompressCommand(compressor: Compressor, input: string): [string, string[]] {
  const tool = { gz: 'gzip', bz2: 'bzip2', xz: 'xz', zst: 'zstd' }[compressor];
  return [tool, ['-d', '-c', '--', input]];
}

/**
 * zopfli is deflate's strongest encoder (3-8 % below gzip -9) but runs at about 1 MB/s: it is used only
 * up to this many input bytes, gzip -9 above.
 */
export const ZOPFLI_MAX_BYTES = 32 * 1024 ** 2;

/**
 * The command that compresses `input` to stdout. Fixed thread counts and no names or times in headers:
 * the same input gives the same bytes on every machine.
 */
export function compressCommand(
  compressor: Compressor,
  level: ArchiveLevel,
  input: string,
  inputBytes: number,
): [string, string[]] {
  const strong = level !== 'medium';
  switch (compressor) {
    case 'gz':
      if (strong && inputBytes <= ZOPFLI_MAX_BYTES) {
        return ['zopfli', [level === 'ultra' ? '--i15' : '--i5', '-c', '--', input]];
      }
      return ['gzip', ['-9', '-n', '-c', '--', input]];
    case 'bz2':
      return ['bzip2', ['-9', '-c', '--', input]];
    case 'xz':
      return ['xz', [strong ? '-9e' : '-9', '-T1', '-c', '--', input]];
    case 'zst':
      // --long=27: a 128 MiB window, which every zstd decoder accepts without a flag.
      return [
        'zstd',
        strong
          ? ['--ultra', '-22', '--long=27', '-T1', '-q', '-c', '--', input]
          : ['-19', '-T1', '-q', '-c', '--', input],
      ];
  }
}
