/**
 * A job in three phases, each a list of named steps (see `step`): acquire the input, produce the output,
 * publish it. Only the phase boundaries carry state, and they are typed, so no step can run before what it
 * reads exists.
 */
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UnsupportedMediaError } from '../errors/catalog.ts';
import { detectFile } from '../media/detect.ts';
import { formatInfo, outputName, safeFileName } from '../media/formats.ts';
import { hashFile } from '../media/hash.ts';
import type { DetectedInput, Processor, ProcessResult } from '../processors/processor.ts';
import { linkName } from './download-link.ts';
import { type JobOutput, jobKeys, type ReceivedFile } from './job.ts';
import { type AcquiredInput, type JobScope, type ProducedOutput, step } from './job-context.ts';

export async function acquire(c: JobScope): Promise<AcquiredInput> {
  const { inputPath, received } = await step(c, 'acquire-input', () => acquireInput(c));
  let detected = await step(c, 'detect-kind', () => detectKind(inputPath, received));
  let processor = await step(c, 'choose-processor', async () => chooseProcessor(c, detected));
  const { refineInput } = processor;
  if (refineInput !== undefined) {
    const refined = await step(c, 'refine-kind', () =>
      refineInput.call(processor, detected, { workDir: c.workDir, jobDir: c.workDir, signal: c.signal }),
    );
    if (refined.kind !== detected.kind || refined.format !== detected.format) {
      detected = refined;
      processor = chooseProcessor(c, detected);
    }
  }
  const input = { ...received, type: detected.kind, format: detected.format, mime: detected.mime };
  return { inputPath, received, detected, input, processor };
}

export async function produce(c: JobScope, acquired: AcquiredInput): Promise<ProducedOutput> {
  const processed = await step(c, 'process', () => processFile(c, acquired));
  const result = await step(c, 'keep-smaller', () => keepSmaller(c, acquired, processed));
  const descriptor = await step(c, 'describe-output', () => describeOutput(acquired, result));
  return { result, descriptor };
}

export async function publish(
  c: JobScope,
  acquired: AcquiredInput,
  produced: ProducedOutput,
): Promise<JobOutput> {
  if (c.job.params.store !== undefined) {
    const store = c.job.params.store;
    return step(c, 'deliver-output', () => deliverOutput(c, store, produced));
  }
  return step(c, 'store-output', () => storeOutput(c, acquired, produced));
}

/** To the caller's own bucket through their connector: nothing is kept in temporary storage. */
async function deliverOutput(
  c: JobScope,
  store: Record<string, unknown>,
  { result, descriptor }: ProducedOutput,
) {
  const file = { path: result.path, name: descriptor.name, mime: descriptor.mime };
  const { url } = await c.deps.destinations.deliver(c.job.accountId, store, file, c.signal);
  return {
    descriptor,
    key: jobKeys.output(c.job.id, descriptor.name),
    // The object stays in the caller's store; the record's own expiry is the temporary outputs' one.
    expiresAt: Date.now() + c.options.outputTtlMs,
    url,
    metadata: result.metadata,
  };
}

async function acquireInput(c: JobScope): Promise<{ inputPath: string; received: ReceivedFile }> {
  const { job, deps } = c;
  if (job.source.type === 'fetch') {
    const inputPath = join(c.workDir, 'input');
    const result = await deps.outbound.download({
      url: job.source.url,
      headers: job.source.headers,
      destinationPath: inputPath,
      maxBytes: c.options.maxInputBytes,
      signal: c.signal,
    });
    const received = { name: safeFileName(result.fileName), size: result.size, sha1: result.sha1 };
    await deps.store.setInput(job.id, received);
    // A synchronous caller waiting for a large download switches to the asynchronous answer.
    await deps.events.publishChanged(job.id);
    return { inputPath, received };
  }
  if (!job.input) throw new Error('uploaded job has no input record');
  const key = jobKeys.input(job.id);
  let inputPath = deps.files.localPath(key);
  if (inputPath === undefined) {
    inputPath = join(c.workDir, 'input');
    await deps.files.downloadTo(key, inputPath);
  }
  return { inputPath, received: { name: job.input.name, size: job.input.size, sha1: job.input.sha1 } };
}

async function detectKind(inputPath: string, received: ReceivedFile): Promise<DetectedInput> {
  const detected = await detectFile(inputPath);
  if (!detected) throw new UnsupportedMediaError('The file type could not be recognised from its content.');
  return { path: inputPath, name: received.name, size: received.size, ...detected };
}

function chooseProcessor(c: JobScope, { kind, format }: DetectedInput): Processor {
  const processor = c.deps.processors.forKind(kind);
  if (!processor)
    throw new UnsupportedMediaError(`Files of type ${kind} (${format}) are not supported by this server.`);
  if (!processor.inputFormats.includes(format)) {
    throw new UnsupportedMediaError(`The ${kind} format ${format} is not supported by this server.`);
  }
  return processor;
}

async function processFile(c: JobScope, { processor, detected }: AcquiredInput): Promise<ProcessResult> {
  const workDir = join(c.workDir, 'process');
  await mkdir(workDir, { recursive: true });
  const namespace = c.job.params[processor.kind];
  return processor.process({
    input: detected,
    params: (namespace ?? {}) as Record<string, unknown>,
    workDir,
    // External tools see the job's folder (the processor's and the fetched input's) and the input alone.
    jobDir: c.workDir,
    signal: c.signal,
    wantMetadata: c.job.params.metadata === true,
    onProgress: progressWriter(c),
  });
}

/**
 * Stores a processor's progress and tells the job's watchers: only rising whole percents, one write at a time
 * (a write still in flight drops the next value; the one after catches up). A write that fails is logged; the
 * job goes on.
 */
function progressWriter(c: JobScope): (percent: number) => void {
  let last = -1;
  let writing = false;
  return (percent) => {
    const value = Math.floor(percent);
    if (value <= last || writing) return;
    last = value;
    writing = true;
    c.deps.store
      .setProgress(c.job.id, value)
      // Watchers (the job's event stream) read the new value; at most one notice per whole percent.
      .then(() => c.deps.events.publishChanged(c.job.id))
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
async function keepSmaller(
  c: JobScope,
  acquired: AcquiredInput,
  result: ProcessResult,
): Promise<ProcessResult> {
  if (result.transformed) return result;
  const { size } = await stat(result.path);
  if (size < acquired.received.size) return result;
  c.log.debug({ output: size, input: acquired.received.size }, 'output not smaller; returning the input');
  return { ...result, path: acquired.inputPath, format: acquired.detected.format };
}

async function describeOutput({ received, detected }: AcquiredInput, { format, path }: ProcessResult) {
  const { sha1, size } = await hashFile(path);
  const info = formatInfo(format);
  return {
    name: outputName(received.name, format),
    type: info?.kind ?? detected.kind,
    format,
    mime: info?.mime ?? 'application/octet-stream',
    size,
    sha1,
  };
}

async function storeOutput(c: JobScope, acquired: AcquiredInput, { result, descriptor }: ProducedOutput) {
  let path = result.path;
  // The input may be the output (nothing smaller was found); keep the stored input intact for a re-run.
  if (path === acquired.inputPath) {
    path = join(c.workDir, 'output-copy');
    await copyFile(acquired.inputPath, path);
  }
  const key = jobKeys.output(c.job.id, descriptor.name);
  await c.deps.files.putFile(key, path);
  const expirySeconds = Math.floor((Date.now() + c.options.outputTtlMs) / 1000);
  return {
    descriptor,
    key,
    expiresAt: expirySeconds * 1000,
    url: `${c.options.publicUrl}/${expirySeconds}/${c.job.id}/${linkName(descriptor.name)}`,
    metadata: result.metadata,
  };
}
