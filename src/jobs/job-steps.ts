/** The named steps of a job, in order. Each reads and extends the shared context. */
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UnsupportedMediaError } from '../errors/catalog.ts';
import { detectFile } from '../media/detect.ts';
import { formatInfo, outputName, safeFileName } from '../media/formats.ts';
import { hashFile } from '../media/hash.ts';
import { linkName } from './download-link.ts';
import { jobKeys } from './job.ts';
import type { JobStep } from './job-context.ts';

const acquireInput: JobStep = {
  name: 'acquire-input',
  async run(c) {
    const { job, deps } = c;
    if (job.source.type === 'fetch') {
      const path = join(c.workDir, 'input');
      const result = await deps.outbound.download({
        url: job.source.url,
        headers: job.source.headers,
        destinationPath: path,
        maxBytes: c.options.maxInputBytes,
        signal: c.signal,
      });
      c.inputPath = path;
      c.received = { name: safeFileName(result.fileName), size: result.size, sha1: result.sha1 };
      await deps.store.setInput(job.id, c.received);
      // A synchronous caller waiting for a large download switches to the asynchronous answer.
      await deps.events.publishChanged(job.id);
      return;
    }
    if (!job.input) throw new Error('uploaded job has no input record');
    const key = jobKeys.input(job.id);
    let path = deps.files.localPath(key);
    if (path === undefined) {
      path = join(c.workDir, 'input');
      await deps.files.downloadTo(key, path);
    }
    c.inputPath = path;
    c.received = { name: job.input.name, size: job.input.size, sha1: job.input.sha1 };
  },
};

const detectKind: JobStep = {
  name: 'detect-kind',
  async run(c) {
    const detected = await detectFile(c.inputPath!);
    if (!detected) throw new UnsupportedMediaError('The file type could not be recognised from its content.');
    const received = c.received!;
    c.input = { ...received, type: detected.kind, format: detected.format, mime: detected.mime };
    c.detected = { path: c.inputPath!, name: received.name, size: received.size, ...detected };
  },
};

const chooseProcessor: JobStep = {
  name: 'choose-processor',
  async run(c) {
    const { kind, format } = c.detected!;
    const processor = c.deps.processors.forKind(kind);
    if (!processor)
      throw new UnsupportedMediaError(`Files of type ${kind} (${format}) are not supported by this server.`);
    if (!processor.inputFormats.includes(format)) {
      throw new UnsupportedMediaError(`The ${kind} format ${format} is not supported by this server.`);
    }
    c.processor = processor;
  },
};

const processFile: JobStep = {
  name: 'process',
  async run(c) {
    const workDir = join(c.workDir, 'process');
    await mkdir(workDir, { recursive: true });
    const namespace = c.job.params[c.processor!.kind];
    c.result = await c.processor!.process({
      input: c.detected!,
      params: (namespace ?? {}) as Record<string, unknown>,
      workDir,
      signal: c.signal,
      wantMetadata: c.job.params.metadata === true,
      onProgress: progressWriter(c),
    });
  },
};

/**
 * Stores a processor's progress: only rising whole percents, one write at a time (a write still in flight
 * drops the next value; the one after catches up). A write that fails is logged; the job goes on.
 */
function progressWriter(c: Parameters<JobStep['run']>[0]): (percent: number) => void {
  let last = -1;
  let writing = false;
  return (percent) => {
    const value = Math.floor(percent);
    if (value <= last || writing) return;
    last = value;
    writing = true;
    c.deps.store
      .setProgress(c.job.id, value)
      .catch((error: unknown) => c.log.warn({ err: error }, 'progress not recorded'))
      .finally(() => {
        writing = false;
      });
  };
}

/**
 * The never-larger rule: when the request changed neither the format nor the size (nothing
 * `transformed`), a result that is not smaller than the input is replaced by the input itself.
 */
const keepSmaller: JobStep = {
  name: 'keep-smaller',
  async run(c) {
    const result = c.result!;
    if (result.transformed) return;
    const { size } = await stat(result.path);
    if (size >= c.received!.size) {
      c.log.debug({ output: size, input: c.received!.size }, 'output not smaller; returning the input');
      c.result = { ...result, path: c.inputPath!, format: c.detected!.format };
    }
  },
};

const describeOutput: JobStep = {
  name: 'describe-output',
  async run(c) {
    const { format, path } = c.result!;
    const { sha1, size } = await hashFile(path);
    const info = formatInfo(format);
    c.outputDescriptor = {
      name: outputName(c.received!.name, format),
      type: info?.kind ?? c.detected!.kind,
      format,
      mime: info?.mime ?? 'application/octet-stream',
      size,
      sha1,
    };
  },
};

const storeOutput: JobStep = {
  name: 'store-output',
  async run(c) {
    const descriptor = c.outputDescriptor!;
    let path = c.result!.path;
    // The input may be the output (nothing smaller was found); keep the stored input intact for a re-run.
    if (path === c.inputPath) {
      path = join(c.workDir, 'output-copy');
      await copyFile(c.inputPath, path);
    }
    const key = jobKeys.output(c.job.id, descriptor.name);
    await c.deps.files.putFile(key, path);
    const expiresAt = Date.now() + c.options.outputTtlMs;
    const expirySeconds = Math.floor(expiresAt / 1000);
    c.output = {
      descriptor,
      key,
      expiresAt: expirySeconds * 1000,
      url: `${c.options.publicUrl}/${expirySeconds}/${c.job.id}/${linkName(descriptor.name)}`,
      metadata: c.result!.metadata,
    };
  },
};

export const JOB_STEPS: readonly JobStep[] = [
  acquireInput,
  detectKind,
  chooseProcessor,
  processFile,
  keepSmaller,
  describeOutput,
  storeOutput,
];
