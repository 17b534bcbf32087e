/**
 * Behaviour every processor kind must have, run on the processor its module (src/processors/<kind>/index.ts)
 * creates from its loaded section and a host, as `presso serve` builds it: it is in the catalog with a lane,
 * its schema's defaults are valid values, and it honours an abort, writes only under its work dir, answers corrupt input with a 422 PressoError, and decodes a
 * real file of every input format it declares. Samples are real files; the suite copies each into a
 * fresh input folder so it can watch that folder and the work dir's parent for stray writes.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { type TObject, Type } from '#typebox';
import type { Env } from '../../src/config/env.ts';
import { PressoError } from '../../src/errors/catalog.ts';
import { detectFile } from '../../src/media/detect.ts';
import type { FileKind } from '../../src/media/formats.ts';
import { PROCESSORS } from '../../src/processors/catalog.ts';
import type { ProcessorHost, ProcessorModule } from '../../src/processors/module.ts';
import type { Processor, ProcessRequest, ProcessResult } from '../../src/processors/processor.ts';
import { compile } from '../../src/validation/schema-validator.ts';
import { DEFAULT_SETTINGS } from '../support/host-settings.ts';
import { useScratch } from '../support/scratch.ts';
import { scaledMs } from '../support/time-scale.ts';

export interface ProcessorSamples {
  /** One real file per declared input format, keyed by that format's name. */
  byFormat: Record<string, string>;
  /**
   * Formats the magic bytes cannot name, reached through another processor's `refineInput` (audio-only
   * WebM is sniffed as WebM video): their samples are decoded like the rest, but the detection check only
   * requires that the sniffed format's processor refines them to this format (`refine`).
   */
  refined?: { formats: readonly string[]; refine(path: string): Promise<{ kind: string; format: string }> };
  /** Files of the processor's kind that are damaged (cut, overwritten); each must be refused with 422. */
  corrupt: string[];
  /** A request that takes long enough to be aborted while it runs. */
  slow: { path: string; params: Record<string, unknown> };
  /** Kind-specific proof that an output is a real, decodable file of its format. */
  verifyOutput(result: ProcessResult): Promise<void>;
}

/** Only guards against a hang; an abort is expected to end a job far sooner. */
const HANG_GUARD_MS = scaledMs(120_000);

/**
 * A host as the composition root makes one: the other kinds of the catalog at their defaults (created when
 * first asked for: deep archives reach every kind), and the default host settings.
 */
function testHost(): ProcessorHost {
  const created = new Map<FileKind, Processor>();
  const modules: readonly ProcessorModule<unknown>[] = PROCESSORS;
  const host: ProcessorHost = {
    processorFor(kind) {
      const module = modules.find((candidate) => candidate.kind === kind);
      if (!created.has(kind) && module !== undefined)
        created.set(kind, module.create(module.config.load({}), host));
      return created.get(kind);
    },
    settings: DEFAULT_SETTINGS,
    warn: () => {},
  };
  return host;
}

/** `env`: the kind's `PRESSO_*` variables for the suite (a time budget long enough for a loaded machine). */
export function processorContract<C>(
  module: ProcessorModule<C>,
  samples: ProcessorSamples,
  env: Env = {},
): void {
  const name = module.kind;
  describe(`Processor contract: ${name}`, () => {
    const scratch = useScratch('presso-processor-contract-');
    const processor = module.create(module.config.load(env), testHost());

    it('is in the catalog, with a lane, and creates a processor of its kind from its section and host', () => {
      assert.ok(
        PROCESSORS.some((listed) => listed === module),
        'one line in src/processors/catalog.ts',
      );
      assert.ok(['standard', 'media'].includes(module.lane));
      assert.equal(processor.kind, module.kind);
    });

    it('declares defaults its own schema accepts', () => {
      const { properties } = processor.paramsSchema as TObject;
      for (const [field, property] of Object.entries(properties)) {
        if (!('default' in property)) continue;
        const validate = compile(Type.Object({ [field]: property }));
        assert.ok(
          validate({ [field]: property.default }),
          `${name}.${field}: ${JSON.stringify(validate.errors)}`,
        );
      }
    });
    let jobs = 0;

    /**
     * A job as the runner makes it: the input in its own folder, a fresh work dir. Each job has its own
     * parent folder, so an encode a previous job abandoned (still writing in its work dir) is not seen.
     */
    async function request(
      sample: string,
      params: Record<string, unknown>,
      signal: AbortSignal,
    ): Promise<ProcessRequest & { inputDir: string; workParent: string }> {
      const id = `job-${++jobs}`;
      const inputDir = join(scratch(), 'inputs', id);
      const workParent = join(scratch(), 'work', id);
      const workDir = join(workParent, 'work-dir');
      await mkdir(inputDir, { recursive: true });
      await mkdir(workDir, { recursive: true });
      const path = join(inputDir, 'input');
      await copyFile(sample, path);
      const detected = await detectFile(path);
      assert.ok(detected !== undefined, `sample not detected: ${sample}`);
      const input = { ...detected, path, name: basename(sample), size: (await stat(path)).size };
      return { input, params, workDir, signal, wantMetadata: false, inputDir, workParent };
    }

    it('declares a sample for every input format, and each is detected as that format', async () => {
      assert.deepEqual(Object.keys(samples.byFormat).sort(), [...processor.inputFormats].sort());
      for (const [format, path] of Object.entries(samples.byFormat)) {
        const detected = samples.refined?.formats.includes(format)
          ? await samples.refined.refine(path)
          : await detectFile(path);
        assert.equal(detected?.kind, processor.kind, path);
        assert.equal(detected?.format, format, path);
      }
    });

    for (const [format, sample] of Object.entries(samples.byFormat)) {
      it(`decodes a real ${format} file into a declared output format, writing only under its work dir`, async () => {
        const job = await request(sample, {}, new AbortController().signal);
        const before = await snapshot([job.inputDir, job.workParent], job.workDir);
        const result = await processor.process(job);
        assert.ok(processor.outputFormats.includes(result.format), `undeclared output ${result.format}`);
        assert.ok(
          result.path === job.input.path || isInside(result.path, job.workDir),
          `output outside the work dir: ${result.path}`,
        );
        assert.ok((await stat(result.path)).size > 0);
        await samples.verifyOutput(result);
        const afterRun = await snapshot([job.inputDir, job.workParent], job.workDir);
        assert.deepEqual(afterRun, before, 'files changed outside the work dir');
      });
    }

    it('answers corrupt input with a 422 PressoError', async () => {
      assert.ok(samples.corrupt.length > 0);
      for (const sample of samples.corrupt) {
        const job = await request(sample, {}, new AbortController().signal);
        await assert.rejects(processor.process(job), (error: unknown) => {
          assert.ok(error instanceof PressoError, `${sample}: ${String(error)}`);
          assert.equal(error.statusCode, 422, sample);
          return true;
        });
      }
    });

    it('refuses a job whose signal is already aborted, before doing any work', async () => {
      const controller = new AbortController();
      const reason = new Error('cancelled before the start');
      controller.abort(reason);
      const job = await request(samples.slow.path, samples.slow.params, controller.signal);
      await assert.rejects(processor.process(job), (error: unknown) => error === reason);
      assert.deepEqual(await readdir(job.workDir), [], 'nothing written for an aborted job');
    });

    it('stops a running job on abort with the abort reason, and leaves nothing outside its work dir', async () => {
      // Abort points from "right after the call" to a few event-loop turns in: each lands mid-run.
      for (const turns of [0, 1, 10]) {
        const controller = new AbortController();
        const reason = new Error(`cancelled after ${turns} turns`);
        const job = await request(samples.slow.path, samples.slow.params, controller.signal);
        const before = await snapshot([job.inputDir, job.workParent], job.workDir);
        const running = processor.process(job);
        for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
        controller.abort(reason);
        await assert.rejects(withHangGuard(running), (error: unknown) => error === reason);
        assert.deepEqual(await snapshot([job.inputDir, job.workParent], job.workDir), before);
      }
    });

    it('stops deep in its work (during decoding or encoding) on abort', async () => {
      const controller = new AbortController();
      const reason = new Error('cancelled while encoding');
      const job = await request(samples.slow.path, samples.slow.params, controller.signal);
      const running = processor.process(job);
      // Not a time bound: the slow sample runs for seconds, so this abort lands inside the heavy work.
      // Should a fast machine finish first, the job must simply not have been aborted by then.
      setTimeout(() => controller.abort(reason), 300);
      const outcome = await withHangGuard(running).then(
        () => ({ finished: true as const, abortedBefore: controller.signal.aborted }),
        (error: unknown) => ({ finished: false as const, error }),
      );
      if (outcome.finished) assert.equal(outcome.abortedBefore, false, 'completed although aborted');
      else assert.equal(outcome.error, reason);
    });
  });
}

async function withHangGuard<T>(work: Promise<T>): Promise<T> {
  let guard: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    guard = setTimeout(() => reject(new Error('the job ignored its abort')), HANG_GUARD_MS);
  });
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(guard);
  }
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
}

/** Every file under `roots` with its size and modification time, except the work dir's own tree. */
async function snapshot(roots: string[], workDir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (path === workDir) continue;
      if (entry.isDirectory()) await walk(path);
      else {
        const info = await stat(path);
        files[path] = `${info.size}:${info.mtimeMs}`;
      }
    }
  };
  for (const root of roots) await walk(root);
  return files;
}
