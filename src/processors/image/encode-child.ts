/**
 * The image encoder's child process: one whole-image encode of a large image, and the score of its
 * output, outside the service process (encode-process.ts starts it through the shared tool runner, in
 * the sandbox, with its own memory limit). It builds the very pipeline the service would (pipeline.ts,
 * from the same source file and options) and encodes it with the same encoder settings (encoders.ts),
 * and scores the output on the whole image with the same metric (quality/whole-score.ts) against the
 * reference it decodes from that pipeline: the bytes and the score are those of the in-process path.
 *   node encode-child.ts <job.json>  → {"size": bytes, "score": number | null}
 * A refusal of the input is {"error": public message}; anything else exits non-zero (the runner turns
 * that into a 422 naming the image encoder).
 */

import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import sharp from 'sharp';
import { PressoError } from '../../errors/catalog.ts';
import { Deadline } from '../shared/deadline.ts';
import { decodeRgb } from '../shared/metric/pixels.ts';
import { type ChildEncodeJob, OUT_OF_MEMORY, parseJob } from './encode-job.ts';
import { applyEncoder } from './encoders.ts';
import { buildPipeline } from './pipeline.ts';
import { toInputError } from './pipeline-errors.ts';
import { referencePixels, scoreWholeOutput } from './quality/whole-score.ts';

// As in the service (image-processor.ts): libvips on every core, no cache.
sharp.concurrency(os.availableParallelism());
sharp.cache(false);

async function encode(job: ChildEncodeJob): Promise<{ size: number; score: number | null }> {
  const { source, pipeline, format, encode: options, output, score } = job;
  const deadline = new Deadline(pipeline.remainingMs, 'the image');
  const image = buildPipeline(
    { ...source, inputMeta: source.meta, svg: undefined },
    { ...pipeline, deadline },
  );
  const buffer = await applyEncoder(image, format, options).toBuffer();
  await writeFile(output, buffer);
  if (score === undefined) return { size: buffer.length, score: null };
  const reference = await referencePixels(image, score.flatten);
  return { size: buffer.length, score: await scoreWholeOutput(reference, await decodeRgb(buffer)) };
}

/** The reply to a failure: a refusal or an exhausted memory limit as JSON, anything else on stderr. */
function fail(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  // Not the input's fault, whatever libvips adds to it: the service words it (encode-process.ts).
  if (OUT_OF_MEMORY.test(message)) {
    process.stdout.write(`${JSON.stringify({ error: message.split('\n')[0], outOfMemory: true })}\n`);
    return;
  }
  const refusal = toInputError(error);
  if (refusal instanceof PressoError) {
    process.stdout.write(`${JSON.stringify({ error: refusal.message })}\n`);
    return;
  }
  // The runner reports the last stderr line (without paths); make it the reason, not a stack frame.
  process.stderr.write(
    `${error instanceof Error ? error.stack : String(error)}\n${String(refusal.message)}\n`,
  );
  process.exitCode = 1;
}

try {
  const job = parseJob(await readFile(process.argv[2] ?? '', 'utf8'));
  process.stdout.write(`${JSON.stringify(await encode(job))}\n`);
} catch (error) {
  fail(error);
}
