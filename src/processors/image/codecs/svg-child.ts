/**
 * The SVG child process: the SVG work that cannot be interrupted in-process (svgo on the main thread
 * blocked every request; librsvg draws a document in one call) runs here, started by svg-process.ts
 * through the shared tool runner, which kills it at the deadline or on abort. Commands:
 *   sanitise <in.svg> <out.svg> <optimise 0|1>  → {"meta": sharp's header, "filters": FilterLoad}
 *   render <in.svg> <out.png> <density> <max pixels>  → {}
 * It answers one JSON line on stdout; a refusal of the input is {"error": public message}, and anything
 * else exits non-zero (the runner turns that into a 422 naming the SVG processor).
 */
import { readFile, writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { PressoError } from '../../../errors/catalog.ts';
import { toInputError } from '../pipeline-errors.ts';

// One job's SVG per process: no cache to keep, no thread pool to share.
sharp.cache(false);
sharp.concurrency(1);

async function sanitise(input: string, output: string, optimise: string): Promise<object> {
  // svgo is loaded only here: it is most of a child's start (~0.25 of ~0.35 CPU-s), and a render never uses it.
  const { sanitiseSvg } = await import('./svg.ts');
  const { svg, filters } = sanitiseSvg(await readFile(input, 'utf8'), optimise === '1');
  await writeFile(output, svg);
  const meta = await sharp(output, { limitInputPixels: false }).metadata();
  return { meta, filters };
}

async function render(input: string, output: string, density: string, maxPixels: string): Promise<object> {
  const dpi = Number(density);
  await sharp(input, {
    failOn: 'error',
    limitInputPixels: Number(maxPixels),
    ...(dpi === 72 ? {} : { density: dpi }),
  })
    .png({ compressionLevel: 1 })
    .toFile(output);
  return {};
}

async function main(args: string[]): Promise<object> {
  const [command, a = '', b = '', c = '', d = ''] = args;
  if (command === 'sanitise') return sanitise(a, b, c);
  if (command === 'render') return render(a, b, c, d);
  throw new Error(`svg-child: unknown command ${command}`);
}

try {
  process.stdout.write(`${JSON.stringify(await main(process.argv.slice(2)))}\n`);
} catch (error) {
  const refusal = toInputError(error);
  if (refusal instanceof PressoError) {
    process.stdout.write(`${JSON.stringify({ error: refusal.message })}\n`);
  } else {
    // The runner reports the last stderr line (without paths); make it the reason, not a stack frame.
    process.stderr.write(
      `${error instanceof Error ? error.stack : String(error)}\n${String(refusal.message)}\n`,
    );
    process.exitCode = 1;
  }
}
