/**
 * The real encoders that distort the metric's reference pairs (bench/metric/make-pairs.ts): mozjpeg through
 * sharp (kept as the .jpg), cwebp and avifenc (decoded by sharp and kept as PNG: the reference tool cannot
 * read WebP or AVIF, and both sides must score the same pixels), pngquant (kept as its PNG).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';

export type Distortion = {
  name: string;
  made: string;
  make: (png: Buffer) => Promise<Buffer>;
  ext: 'png' | 'jpg';
};

const work = mkdtempSync(join(tmpdir(), 'presso-pairs-'));
export const run = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
export const toPng = (input: Buffer) => sharp(input).png({ compressionLevel: 9 }).toBuffer();

function viaFile(ext: string, command: (input: string, output: string) => [string, string[]]) {
  return async (png: Buffer) => {
    const input = join(work, 'in.png');
    const output = join(work, `out.${ext}`);
    writeFileSync(input, png);
    const [cmd, args] = command(input, output);
    run(cmd, args);
    return toPng(readFileSync(output));
  };
}

export const jpeg = (quality: number, chroma: '4:2:0' | '4:4:4' = '4:2:0'): Distortion => ({
  name: `mozjpeg-q${quality}${chroma === '4:4:4' ? '-444' : ''}`,
  made: `sharp mozjpeg quality ${quality}, ${chroma}`,
  ext: 'jpg',
  make: (png) =>
    sharp(png)
      .flatten({ background: '#ffffff' })
      .jpeg({ quality, mozjpeg: true, chromaSubsampling: chroma })
      .toBuffer(),
});
export const webp = (q: number): Distortion => ({
  name: `cwebp-q${q}`,
  made: `cwebp -q ${q}, decoded to PNG by sharp`,
  ext: 'png',
  make: viaFile('webp', (i, o) => ['cwebp', ['-quiet', '-q', String(q), i, '-o', o]]),
});
export const avif = (q: number): Distortion => ({
  name: `avifenc-q${q}`,
  made: `avifenc --min ${q} --max ${q} -s 6, decoded to PNG by sharp`,
  ext: 'png',
  make: viaFile('avif', (i, o) => [
    'avifenc',
    ['-j', '1', '-s', '6', '--min', String(q), '--max', String(q), i, o],
  ]),
});
export const pngquant = (colours: number): Distortion => ({
  name: `pngquant-${colours}`,
  made: `pngquant --speed 3 ${colours}`,
  ext: 'png',
  make: async (png) => execFileSync('pngquant', ['--speed', '3', String(colours), '-'], { input: png }),
});

/** Removes the scratch directory of the encoders' files. */
export const cleanUp = () => rmSync(work, { recursive: true, force: true });
