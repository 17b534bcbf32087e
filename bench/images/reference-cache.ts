/**
 * Before/after of a change to the image search (first used for issue 25's prepared reference): one
 * request per child process through `createImageProcessor`, printing per request its CPU (the process's
 * `process.cpuUsage()`: every thread, libvips' and the encoders' included), wall time, output bytes and
 * the output's sha256, as one JSON line each. `--root DIR` runs another checkout's processor (a `git
 * archive` of the commit before, with its own addon built by its scripts/setup.sh), so both sides run the
 * same inputs in turn on the same machine; compare the sha256 columns for "same output bytes".
 *
 *   node bench/images/reference-cache.ts [--root DIR] [--set bytes|cpu] [--repeat N]
 *
 * Sets: `cpu` = the Canon photo at 1280×960 and 640×480 and a 2400×1800 copy of the forensics phone photo,
 * at `high` as JPEG, WebP and AVIF; `bytes` = six corpus images (photos, a PNG, two with alpha) at
 * medium, high and ultra as JPEG, WebP, AVIF, PNG and auto.
 */

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { detectFile } from '../../src/media/detect.ts';
import { corpus } from '../../test/support/corpus.ts';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

/** Child: one request of `root`'s processor; prints {cpuMs, wallMs, bytes, sha256, format}. */
async function runOne(root: string, input: string, format: string, level: string): Promise<void> {
  const url = pathToFileURL(join(root, 'src/processors/image/image-processor.ts')).href;
  const { createImageProcessor } = (await import(
    url
  )) as typeof import('../../src/processors/image/image-processor.ts');
  // No wall-clock budget may cut a search short: results must not depend on the load.
  const processor = createImageProcessor({ timeBudgetMs: 30 * 60_000, timeFloorMs: 30 * 60_000 });
  const detected = await detectFile(input);
  if (detected === undefined) throw new Error(`not an image: ${input}`);
  const workDir = mkdtempSync(join(tmpdir(), 'presso-refcache-'));
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await processor.process({
    input: { ...detected, path: input, name: basename(input), size: statSync(input).size },
    params: { format, compression: level },
    workDir,
    signal: new AbortController().signal,
    wantMetadata: false,
  });
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const bytes = readFileSync(result.path);
  rmSync(workDir, { recursive: true, force: true });
  const sha256 = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const cpuMs = (used.user + used.system) / 1000;
  console.log(JSON.stringify({ cpuMs, wallMs, bytes: bytes.length, sha256, format: result.format }));
}

/** The derived inputs, made once: the Canon photo at 640×480 (as profile.ts makes it) and the phone photo. */
async function inputs(): Promise<{ canon640: string; phone: string }> {
  const dir = join(tmpdir(), 'presso-refcache-inputs');
  mkdirSync(dir, { recursive: true });
  const canon640 = join(dir, 'canon-640.jpg');
  const phone = join(dir, 'phone-2400.jpg');
  if (!existsSync(canon640))
    await sharp(corpus.canonPhoto).resize(640).jpeg({ quality: 95 }).toFile(canon640);
  if (!existsSync(phone))
    await sharp(corpus.gpsPhoto).autoOrient().resize(2400).jpeg({ quality: 92 }).toFile(phone);
  return { canon640, phone };
}

async function main(): Promise<void> {
  const root = resolve(option('--root') ?? resolve(import.meta.dirname, '../..'));
  const set = option('--set') ?? 'cpu';
  const repeat = Number(option('--repeat') ?? 1);
  const { canon640, phone } = await inputs();
  const cases: { name: string; path: string; formats: string[]; levels: string[] }[] =
    set === 'cpu'
      ? [
          { name: 'canon 640×480', path: canon640, formats: ['jpeg', 'webp', 'avif'], levels: ['high'] },
          {
            name: 'canon 1280×960',
            path: corpus.canonPhoto,
            formats: ['jpeg', 'webp', 'avif'],
            levels: ['high'],
          },
          { name: 'phone 2400×1800', path: phone, formats: ['jpeg', 'webp', 'avif'], levels: ['high'] },
        ]
      : [
          corpus.canonPhoto,
          canon640,
          corpus.astronaut,
          corpus.chelsea,
          corpus.alphaPng,
          corpus.alphaIllustration,
        ].map((path) => ({
          name: basename(path),
          path,
          formats: ['jpeg', 'webp', 'avif', 'png', 'auto'],
          levels: ['medium', 'high', 'ultra'],
        }));
  for (let r = 0; r < repeat; r++)
    for (const c of cases)
      for (const level of c.levels)
        for (const format of c.formats) {
          const line = execFileSync(
            process.execPath,
            [import.meta.filename, '--child', root, c.path, format, level],
            { encoding: 'utf8', maxBuffer: 1 << 20 },
          );
          const load = loadavg()[0]!.toFixed(1);
          const result = JSON.parse(line.trim().split('\n').pop()!);
          console.log(JSON.stringify({ image: c.name, level, format, ...result, load }));
        }
}

if (args[0] === '--child') await runOne(args[1]!, args[2]!, args[3]!, args[4]!);
else await main();
