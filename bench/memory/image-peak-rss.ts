/**
 * Peak RSS of the image processor, in-process, for the two cases the audit measured: one 7000×7000 flat
 * PNG (49 MP decoded from ~50 KB) and four 8 MP photos at once; and two 24 MP photos at once. Each case runs in a fresh process
 * (`--case png49|photos4`) so its peak is its own; run it through bench/memory/run.sh, which sets the
 * glibc variables bin/presso sets. Prints one JSON line per case: peak RSS (MB) and the outputs.
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { detectFile } from '../../src/media/detect.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { corpus } from '../../test/support/corpus.ts';

const which = process.argv[process.argv.indexOf('--case') + 1];
const inputs = join(tmpdir(), 'presso-memory-inputs');
await mkdir(inputs, { recursive: true });

/** Inputs are made in a separate process run (`--case prepare`), so their encoding is not counted. */
async function prepare(): Promise<void> {
  await sharp({ create: { width: 7000, height: 7000, channels: 3, background: '#4a7ab0' } })
    .png({ compressionLevel: 9 })
    .toFile(join(inputs, 'flat-49mp.png'));
  await sharp(corpus.gpsPhoto)
    .resize(3266, 2450)
    .jpeg({ quality: 90 })
    .toFile(join(inputs, 'photo-8mp.jpeg'));
  await sharp(corpus.gpsPhoto)
    .resize(6000, 4000, { fit: 'fill' })
    .jpeg({ quality: 90 })
    .toFile(join(inputs, 'photo-24mp.jpeg'));
}

// One processor, as in the server: concurrent jobs share its in-flight memory budget.
const processor = createImageProcessor({});

async function run(path: string, params: Record<string, unknown>) {
  const detected = await detectFile(path);
  if (detected === undefined) throw new Error(`not detected: ${path}`);
  const workDir = await mkdtemp(join(tmpdir(), 'presso-memory-'));
  try {
    const result = await processor.process({
      input: { ...detected, path, name: basename(path), size: (await stat(path)).size },
      params,
      workDir,
      signal: new AbortController().signal,
      wantMetadata: false,
    });
    return { format: result.format, bytes: (await stat(result.path)).size };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

if (which === 'prepare') {
  await prepare();
} else if (which === 'png49') {
  // `--format F --level L`: the same input to another output format or level (default: PNG, medium).
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? undefined : process.argv[at + 1];
  };
  const params = {
    ...(option('--format') === undefined ? {} : { format: option('--format') }),
    ...(option('--level') === undefined ? {} : { compression: option('--level') }),
  };
  const output = await run(join(inputs, 'flat-49mp.png'), params);
  report({ case: '49 MP flat PNG', params, output });
} else if (which === 'photos4') {
  const photo = join(inputs, 'photo-8mp.jpeg');
  const outputs = await Promise.all([0, 1, 2, 3].map(() => run(photo, {})));
  report({ case: '4 × 8 MP JPEG at once', outputs });
} else if (which === 'photos24x2') {
  // Two 24 MP photos at once: what the in-flight budget lets through when it holds one 50 MP image.
  const photo = join(inputs, 'photo-24mp.jpeg');
  const outputs = await Promise.all([0, 1].map(() => run(photo, { compression: 'high' })));
  report({ case: '2 × 24 MP JPEG at once', outputs });
} else {
  throw new Error('usage: image-peak-rss.ts --case prepare|png49 [--format F --level L]|photos4|photos24x2');
}

function report(result: Record<string, unknown>): void {
  const peakMb = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(JSON.stringify({ ...result, peakRssMb: peakMb }));
}
