/**
 * Whole-image encodes of large images in a child process (encode-child.ts), through the shared tool
 * runner: in the sandbox, seeing only the job's folder, killed at the deadline or on abort, under its own
 * memory limit (`PRESSO_IMAGE_ENCODE_CHILD_MEMORY`). An encoder's working set is the floor of the process
 * it runs in (libheif/aom takes ~960 MB for a 49 MP AVIF, libvips' GIF writer ~490 MB, the decode of a
 * 49 MP WebP output for its score ~380 MB), so above `PRESSO_IMAGE_ENCODE_IN_PROCESS` (encoder-memory.ts)
 * the service hands the encode and the output's score over and stays under its target. The quality
 * search's proxy trials are small and stay here; the child builds the same pipeline from the same source
 * and scores with the same metric, so the bytes and scores are those of the in-process path.
 */
import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { nodeChildEnvironment } from '../shared/node-child.ts';
import { runTool } from '../shared/run-tool.ts';
import { type ChildEncodeJob, OUT_OF_MEMORY, serialiseJob } from './encode-job.ts';
import type { EncodedOutput } from './encoded-output.ts';
import { encodeWorkingSet, isChildFormat, outputPixels, scoreWorkingSet } from './encoder-memory.ts';
import { canAnimate, type EncodeContext } from './encoders.ts';
import { extensionOf, type OutputContext, pipelineOptionsFor, toolRun } from './output-context.ts';
import type { RasterFormat } from './params.ts';

const CHILD = fileURLToPath(new URL('./encode-child.ts', import.meta.url));

/**
 * What the child reads of the project inside the sandbox, read-only: the source it imports, the packages
 * (sharp and its libvips), package.json (the module type) and the native metric (native/ssimulacra2).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD_FILES = ['src', 'node_modules', 'package.json', 'native'].map((name) => join(ROOT, name));

/** A whole-image encode done by the child: its output file (moved into place when kept), size and score. */
export interface ChildEncoded {
  output: EncodedOutput;
  size: number;
  /** The output's whole-image score; undefined when none was asked for. */
  score: number | undefined;
}

export interface ChildEncoder {
  /**
   * The encode with these settings (and the whole-image score of its output, when `scored`) would hold
   * more than the service may (encoder-memory.ts).
   */
  wants(options: EncodeContext, scored?: boolean): boolean;
  /** Encodes the whole image in the child, and scores it on the whole image when `score` is given. */
  encode(options: EncodeContext, score?: { flatten: boolean }): Promise<ChildEncoded>;
}

/** The child encoder of one output of `ctx`, or undefined for a format that always stays in process. */
export function childEncoder(ctx: OutputContext, format: RasterFormat): ChildEncoder | undefined {
  if (!isChildFormat(format)) return undefined;
  const { source, params, limits } = ctx;
  const frames = source.animated && canAnimate(format) ? source.frames : 1;
  const pixels = outputPixels(source.meta, frames, params);
  // What the child's pipeline reads of the source (not the input's header again, nor an SVG's text).
  const { inputMeta: _, svg: __, ...read } = source;
  /** Files written and not yet kept or removed: keeping one output removes the others (search rounds that lost). */
  const pending = new Set<string>();
  return {
    wants: (options, scored = false) =>
      Math.max(encodeWorkingSet(format, options, pixels), scored ? scoreWorkingSet(pixels) : 0) >
      limits.encodeInProcessBytes,
    async encode(options, score) {
      const output = join(ctx.request.workDir, `encode-${randomUUID()}.${extensionOf(format)}`);
      const { deadline, ...pipeline } = pipelineOptionsFor(ctx, format);
      const job: ChildEncodeJob = {
        source: read,
        // libvips' own stop comes after the runner's kill at the deadline, which reports it as such.
        pipeline: { ...pipeline, remainingMs: deadline.remainingMs() + DEADLINE_SLACK_MS },
        format,
        encode: options,
        output,
        ...(score === undefined ? {} : { score }),
      };
      const jobFile = `${output}.json`;
      await writeFile(jobFile, serialiseJob(job));
      pending.add(output);
      const need = Math.max(
        encodeWorkingSet(format, options, pixels),
        score === undefined ? 0 : scoreWorkingSet(pixels),
      );
      const reply = await runChild(jobFile, ctx, limits.encodeChildMemory, need).finally(() => rm(jobFile));
      return {
        output: {
          toFile: async (path) => {
            await rename(output, path);
            pending.delete(output);
            await Promise.all([...pending].map((other) => rm(other, { force: true })));
            pending.clear();
            return { size: reply.size };
          },
        },
        size: reply.size,
        score: reply.score ?? undefined,
      };
    },
  };
}

const DEADLINE_SLACK_MS = 5000;

/** Errors of the child (its limits, its refusal): a caller that would retry in another way does not. */
const childFailures = new WeakSet<object>();
export const isChildFailure = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && childFailures.has(error);

/**
 * RLIMIT_DATA Node takes before the encode starts (V8's heap and code ranges, sharp's libvips): an encode
 * whose working set does not fit in the rest failed for want of memory, however its library words it
 * (libaom under 900 MB: "av1_create_context_and_bufferpool() failed", or "Undefined AOM error").
 */
const CHILD_START_BYTES = 0.8 * 1024 ** 3;

async function runChild(
  jobFile: string,
  ctx: OutputContext,
  memoryBytes: number,
  need: number,
): Promise<ChildReply> {
  const tooLarge = need + CHILD_START_BYTES > memoryBytes;
  let stdout: string;
  try {
    ({ stdout } = await runTool(process.execPath, [CHILD, jobFile], toolRun(ctx), {
      label: 'The image encoder',
      captureStdout: true,
      limits: { memoryBytes },
      programFiles: CHILD_FILES,
      env: nodeChildEnvironment(CHILD_FILES),
    }));
  } catch (error) {
    throw childFailure(error, tooLarge);
  }
  const reply = JSON.parse(stdout) as ChildReply;
  if (reply.outOfMemory === true || (tooLarge && typeof reply.error === 'string')) {
    throw childFailure(new UnprocessableInputError(OUT_OF_MEMORY_MESSAGE, new Error(reply.error)));
  }
  if (typeof reply.error === 'string') throw childFailure(new UnprocessableInputError(reply.error));
  return reply;
}

interface ChildReply {
  size: number;
  score: number | null;
  error?: string;
  outOfMemory?: boolean;
}

/** What a client is told when the child's memory limit stopped the encode (docs/api.md, errors). */
const OUT_OF_MEMORY_MESSAGE =
  'The image is too large to encode in this output format within the memory this server allows its ' +
  'image encoder; ask for a smaller size or another format.';

/**
 * The runner's error, worded for an encode that ran out of the child's memory (its words say so, or the
 * encode could not fit: `tooLarge`); marked as the child's.
 */
function childFailure(error: unknown, tooLarge = false): unknown {
  const cause = error instanceof Error ? error.cause : undefined;
  const outOfMemory =
    error instanceof UnprocessableInputError &&
    (tooLarge || (cause instanceof Error && OUT_OF_MEMORY.test(cause.message)));
  const failure = outOfMemory ? new UnprocessableInputError(OUT_OF_MEMORY_MESSAGE, error) : error;
  // Stops and deadlines are not the child's to mark: the job ends by them anyway.
  if (error instanceof UnprocessableInputError && typeof failure === 'object' && failure !== null) {
    childFailures.add(failure);
  }
  return failure;
}
