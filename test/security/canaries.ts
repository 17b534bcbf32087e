/**
 * Canaries: files with random content planted where no job may read (the server's data directory,
 * `/etc`, another job's folder), and the check that an output or a message holds none of them, looking
 * inside what compression would hide (archive members, PDF streams).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Canary, CanaryTargets } from './hostile-inputs.ts';

function token(): string {
  return `PRESSO-CANARY-${randomBytes(12).toString('hex')}`;
}

function plantText(path: string): Canary {
  const canary = { path, token: token() };
  writeFileSync(path, `${canary.token}\n`);
  return canary;
}

/**
 * The JPEG canary's colour: nothing else a hostile input draws has it, so a render that shows it drew
 * the canary (a re-encoded picture keeps no byte of the file, only its pixels).
 */
const CANARY_RGB = [192, 64, 48] as const;

/** A small JPEG of `CANARY_RGB` whose comment segment (COM, kept by a pass-through) holds the token. */
async function plantJpeg(path: string): Promise<Canary> {
  const canary = { path, token: token() };
  const [r, g, b] = CANARY_RGB;
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r, g, b } } })
    .jpeg({ quality: 90 })
    .toBuffer();
  const comment = Buffer.from(canary.token, 'latin1');
  const segment = Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), comment]);
  segment.writeUInt16BE(comment.length + 2, 2);
  writeFileSync(path, Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)]));
  return canary;
}

/** Plants every canary; `dataDir` is the server's, and its `work` folder must exist (the server started). */
export async function plantCanaries(dataDir: string): Promise<CanaryTargets> {
  const suffix = randomBytes(6).toString('hex');
  const otherJob = join(dataDir, 'work', `other-job-${suffix}`);
  mkdirSync(otherJob, { recursive: true });
  return {
    dataDir: plantText(join(dataDir, `canary-${suffix}.txt`)),
    dataDirJpeg: await plantJpeg(join(dataDir, `canary-${suffix}.jpg`)),
    etc: plantText(join('/etc', `presso-canary-${suffix}.txt`)),
    otherJob: plantText(join(otherJob, `canary-${suffix}.txt`)),
    dataDirPath: dataDir,
  };
}

export function removeCanaries(targets: CanaryTargets | undefined): void {
  if (targets === undefined) return;
  for (const canary of [targets.dataDir, targets.dataDirJpeg, targets.etc, targets.otherJob]) {
    rmSync(canary.path, { force: true });
  }
}

export function allCanaries(targets: CanaryTargets): Canary[] {
  return [targets.dataDir, targets.dataDirJpeg, targets.etc, targets.otherJob];
}

/**
 * The output's bytes and what compression hides in them: every member of an archive (bsdtar reads ZIP,
 * 7z, TAR and the compressed streams), every stream of a PDF uncompressed (qpdf).
 */
export function revealed(path: string, dir: string): Buffer[] {
  const views: Buffer[] = [readFileSync(path)];
  const tryTool = (command: string, args: string[]) => {
    try {
      views.push(execFileSync(command, args, { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] }));
    } catch {
      // Not that kind of file.
    }
  };
  tryTool('bsdtar', ['-xOf', path]);
  const qdf = join(dir, `${randomBytes(4).toString('hex')}.qdf`);
  tryTool('qpdf', ['--qdf', '--object-streams=disable', '--stream-data=uncompress', path, qdf]);
  if (existsSync(qdf)) views.push(readFileSync(qdf));
  return views;
}

/** The canaries found in any of `texts`. */
export function leaked(targets: CanaryTargets, texts: (Buffer | string)[]): Canary[] {
  return allCanaries(targets).filter((canary) =>
    texts.some((text) => (typeof text === 'string' ? text : text.toString('latin1')).includes(canary.token)),
  );
}

/**
 * Whether the output, drawn (a PDF's first page through pdftoppm, an image through sharp), shows the JPEG
 * canary's colour over more than a few pixels.
 */
export async function showsCanaryPixels(path: string, dir: string): Promise<boolean> {
  let image = path;
  const page = join(dir, `${randomBytes(4).toString('hex')}-page`);
  try {
    execFileSync('pdftoppm', ['-r', '36', '-f', '1', '-l', '1', '-png', '-singlefile', path, page], {
      stdio: 'ignore',
    });
    image = `${page}.png`;
  } catch {
    // Not a PDF: sharp may read it as an image.
  }
  let pixels: Buffer;
  try {
    pixels = await sharp(image).removeAlpha().toColourspace('srgb').raw().toBuffer();
  } catch {
    return false;
  }
  let matching = 0;
  for (let i = 0; i + 2 < pixels.length; i += 3) {
    if (CANARY_RGB.every((value, c) => Math.abs(pixels[i + c]! - value) <= 12)) matching++;
  }
  return matching > 16;
}
